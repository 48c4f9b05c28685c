/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TEST-ONLY counter backend of libscope_profiler (lib/counters.h): it
 * counts nothing; the program linking it says what its regions "did" with
 * ctr_test_add(), and the library reads those known counts at sp_begin /
 * sp_end exactly as it reads perf_event's. It exists so the FLOP / DRAM
 * roofline path of regions is tested on machines without a PMU, the way
 * the recorded corpus tests the Hotspot roofline. Never built into a
 * release: only test programs link this file (tests/CMakeLists.txt), and
 * the libraries reach it through a hidden weak reference that is NULL
 * everywhere else. Traces it produced say backend "test", and
 * `scope-profiler inspect` calls their counts made up.
 *
 * Events: test::FLOP (kind flop), test::DRAM_BYTES (kind bytes).
 */
#include "ctr_test_backend.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "counters.h"

static __thread uint64_t counts[2]; /* per thread, as perf_event's are */

void ctr_test_add(uint64_t flop, uint64_t dram_bytes)
{
	counts[0] += flop;
	counts[1] += dram_bytes;
}

static int resolve(const char *name, int *kind)
{
	if (!strcasecmp(name, "test::FLOP")) {
		*kind = SP_CTR_KIND_FLOP;
		return 0;
	}
	if (!strcasecmp(name, "test::DRAM_BYTES")) {
		*kind = SP_CTR_KIND_BYTES;
		return 1;
	}
	return -1;
}

struct state {
	int ids[SP_CTR_MAX];
	int n;
};

static int open_group(void *st, const int *ids, int n)
{
	struct state *s = st;
	if (n > SP_CTR_MAX)
		return -EINVAL;
	memcpy(s->ids, ids, (size_t)n * sizeof(int));
	s->n = n;
	return 0;
}

static int read_group(void *st, uint64_t *values, int n)
{
	const struct state *s = st;
	for (int i = 0; i < n && i < s->n; i++)
		values[i] = counts[s->ids[i]];
	return 0;
}

static void close_group(void *st)
{
	((struct state *)st)->n = 0;
}

const struct sp_ctr_backend sp_ctr_test_backend = {"test", resolve, open_group, read_group,
						   close_group};
