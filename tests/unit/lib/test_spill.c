/* SPDX-License-Identifier: BSD-3-Clause */
/* Finalize's spill (lib/spill.c): runs sorted on disk and merged give each
 * region's calls in exactly the order the in-memory sort gives, ties included,
 * so the .spt is the same byte for byte whatever the chunk size. */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include "harness.h"
#include "spill.h"
#include "trace.h"

#define NR_REGIONS 5

struct collect {
	struct sp_call_out *v;
	size_t n;
};

static int take(void *ctx, const struct sp_call_out *calls, size_t n)
{
	struct collect *c = ctx;
	memcpy(c->v + c->n, calls, n * sizeof(*calls));
	c->n += n;
	return 0;
}

/* A file-order stream like the library's: 3 threads' frames interleaved,
 * each thread's calls in end order (recursion: inner calls end first),
 * with equal intervals on different lanes (ties broken by file order). */
static size_t make_stream(struct sp_call_out *v, uint32_t *reg, size_t n, bool one_lane)
{
	uint64_t x = 88172645463325252ull;
	size_t k = 0;
	int64_t t[3] = {1000, 1000, 1000};
	while (k < n) {
		int lane = one_lane ? 0 : (int)(x % 3);
		for (int f = 0; f < 37 && k < n; f++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int depth = one_lane ? 1 : (int)(x % 4) + 1;
			int64_t s = t[lane];
			uint32_t r = (uint32_t)(x >> 8) % NR_REGIONS;
			/* nested calls of one region ending inside out */
			for (int d = depth - 1; d >= 0 && k < n; d--) {
				memset(&v[k], 0, sizeof(v[k]));
				v[k].start_ns = s + d;
				v[k].end_ns = s + 2 * depth - d;
				v[k].lane = lane;
				reg[k++] = r;
			}
			/* every lane uses the same clock grid: equal intervals happen */
			t[lane] += 2 * depth + (int64_t)(x >> 40) % 3;
		}
	}
	return k;
}

static void check_chunk(size_t chunk, size_t n, bool one_lane)
{
	struct sp_call_out *v = malloc(n * sizeof(*v));
	uint32_t *reg = malloc(n * sizeof(*reg));
	CHECK(v && reg);
	n = make_stream(v, reg, n, one_lane);
	char near[] = "/tmp/sp-spill-test-XXXXXX";
	int fd = mkstemp(near);
	CHECK(fd >= 0);
	close(fd);
	struct sp_spill *sp = sp_spill__new(near, NR_REGIONS, chunk);
	CHECK(sp != NULL);
	for (size_t i = 0; i < n; i++)
		CHECK_INT(sp_spill__add(sp, reg[i], &v[i]), 0);
	CHECK_INT(sp_spill__finish(sp), 0);
	struct sp_call_out *want = malloc(n * sizeof(*want));
	struct collect got = {malloc(n * sizeof(*want)), 0};
	CHECK(want && got.v);
	for (uint32_t r = 0; r < NR_REGIONS; r++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (reg[i] == r)
				want[m++] = v[i];
		CHECK_INT(sp_trace__sort_calls(want, m), 0);
		got.n = 0;
		CHECK_INT(sp_spill__region(sp, r, take, &got), 0);
		CHECK_INT((long)got.n, (long)m);
		CHECK(memcmp(want, got.v, m * sizeof(*want)) == 0);
	}
	sp_spill__free(sp);
	/* the scratch file was unlinked at creation: nothing left beside the trace */
	char scratch[64];
	snprintf(scratch, sizeof(scratch), "%s.sort.%ld", near, (long)getpid());
	CHECK(access(scratch, F_OK) != 0 && errno == ENOENT);
	unlink(near);
	free(v);
	free(reg);
	free(want);
	free(got.v);
}

static void t_small_chunks(void)
{
	check_chunk(16, 20000, false);   /* many runs per region, a heap of hundreds */
	check_chunk(1000, 50000, false); /* tens of runs, the last one in memory */
}

static void t_one_chunk(void)
{
	check_chunk(1 << 16, 30000, false); /* never spilled: one run in memory */
}

static void t_in_order(void)
{
	/* one thread, no recursion: each region's runs follow each other and
	 * are copied in order without a merge */
	check_chunk(16, 20000, true);
	check_chunk(999, 50000, true);
}

static const struct test_case cases[] = {
	{"small_chunks", "spilled runs merge to the in-memory sort's order, ties included",
	 t_small_chunks},
	{"one_chunk", "a trace within one chunk stays in memory, same order", t_one_chunk},
	{"in_order", "runs that follow each other are copied, same order", t_in_order},
};
TEST_MAIN(cases)
