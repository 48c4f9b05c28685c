// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: perf stat -x, CSV into Locus-level Measurements.
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/perf_stat.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_opts o = {.sz = sizeof(o), .node = "fuzz", .rank = 0};
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	struct err e = {0};
	int counted = ingest_perf_stat((const char *)data, size, &o, &p, &st, &e);
	if (counted > (int)p.nr_measurements)
		__builtin_trap();
	pivot__release(&p);
	ingest_stats__release(&st);
	return 0;
}
