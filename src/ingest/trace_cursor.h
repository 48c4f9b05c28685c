/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bounds-checked cursor over the bytes of a scope_profiler file (.spt and
 * .sps share it): every read checks what is left, and a short read fills the
 * caller's struct err with "<path>: byte <offset>: truncated: expected <what>
 * (<n> bytes), found <m> bytes" (code trace.truncated). Integers are read in
 * the file's byte order (`swap`), strings are borrowed from the bytes.
 */
#ifndef NUNATAK_INGEST_TRACE_CURSOR_H
#define NUNATAK_INGEST_TRACE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct err;

/* An integer of the file at p in its byte order (swap: the other one). */
static inline int64_t spt_load_i64(const unsigned char *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	if (swap)
		v = __builtin_bswap64(v);
	return (int64_t)v;
}

static inline int32_t spt_load_i32(const unsigned char *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	if (swap)
		v = __builtin_bswap32(v);
	return (int32_t)v;
}


struct trace_cursor {
	const unsigned char *buf;
	size_t len, off;
	bool swap;
	const char *path; /* for messages */
	struct err *e;
};

/* Fills c->e with the truncation message for `need` bytes of `what`; returns -EINVAL. */
int trace_cursor__truncated(struct trace_cursor *c, size_t need, const char *what);
/* Borrows the next n bytes in *p and advances; 0 or -EINVAL (truncated). */
int trace_cursor__take(struct trace_cursor *c, size_t n, const char *what,
		       const unsigned char **p);
int trace_cursor__i32(struct trace_cursor *c, const char *what, int32_t *v);
int trace_cursor__i64(struct trace_cursor *c, const char *what, int64_t *v);
/* An int32 length (>= 0, else trace.corrupt) then that many bytes, borrowed. */
int trace_cursor__string(struct trace_cursor *c, const char *what, const char **s,
			 uint32_t *n);

#endif
