/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Text and number formatting shared by every renderer: a growable list of
 * lines (the console decides how they reach the log) and SI-prefixed values.
 */
#ifndef NUNATAK_COMMON_TEXT_H
#define NUNATAK_COMMON_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct text_lines {
	char **v;
	size_t n, cap;
	bool failed; /* an append ran out of memory */
};

/* printf-appends one line, its control characters escaped
 * (text_escape_controls). Returns 0 or -ENOMEM. */
int text_lines__add(struct text_lines *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same without escaping, for a line that carries nunatak's own colour
 * codes: every text in it from a Run, a trace or argv must already have
 * gone through text_escape_controls. */
int text_lines__add_escaped(struct text_lines *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Joins the lines with '\n' (each line terminated); caller frees. */
char *text_lines__join(const struct text_lines *t);
void text_lines__release(struct text_lines *t);
/* vprintf into a buffer of the size the text needs (never cut); caller frees,
 * NULL when out of memory. */
char *text_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A copy of s safe to print on a terminal (docs/security.md): C0 controls
 * but '\n' and '\t', DEL, C1 controls and bytes that are not UTF-8 (malformed,
 * overlong, a surrogate) become
 * "\x1b", bidi controls (U+202E ...) "\u202e", so nothing from a Run, a
 * region name or argv can move the cursor, retitle the window or reverse the
 * text beside it. Caller frees; NULL when out of memory. */
char *text_escape_controls(const char *s);

/* Formats a value with an SI prefix and unit ("1.17 Tflop/s") into buf. */
/* The next line of NUL-terminated text: sets *line to it and returns its
 * length (without '\n'); advances *p past it. */
size_t text_next_line(const char **p, const char **line);

const char *format_si(char *buf, size_t len, double v, const char *unit);

/* For text that is not NUL-terminated (a tool's output): the next line of
 * [text, text + len) as [*s, *s + *n) without its "\n" or "\r\n",
 * advancing *pos; false at the end. */
bool text_next_line_in(const char *text, size_t len, size_t *pos, const char **s, size_t *n);
/* A decimal number at the start of [s, s + n) (leading blanks skipped),
 * never reading past n; 0 when there is none. */
long text_long_in(const char *s, size_t n);

#endif
