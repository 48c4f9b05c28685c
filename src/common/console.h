/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The console owns stderr: nothing else in nunatak writes to it. Terminal mode
 * (isatty and TERM != dumb) gets colour (never with NO_COLOR) and progress
 * lines rewritten in place; off a terminal each line is prefixed with an
 * ISO-8601 timestamp (second precision) and nothing is rewritten.
 * Prefixes: "error: ", "warning: ", "degraded [name]: message - remedy".
 * The console is a value created by cli/ and passed down; it is not global.
 */
#ifndef NUNATAK_COMMON_CONSOLE_H
#define NUNATAK_COMMON_CONSOLE_H

#include <stdbool.h>
#include <stdio.h>

enum console_level { CONSOLE_QUIET = -1, CONSOLE_INFO = 0, CONSOLE_DEBUG1 = 1,
		     CONSOLE_DEBUG2 = 2, CONSOLE_DEBUG3 = 3 };

struct console {
	FILE *out;     /* stderr unless a test redirects it */
	bool terminal; /* isatty && TERM != dumb */
	bool color;    /* terminal && !NO_COLOR */
	int verbosity; /* enum console_level */
	bool progress_open; /* a progress line is on screen, not yet ended */
};

/* Detects the terminal from `out` and the environment. */
void console__init(struct console *c, FILE *out, int verbosity);
void console__error(struct console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void console__warn(struct console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void console__info(struct console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Printed only when verbosity >= level; arguments are not formatted otherwise. */
void console__debug(struct console *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void console__degraded(struct console *c, const char *name, const char *message,
		       const char *remedy);
/* Progress for phases longer than a second: on a terminal one line rewritten in
 * place ("label: done/total"), off a terminal nothing until console__progress_end
 * prints one line. total may be 0 when unknown. */
void console__progress(struct console *c, const char *label, unsigned long done,
		       unsigned long total);
void console__progress_end(struct console *c, const char *label);

#endif
