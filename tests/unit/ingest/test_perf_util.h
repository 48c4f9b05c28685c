/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the ingest unit tests (header-only, test code). */
#ifndef TESTS_UNIT_INGEST_TEST_PERF_UTIL_H
#define TESTS_UNIT_INGEST_TEST_PERF_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS_PERF TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/"

/* Reads a whole file; caller frees. NULL when absent. */
static inline char *slurp(const char *path, size_t *len)
{
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return buf;
}

#endif
