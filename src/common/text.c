// SPDX-License-Identifier: BSD-3-Clause
#include "common/text.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

char *text_vformat(const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	char *s = n < 0 ? NULL : xmalloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

/* Bytes of the UTF-8 sequence led by c (1 for ASCII), 0 for a byte that
 * cannot lead one. */
static int utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
	       : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

/* True for a code point the terminal would act on or that reorders text:
 * C0 (but '\n' and '\t'), DEL, C1, and the bidi controls (ALM, LRM, RLM,
 * LRE..RLO, LRI..PDI). */
static bool hostile(unsigned cp)
{
	return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f) ||
	       cp == 0x61c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

char *text_escape_controls(const char *s)
{
	size_t n = strlen(s), cap = n + 1, w = 0;
	char *out = xmalloc(cap);
	for (size_t i = 0; out && i < n;) {
		const unsigned char *u = (const unsigned char *)s + i;
		int len = utf8_len(u[0]);
		unsigned cp = len == 1 ? u[0] : len ? u[0] & (0x7f >> len) : 0;
		for (int k = 1; k < len; k++) {
			if (i + (size_t)k >= n || (u[k] & 0xc0) != 0x80) {
				len = 0; /* a broken sequence: its lead byte is escaped */
				break;
			}
			cp = cp << 6 | (u[k] & 0x3f);
		}
		/* an overlong form, a surrogate or past U+10FFFF is no UTF-8 either
		 * (a JSON writer refuses it) */
		if (len > 1 && (cp < (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) ||
				(cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
			len = 0;
		char esc[12] = "";
		if (!len)
			snprintf(esc, sizeof(esc), "\\x%02x", u[0]);
		else if (hostile(cp))
			snprintf(esc, sizeof(esc), cp < 0x80 ? "\\x%02x" : "\\u%04x", cp);
		size_t add = esc[0] ? strlen(esc) : (size_t)len;
		if (w + add + 1 > cap && xgrow((void **)&out, &cap, w + add + 1 + n - i, 1)) {
			xfree(out);
			return NULL;
		}
		memcpy(out + w, esc[0] ? esc : s + i, add);
		w += add;
		i += len ? (size_t)len : 1;
	}
	if (out)
		out[w] = '\0';
	return out;
}

static int lines_push(struct text_lines *t, char *s)
{
	if (!s || xgrow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v))) {
		xfree(s);
		t->failed = true;
		return -ENOMEM;
	}
	t->v[t->n++] = s;
	return 0;
}

int text_lines__add(struct text_lines *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *raw = text_vformat(fmt, ap);
	va_end(ap);
	/* names from a Run, a trace or argv reach a terminal through here */
	char *s = raw ? text_escape_controls(raw) : NULL;
	xfree(raw);
	return lines_push(t, s);
}

int text_lines__add_escaped(struct text_lines *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = text_vformat(fmt, ap);
	va_end(ap);
	return lines_push(t, s);
}

char *text_lines__join(const struct text_lines *t)
{
	size_t len = 1;
	for (size_t i = 0; i < t->n; i++)
		len += strlen(t->v[i]) + 1;
	char *s = xmalloc(len), *w = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		size_t l = strlen(t->v[i]);
		memcpy(w, t->v[i], l);
		w[l] = '\n';
		w += l + 1;
	}
	*w = '\0';
	return s;
}

void text_lines__release(struct text_lines *t)
{
	for (size_t i = 0; i < t->n; i++)
		xfree(t->v[i]);
	xfree(t->v);
	memset(t, 0, sizeof(*t));
}

const char *format_si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pfx[] = {"", "k", "M", "G", "T", "P", "E"};
	int k = 0;
	double a = fabs(v);
	while (a >= 1000.0 && k < 6) {
		a /= 1000.0;
		v /= 1000.0;
		k++;
	}
	snprintf(buf, len, "%.3g %s%s", v, pfx[k], unit);
	return buf;
}

size_t text_next_line(const char **p, const char **line)
{
	*line = *p;
	const char *nl = strchr(*p, '\n');
	size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
	*p = nl ? nl + 1 : *p + len;
	return len;
}

/* A decimal number at the start of [s, s + n) (leading blanks skipped),
 * never reading past n: the texts parsed here are not NUL-terminated. */
long text_long_in(const char *s, size_t n)
{
	size_t i = 0;
	long v = 0;
	while (i < n && s[i] == ' ')
		i++;
	bool neg = i < n && s[i] == '-';
	i += neg;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && v < 100000000; i++)
		v = v * 10 + (s[i] - '0');
	return neg ? -v : v;
}

/* Next line of text as [*s, *s + *n), advancing *pos. */
bool text_next_line_in(const char *text, size_t len, size_t *pos, const char **s, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *p = text + *pos, *nl = memchr(p, '\n', len - *pos);
	*s = p;
	*n = nl ? (size_t)(nl - p) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	if (*n && p[*n - 1] == '\r')
		(*n)--;
	return true;
}
