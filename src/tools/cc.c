// SPDX-License-Identifier: BSD-3-Clause
#include "tools/cc.h"

#include <stdbool.h>
#include <string.h>

#include "common/alloc.h"

size_t cc_candidates(const char *configured, const char *out[5])
{
	static const char *const dflt[] = {"cc", "gcc", "clang"};
	size_t n = 0;
	if (configured && configured[0])
		out[n++] = configured;
	for (size_t i = 0; i < 3; i++) {
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= strcmp(out[k], dflt[i]) == 0;
		if (!dup)
			out[n++] = dflt[i];
	}
	out[n] = NULL;
	return n;
}

static char **argv_of(const char *const *words, size_t n)
{
	char **v = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; v && i < n; i++)
		if (!(v[i] = xstrdup(words[i]))) {
			cc_argv__free(v);
			return NULL;
		}
	return v;
}

char **cc_argv_version(const char *cc)
{
	const char *w[] = {cc, "--version"};
	return argv_of(w, 2);
}

char **cc_argv_build(const char *cc, const char *arch, const char *src, const char *out)
{
	const char *w[] = {cc, "-O3", arch, "-pthread", src, "-o", out};
	return argv_of(w, 7);
}

void cc_argv__free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		xfree(argv[i]);
	xfree(argv);
}

char *cc_version_line(const char *out)
{
	if (!out)
		return NULL;
	size_t n = strcspn(out, "\r\n");
	return n ? xstrndup(out, n) : NULL;
}
