/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Caller-owned error record filled where a failure is detected (parsers, trace
 * readers, exec, config). `code` is a stable token usable in JSON
 * ("trace.truncated", "toml.syntax", "exec.not_found" ...); `msg` carries the
 * location (file plus line or byte offset), what was expected and what was
 * found. Only cli/ prints it. Codes come from the one list, common/err_codes.h
 * (write ERR_TRACE_TRUNCATED, never the string); out of memory is err_oom().
 */
#ifndef NUNATAK_COMMON_ERR_H
#define NUNATAK_COMMON_ERR_H

#include <stdarg.h>

/* Room for a message naming two paths of PATH_MAX with its advice: nothing a
 * user meets is cut; a longer one keeps its start and its end (err.c). */
#define ERR_MSG_SIZE 8448
#define ERR_CODE_SIZE 48

struct err {
	int errnum; /* negative errno-style value, 0 when clear */
	char code[ERR_CODE_SIZE];
	char msg[ERR_MSG_SIZE];
};

/* Fills e (if non-NULL) and returns errnum (negative), so callers can write
 * `return err_set(e, -EINVAL, "toml.syntax", "%s:%d:%d: expected '='", ...)`. */
int err_set(struct err *e, int errnum, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int err_setv(struct err *e, int errnum, const char *code, const char *fmt, va_list ap);
/* Prefixes the existing message with context ("reading manifest: ..."). */
void err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
