/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's only voice. Quiet by default: only errors (an output file
 * that cannot be written) and misuse that lost calls (sp_log__misuse), unless SP_LOG_LEVEL says otherwise (off, error,
 * warn, info, debug) or a callback installed with sp_set_log_fn() raises
 * the default to warn. Messages go to the callback, else to stderr with a
 * "scope_profiler: " prefix. Never called from the signal handler.
 */
#ifndef SP_LOG_H
#define SP_LOG_H

#include <stdbool.h>

/* Reads SP_LOG_LEVEL; called at init. */
void sp_log__init(void);
/* True if a message at @p level would be emitted (test before formatting). */
bool sp_log__enabled(int level);
void sp_log__emit(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning about misuse, shown at the default level too: every call the
 * library did not record is said aloud. SP_LOG_LEVEL=error or off hides it. */
#define sp_log__misuse(...)                                                    \
	do {                                                                   \
		if (sp_log__enabled(SP_LOG_ERROR) && sp_log__misuse_shown())    \
			sp_log__emit(SP_LOG_WARN, __VA_ARGS__);                 \
	} while (0)
bool sp_log__misuse_shown(void);

/* The text of errno value @p err (positive): glibc's untranslated static
 * table, no locale and no allocation, unlike strerror: the stream's
 * messages may be formatted in a signal handler. */
const char *sp_log__errstr(int err);

#define sp_log(level, ...)                                                     \
	do {                                                                   \
		if (sp_log__enabled(level))                                    \
			sp_log__emit(level, __VA_ARGS__);                      \
	} while (0)

#endif
