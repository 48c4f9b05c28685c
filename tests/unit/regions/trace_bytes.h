/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hand-made byte-level writer of .spt/.sps files for tests: independent of
 * libscope_profiler, so the readers are checked against the format as the
 * seeds describe it, in both byte orders and every version.
 */
#ifndef TESTS_UNIT_REGIONS_TRACE_BYTES_H
#define TESTS_UNIT_REGIONS_TRACE_BYTES_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tb {
	unsigned char *b;
	size_t n, cap;
	bool big; /* write big-endian */
};

static inline void tb_raw(struct tb *t, const void *p, size_t n)
{
	if (t->n + n > t->cap) {
		t->cap = (t->n + n) * 2 + 64;
		t->b = realloc(t->b, t->cap);
	}
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

static inline void tb_int(struct tb *t, uint64_t v, int bytes)
{
	unsigned char o[8];
	for (int i = 0; i < bytes; i++)
		o[t->big ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
	tb_raw(t, o, (size_t)bytes);
}

static inline void tb_i32(struct tb *t, int32_t v) { tb_int(t, (uint32_t)v, 4); }
static inline void tb_i64(struct tb *t, int64_t v) { tb_int(t, (uint64_t)v, 8); }

static inline void tb_str(struct tb *t, const char *s)
{
	tb_i32(t, (int32_t)strlen(s));
	tb_raw(t, s, strlen(s));
}

struct tb_call {
	int64_t start, end;
	int32_t lane;
};

struct tb_region {
	const char *name, *file; /* file NULL: unknown */
	int32_t line;
	const struct tb_call *calls;
	size_t nr_calls;
};

struct tb_thread {
	int64_t tid;
	const char *name;
};

static inline void tb_spt(struct tb *t, int version, int32_t rank, const struct tb_region *r,
			  size_t nr, const struct tb_thread *th, size_t nr_th)
{
	tb_raw(t, "SCOPEPRF", 8);
	tb_i32(t, version);
	tb_i32(t, rank);
	tb_i64(t, (int64_t)nr);
	for (size_t i = 0; i < nr; i++) {
		tb_str(t, r[i].name);
		if (version >= 2) {
			tb_str(t, r[i].file ? r[i].file : "");
			tb_i32(t, r[i].line);
		}
		tb_i64(t, (int64_t)r[i].nr_calls);
		for (size_t k = 0; k < r[i].nr_calls; k++)
			tb_i64(t, r[i].calls[k].start);
		for (size_t k = 0; k < r[i].nr_calls; k++)
			tb_i64(t, r[i].calls[k].end);
		if (version >= 3)
			for (size_t k = 0; k < r[i].nr_calls; k++)
				tb_i32(t, r[i].calls[k].lane);
	}
	if (version >= 3) {
		tb_i32(t, (int32_t)nr_th);
		for (size_t i = 0; i < nr_th; i++) {
			tb_i64(t, th[i].tid);
			tb_str(t, th[i].name);
		}
	}
}

static inline int tb_save(const struct tb *t, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(t->b, 1, t->n, f);
	return fclose(f) == 0 && w == t->n ? 0 : -1;
}

/* Removes a flat directory of test files. */
static inline void tb_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];
	while (d && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

#define TB_NR(a) (sizeof(a) / sizeof((a)[0]))

#endif
