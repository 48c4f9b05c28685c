// SPDX-License-Identifier: BSD-3-Clause
#include "common/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stores text in e->msg. A message longer than the record (paths near
 * PATH_MAX twice over) keeps its start and its end, where the remedy is,
 * and says that its middle was left out: never a message cut short. */
static void store(struct err *e, const char *text, size_t len)
{
	static const char gap[] = " [...] ";
	if (len < sizeof(e->msg)) {
		memcpy(e->msg, text, len + 1);
		return;
	}
	size_t room = sizeof(e->msg) - 1 - (sizeof(gap) - 1);
	size_t head = room / 3, tail = room - head;
	memcpy(e->msg, text, head);
	memcpy(e->msg + head, gap, sizeof(gap) - 1);
	memcpy(e->msg + head + sizeof(gap) - 1, text + len - tail, tail);
	e->msg[sizeof(e->msg) - 1] = '\0';
}

/* vsnprintf into a buffer of the needed size; NULL when out of memory. */
static char *format(const char *fmt, va_list ap, size_t *len)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	*len = (size_t)n;
	return s;
}

int err_setv(struct err *e, int errnum, const char *code, const char *fmt, va_list ap)
{
	if (!e)
		return errnum;
	e->errnum = errnum;
	snprintf(e->code, sizeof(e->code), "%s", code ? code : "error");
	size_t len = 0;
	char *s = format(fmt, ap, &len);
	if (s)
		store(e, s, len);
	else
		snprintf(e->msg, sizeof(e->msg), "%s (out of memory while writing its message)",
			 e->code);
	free(s);
	return errnum;
}

int err_set(struct err *e, int errnum, const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_setv(e, errnum, code, fmt, ap);
	va_end(ap);
	return errnum;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	size_t len = 0;
	char *prefix = format(fmt, ap, &len);
	va_end(ap);
	if (!prefix)
		return;
	size_t old = strlen(e->msg);
	char *joined = malloc(len + 2 + old + 1);
	if (joined) {
		memcpy(joined, prefix, len);
		memcpy(joined + len, ": ", 2);
		memcpy(joined + len + 2, e->msg, old + 1);
		store(e, joined, len + 2 + old);
	}
	free(joined);
	free(prefix);
}
