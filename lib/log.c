/* SPDX-License-Identifier: BSD-3-Clause */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_profiler.h"

static sp_log_fn log_fn;
static void *log_ctx;
static int env_level = -1; /* -1: SP_LOG_LEVEL unset */

static int parse_level(const char *s)
{
	static const char *const names[] = {"off", "error", "warn", "info", "debug"};
	for (int i = 0; i < 5; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	if (strcmp(s, "warning") == 0)
		return SP_LOG_WARN;
	if (s[0] >= '0' && s[0] <= '9' && s[1] == 0)
		return s[0] - '0' > 4 ? 4 : s[0] - '0';
	return -1;
}

void sp_log__init(void)
{
	const char *s = getenv("SP_LOG_LEVEL");
	env_level = s ? parse_level(s) : -1;
}

/* Unset SP_LOG_LEVEL: errors only (a trace that cannot be written must not
 * vanish without a word), warnings too once a callback asks for messages. */
bool sp_log__enabled(int level)
{
	if (env_level >= 0)
		return level <= env_level;
	return level <= (log_fn ? SP_LOG_WARN : SP_LOG_ERROR);
}

bool sp_log__misuse_shown(void)
{
	return env_level < 0 || env_level >= SP_LOG_WARN;
}

void sp_log__emit(int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sp_log_fn fn = log_fn;
	if (fn) {
		fn(level, msg, log_ctx);
		return;
	}
	static const char *const tags[] = {"", "error: ", "warning: ", "", "debug: "};
	char line[600];
	int n = snprintf(line, sizeof(line), "scope_profiler: %s%s\n",
			 tags[level < 0 || level > 4 ? 0 : level], msg);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	/* write(2), not stdio: the host's stderr buffering stays its own. */
	ssize_t w = write(STDERR_FILENO, line, (size_t)n);
	(void)w;
}

const char *sp_log__errstr(int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char *d = strerrordesc_np(err);
	return d ? d : "unknown error";
#else
	return strerror(err);
#endif
}

void sp_set_log_fn(sp_log_fn fn, void *ctx)
{
	log_ctx = ctx;
	log_fn = fn;
}
