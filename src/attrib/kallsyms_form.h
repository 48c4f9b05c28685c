/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What kallsyms.c (the text parser, the cache form) and kallsyms_stream.c
 * (text to the cache form as it is read) share: one line of kallsyms text,
 * and the pieces of the cache form (its format is in kallsyms.c).
 */
#ifndef NUNATAK_ATTRIB_KALLSYMS_FORM_H
#define NUNATAK_ATTRIB_KALLSYMS_FORM_H

#include <stddef.h>
#include <stdint.h>

struct kallsyms;

#define KALLSYMS_MAGIC "nunatak kallsyms 1\n"
#define KALLSYMS_MAGIC_LEN (sizeof(KALLSYMS_MAGIC) - 1)
/* the magic, `_text`, `_etext` (8 bytes each) and the flags byte; then the
 * count, a varint of at most 10 bytes */
#define KALLSYMS_HEAD_FIXED (KALLSYMS_MAGIC_LEN + 17)
#define KALLSYMS_PFX "__pfx_"
#define KALLSYMS_PFX_LEN (sizeof(KALLSYMS_PFX) - 1)

/* A core text symbol of one line. */
struct kallsyms_line {
	uint64_t addr;
	const char *name; /* into the text, len bytes */
	size_t len;
};

/*
 * One line "addr type name [module]" without its newline, [p, end): 1 a
 * core text symbol (out filled), 0 a line that names nothing (data, a
 * module's, no type t/T/w/W), -1 malformed (a NUL in the name too). Else
 * ks's `_text`, `_etext` (the first core ones) and zeros (cleared by any
 * non-zero address) follow the line, as kallsyms__parse sets them.
 */
int kallsyms__line(const char *p, const char *end, struct kallsyms_line *out,
		   struct kallsyms *ks);

/* LEB128, at most 10 bytes at b. */
static inline size_t kallsyms__put_varint(unsigned char *b, uint64_t v)
{
	size_t n = 0;
	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		b[n++] |= v ? 0x80 : 0;
	} while (v);
	return n;
}

/* The header (the magic, ks's `_text`, `_etext` and flags, the count) at
 * b, which has KALLSYMS_HEAD_FIXED + 10 bytes; returns its length. */
size_t kallsyms__put_head(unsigned char *b, const struct kallsyms *ks, uint64_t count);

#endif
