// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: perf script text (and, on the same bytes, a build-id list)
// through the whole ingestion path into a pivot.
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "ingest/perf_script.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buildid_list ids;
	buildid_list__init(&ids);
	struct err e = {0};
	buildid_list__parse(&ids, (const char *)data, size, &e);
	struct ingest_opts o = {.sz = sizeof(o), .node = "fuzz", .rank = 0, .build_ids = &ids};
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	ingest_perf_script((const char *)data, size, &o, &p, &st, &e);
	if (st.nr_unparsed > st.nr_sample_lines)
		__builtin_trap(); /* the message would say "n of total" with n > total */
	pivot__release(&p);
	ingest_stats__release(&st);
	buildid_list__release(&ids);
	return 0;
}
