// SPDX-License-Identifier: BSD-3-Clause
#include "common/err.h"

#include <stdio.h>
#include <string.h>

int err_setv(struct err *e, int errnum, const char *code, const char *fmt, va_list ap)
{
	if (!e)
		return errnum;
	e->errnum = errnum;
	snprintf(e->code, sizeof(e->code), "%s", code ? code : "error");
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
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
	char joined[2 * ERR_MSG_SIZE + 2];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(joined, ERR_MSG_SIZE, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = strlen(joined);
	memcpy(joined + len, ": ", 2);
	memcpy(joined + len + 2, e->msg, sizeof(e->msg));
	joined[len + 2 + sizeof(e->msg) - 1] = '\0';
	memcpy(e->msg, joined, sizeof(e->msg) - 1);
	e->msg[sizeof(e->msg) - 1] = '\0';
}
