/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal .spt parser for the library's unit tests, written against
 * docs/formats.md (native byte order only). Not the product's reader, which
 * lives in src/ingest/.
 */
#ifndef TESTS_UNIT_LIB_SPT_PARSE_H
#define TESTS_UNIT_LIB_SPT_PARSE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tspt_region {
	char name[128], file[256];
	int32_t line;
	int64_t n;
	int64_t *starts, *ends;
	int32_t *lanes;
};

struct tspt {
	int32_t version, rank;
	int64_t nregions;
	struct tspt_region r[64];
	int32_t nthreads;
	int64_t tids[64];
	char tnames[64][32];
};

static inline int tspt_take(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n ? 0 : -1;
}

static inline int tspt_str(FILE *f, char *out, size_t cap)
{
	int32_t n;
	if (tspt_take(f, &n, 4) || n < 0 || (size_t)n >= cap)
		return -1;
	out[n] = 0;
	return tspt_take(f, out, (size_t)n);
}

/* 0 on success; the whole file must be consumed. */
static inline int tspt_read(const char *path, struct tspt *t)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char magic[8];
	int rc = -1;
	if (tspt_take(f, magic, 8) || memcmp(magic, "SCOPEPRF", 8) ||
	    tspt_take(f, &t->version, 4) || tspt_take(f, &t->rank, 4) ||
	    tspt_take(f, &t->nregions, 8) || t->nregions > 64)
		goto out;
	for (int64_t i = 0; i < t->nregions; i++) {
		struct tspt_region *r = &t->r[i];
		if (tspt_str(f, r->name, sizeof(r->name)) || tspt_str(f, r->file, sizeof(r->file)) ||
		    tspt_take(f, &r->line, 4) || tspt_take(f, &r->n, 8) || r->n < 0)
			goto out;
		r->starts = malloc((size_t)r->n * 8 + 8);
		r->ends = malloc((size_t)r->n * 8 + 8);
		r->lanes = calloc((size_t)r->n + 1, 4);
		if (tspt_take(f, r->starts, (size_t)r->n * 8) || tspt_take(f, r->ends, (size_t)r->n * 8))
			goto out;
		if (t->version >= 3 && tspt_take(f, r->lanes, (size_t)r->n * 4))
			goto out;
	}
	if (t->version >= 3) {
		if (tspt_take(f, &t->nthreads, 4) || t->nthreads > 64)
			goto out;
		for (int i = 0; i < t->nthreads; i++)
			if (tspt_take(f, &t->tids[i], 8) || tspt_str(f, t->tnames[i], 32))
				goto out;
	}
	rc = fgetc(f) == EOF ? 0 : -2;
out:
	fclose(f);
	return rc;
}

static inline struct tspt_region *tspt_find(struct tspt *t, const char *name)
{
	for (int64_t i = 0; i < t->nregions; i++)
		if (strcmp(t->r[i].name, name) == 0)
			return &t->r[i];
	return NULL;
}

#endif
