// SPDX-License-Identifier: BSD-3-Clause
#include "common/console.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	vfprintf(c->out, fmt, ap);
	fputc('\n', c->out);
	fflush(c->out);
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
	if (c->color)
		fprintf(c->out, "%sdegraded [%s]%s: %s", COLOR_YELLOW, name, COLOR_RESET, message);
	else
		fprintf(c->out, "degraded [%s]: %s", name, message);
	if (remedy && remedy[0])
		fprintf(c->out, " - %s", remedy);
	fputc('\n', c->out);
	fflush(c->out);
}

void console__progress(struct console *c, const char *label, unsigned long done,
		       unsigned long total)
{
	if (!c->terminal || c->verbosity < CONSOLE_INFO)
		return;
	if (total)
		fprintf(c->out, "\r\033[K%s: %lu/%lu (%lu%%)", label, done, total,
			done * 100 / total);
	else
		fprintf(c->out, "\r\033[K%s: %lu", label, done);
	c->progress_open = true;
	fflush(c->out);
}

void console__progress_end(struct console *c, const char *label)
{
	if (c->verbosity < CONSOLE_INFO)
		return;
	end_progress_line(c);
	stamp(c);
	fprintf(c->out, "%s: done\n", label);
	fflush(c->out);
}
