// SPDX-License-Identifier: BSD-3-Clause
#include "report/wbuf.h"

#include <errno.h>

#include "common/alloc.h"

int wbuf__init(struct wbuf *w, FILE *f)
{
	w->f = f;
	w->n = 0;
	w->failed = false;
	w->b = xmalloc(WBUF_SIZE);
	return w->b ? 0 : -ENOMEM;
}

void wbuf__spill(struct wbuf *w)
{
	if (w->n && fwrite(w->b, 1, w->n, w->f) != w->n)
		w->failed = true;
	w->n = 0;
}

int wbuf__flush(struct wbuf *w)
{
	wbuf__spill(w);
	if (fflush(w->f) != 0 || ferror(w->f))
		w->failed = true;
	return w->failed ? -EIO : 0;
}

void wbuf__release(struct wbuf *w)
{
	zfree(&w->b);
}

char *json_quote(const char *s)
{
	size_t n = 2;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += *p < 0x20 ? 6 : (*p == '"' || *p == '\\') ? 2 : 1;
	char *o = xmalloc(n + 1), *w = o;
	if (!o)
		return NULL;
	*w++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			*w++ = '\\';
			*w++ = (char)*p;
		} else if (*p < 0x20) {
			w += snprintf(w, 7, "\\u%04x", *p);
		} else {
			*w++ = (char)*p;
		}
	}
	*w++ = '"';
	*w = '\0';
	return o;
}

void wbuf__json_str(struct wbuf *w, const char *s)
{
	char *q = json_quote(s);
	if (!q) {
		w->failed = true;
		return;
	}
	wbuf__str(w, q);
	xfree(q);
}
