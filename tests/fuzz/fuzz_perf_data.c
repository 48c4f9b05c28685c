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

/* the rank shim's walk over the mapped files: each path within the image */
static int touch_path(void *ctx, const char *path, size_t n)
{
	size_t *sum = ctx;
	for (size_t i = 0; i < n; i++)
		*sum += (unsigned char)path[i];
	return 0;
}

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
	size_t sum = 0;
	struct err me = {0};
	if (perf_data__mapped_files(data, size, touch_path, &sum, &me) && me.code[0] == '\0')
		__builtin_trap();
	return 0;
}
