/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A write buffer for exports of millions of events: integers are formatted by
 * hand (printf costs more than the rest of an export) and bytes reach the
 * FILE in 1 MiB blocks. Errors are sticky and checked once at the end.
 */
#ifndef NUNATAK_REPORT_WBUF_H
#define NUNATAK_REPORT_WBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define WBUF_SIZE (1u << 20)

struct wbuf {
	FILE *f;
	char *b; /* WBUF_SIZE bytes */
	size_t n;
	bool failed;
};

int wbuf__init(struct wbuf *w, FILE *f);
/* Writes out what is buffered; returns -EIO when any write failed. */
int wbuf__flush(struct wbuf *w);
void wbuf__release(struct wbuf *w);

void wbuf__spill(struct wbuf *w);

static inline void wbuf__reserve(struct wbuf *w, size_t n)
{
	if (w->n + n > WBUF_SIZE)
		wbuf__spill(w);
}

static inline void wbuf__mem(struct wbuf *w, const void *p, size_t n)
{
	if (n > WBUF_SIZE / 2) {
		wbuf__spill(w);
		if (fwrite(p, 1, n, w->f) != n)
			w->failed = true;
		return;
	}
	wbuf__reserve(w, n);
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static inline void wbuf__str(struct wbuf *w, const char *s)
{
	wbuf__mem(w, s, strlen(s));
}

static inline void wbuf__u64(struct wbuf *w, uint64_t v)
{
	char t[24];
	int i = 24;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	wbuf__mem(w, t + i, (size_t)(24 - i));
}

static inline void wbuf__i64(struct wbuf *w, int64_t v)
{
	if (v < 0) {
		wbuf__mem(w, "-", 1);
		wbuf__u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		wbuf__u64(w, (uint64_t)v);
	}
}

/* v / 10^digits printed exactly with `digits` decimals ("12.345000000"). */
static inline void wbuf__fixed(struct wbuf *w, int64_t v, int digits, int64_t scale)
{
	if (v < 0) {
		wbuf__mem(w, "-", 1);
		v = -v;
	}
	wbuf__u64(w, (uint64_t)(v / scale));
	char t[24];
	int64_t f = v % scale;
	t[0] = '.';
	for (int i = digits; i > 0; i--) {
		t[i] = (char)('0' + f % 10);
		f /= 10;
	}
	wbuf__mem(w, t, (size_t)digits + 1);
}

/* Seconds with 9 decimals, from ns. */
static inline void wbuf__sec(struct wbuf *w, int64_t ns)
{
	wbuf__fixed(w, ns, 9, 1000000000);
}

/* Microseconds with 3 decimals, from ns (Chrome's ts/dur). */
static inline void wbuf__us(struct wbuf *w, int64_t ns)
{
	wbuf__fixed(w, ns, 3, 1000);
}

/* A JSON string literal, quotes included. */
void wbuf__json_str(struct wbuf *w, const char *s);
/* Caller frees: s as a JSON string literal. */
char *json_quote(const char *s);

#endif
