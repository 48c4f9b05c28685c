// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: perf.data images through the direct reader into a pivot.
// Errors are expected; crashes, leaks and UB are not.
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/perf_data.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_opts o = {.sz = sizeof(o), .node = "fuzz", .rank = 0};
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	struct err e = {0};
	int rc = ingest_perf_data(data, size, &o, &p, &st, &e);
	if (rc && e.code[0] == '\0')
		__builtin_trap(); /* every failure names its code */
	pivot__release(&p);
	ingest_stats__release(&st);
	return 0;
}
