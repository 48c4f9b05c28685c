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
	/* extension block (docs/formats.md), when present */
	int has_ext;
	int64_t init_ns, finalize_ns, init_real_ns, start_ns;
	int32_t nlanes;
	int64_t lane_first[64], lane_last[64], lane_cpu[64];
	int64_t misuse[16];          /* count per kind */
	char misuse_name[16][128];   /* first region named per kind */
	int64_t misuse_name_count[16];
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

static inline int tspt_ext(FILE *f, struct tspt *t)
{
	char magic[8];
	int64_t total;
	if (tspt_take(f, magic, 8) || memcmp(magic, "SPTEXT01", 8) || tspt_take(f, &total, 8))
		return -1;
	t->has_ext = 1;
	while (total > 0) {
		uint32_t tag, len;
		if (tspt_take(f, &tag, 4) || tspt_take(f, &len, 4))
			return -1;
		total -= 8 + (int64_t)len;
		if (tag == 0x454d4954u) { /* TIME */
			int32_t pad;
			if (tspt_take(f, &t->init_ns, 8) || tspt_take(f, &t->finalize_ns, 8) ||
			    tspt_take(f, &t->init_real_ns, 8) || tspt_take(f, &t->start_ns, 8) ||
			    tspt_take(f, &t->nlanes, 4) || tspt_take(f, &pad, 4) || t->nlanes > 64)
				return -1;
			for (int l = 0; l < t->nlanes; l++)
				if (tspt_take(f, &t->lane_first[l], 8) || tspt_take(f, &t->lane_last[l], 8) ||
				    tspt_take(f, &t->lane_cpu[l], 8))
					return -1;
		} else if (tag == 0x5553494du) { /* MISU */
			int32_t kinds;
			if (tspt_take(f, &kinds, 4))
				return -1;
			for (int k = 0; k < kinds; k++) {
				int32_t kind, pad, names;
				int64_t count;
				if (tspt_take(f, &kind, 4) || tspt_take(f, &pad, 4) ||
				    tspt_take(f, &count, 8) || tspt_take(f, &names, 4) || kind < 0 ||
				    kind >= 16)
					return -1;
				t->misuse[kind] = count;
				for (int i = 0; i < names; i++) {
					char name[128];
					int64_t c;
					if (tspt_str(f, name, sizeof(name)) || tspt_take(f, &c, 8))
						return -1;
					if (i == 0) {
						strcpy(t->misuse_name[kind], name);
						t->misuse_name_count[kind] = c;
					}
				}
			}
		} else {
			for (uint32_t i = 0; i < len; i++)
				if (fgetc(f) == EOF)
					return -1;
		}
	}
	return total == 0 ? 0 : -1;
}

/* 0 on success; the whole file must be consumed (the extension block
 * after the seed's fields is parsed). */
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
	int c = fgetc(f);
	if (c != EOF) {
		ungetc(c, f);
		if (tspt_ext(f, t))
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
