// SPDX-License-Identifier: BSD-3-Clause
#include "common/console.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/text.h"
#include "common/timefmt.h"

#define COLOR_RED "\033[31m"
#define COLOR_YELLOW "\033[33m"
#define COLOR_RESET "\033[0m"

void console__init(struct console *c, FILE *out, int verbosity)
{
	const char *term = getenv("TERM");
	const char *no_color = getenv("NO_COLOR");
	c->out = out ? out : stderr;
	c->terminal = isatty(fileno(c->out)) && !(term && strcmp(term, "dumb") == 0);
	c->color = c->terminal && !(no_color && no_color[0]);
	c->verbosity = verbosity;
	c->progress_open = false;
}

static void end_progress_line(struct console *c)
{
	if (c->progress_open) {
		fputs("\r\033[K", c->out);
		c->progress_open = false;
	}
}

static void stamp(struct console *c)
{
	if (c->terminal)
		return;
	char buf[ISO8601_SIZE];
	iso8601(time(NULL), ISO8601_LOCAL, buf, sizeof(buf));
	fprintf(c->out, "%s ", buf);
}

static void emit(struct console *c, const char *color, const char *prefix, const char *fmt,
		 va_list ap)
{
	end_progress_line(c);
	stamp(c);
	if (prefix) {
		if (c->color && color)
			fprintf(c->out, "%s%s%s", color, prefix, COLOR_RESET);
		else
			fputs(prefix, c->out);
	}
	char *raw = text_vformat(fmt, ap);
	char *safe = raw ? text_escape_controls(raw) : NULL;
	fputs(safe ? safe : "(out of memory formatting a message)", c->out);
	xfree(raw);
	xfree(safe);
	fputc('\n', c->out);
	fflush(c->out);
}

/* fputs of text that may come from a Run, a trace or argv. */
static void put_safe(struct console *c, const char *s)
{
	char *safe = text_escape_controls(s);
	fputs(safe ? safe : "?", c->out);
	xfree(safe);
}

void console__error(struct console *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(c, COLOR_RED, "error: ", fmt, ap);
	va_end(ap);
}

void console__warn(struct console *c, const char *fmt, ...)
{
	if (c->verbosity < CONSOLE_INFO)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(c, COLOR_YELLOW, "warning: ", fmt, ap);
	va_end(ap);
}

void console__info(struct console *c, const char *fmt, ...)
{
	if (c->verbosity < CONSOLE_INFO)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(c, NULL, NULL, fmt, ap);
	va_end(ap);
}

void console__debug(struct console *c, int level, const char *fmt, ...)
{
	if (c->verbosity < level)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(c, NULL, "debug: ", fmt, ap);
	va_end(ap);
}

void console__degraded(struct console *c, const char *name, const char *message,
		       const char *remedy)
{
	end_progress_line(c);
	stamp(c);
	fprintf(c->out, "%sdegraded [", c->color ? COLOR_YELLOW : "");
	put_safe(c, name);
	fprintf(c->out, "]%s: ", c->color ? COLOR_RESET : "");
	put_safe(c, message);
	if (remedy && remedy[0]) {
		fputs(" - ", c->out);
		put_safe(c, remedy);
	}
	fputc('\n', c->out);
	fflush(c->out);
}

void console__progress(struct console *c, const char *label, unsigned long done,
		       unsigned long total)
{
	if (!c->terminal || c->verbosity < CONSOLE_INFO)
		return;
	fputs("\r\033[K", c->out);
	put_safe(c, label);
	if (total)
		fprintf(c->out, ": %lu/%lu (%lu%%)", done, total, done * 100 / total);
	else
		fprintf(c->out, ": %lu", done);
	c->progress_open = true;
	fflush(c->out);
}

void console__progress_end(struct console *c, const char *label)
{
	if (c->verbosity < CONSOLE_INFO)
		return;
	end_progress_line(c);
	stamp(c);
	put_safe(c, label);
	fputs(": done\n", c->out);
	fflush(c->out);
}
