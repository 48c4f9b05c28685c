// SPDX-License-Identifier: BSD-3-Clause
#include "common/err.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "harness.h"

/* A path as long as the system allows. */
static void long_path(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = i % 20 == 0 ? '/' : 'a' + (char)(i % 26);
	p[n] = '\0';
}

/* The advice at the end of a message survives any path: a 200-character
 * clone's path and a PATH_MAX one (two of them) fit whole. */
static void t_long_paths_whole(void)
{
	static char path[PATH_MAX], other[PATH_MAX];
	long_path(path, PATH_MAX - 1);
	long_path(other, PATH_MAX - 1);
	struct err e = {0};
	CHECK_INT(err_set(&e, -ENOENT, "x.y", "%s and %s: reinstall nunatak", path, other), -ENOENT);
	CHECK_INT(strlen(e.msg), 2 * (PATH_MAX - 1) + strlen(" and : reinstall nunatak"));
	CHECK(strncmp(e.msg, path, strlen(path)) == 0);
	CHECK(strstr(e.msg, ": reinstall nunatak") == e.msg + strlen(e.msg) - 19);
	err_prefix(&e, "reading %.*s", 300, path);
	CHECK(strncmp(e.msg, "reading /", 9) == 0);
	CHECK(strstr(e.msg, ": reinstall nunatak") == e.msg + strlen(e.msg) - 19);
}

/* Beyond the record (three PATH_MAX paths) the start and the end stay and
 * the message says its middle was left out. */
static void t_beyond_keeps_end(void)
{
	static char path[PATH_MAX];
	long_path(path, PATH_MAX - 1);
	struct err e = {0};
	err_set(&e, -EIO, "x.y", "%s %s %s: do this next", path, path, path);
	CHECK(strlen(e.msg) == sizeof(e.msg) - 1);
	CHECK(strstr(e.msg, " [...] ") != NULL);
	CHECK(strcmp(e.msg + strlen(e.msg) - 14, ": do this next") == 0);
	CHECK(strncmp(e.msg, path, 100) == 0);
	err_prefix(&e, "context");
	CHECK(strncmp(e.msg, "context: /", 10) == 0);
	CHECK(strcmp(e.msg + strlen(e.msg) - 14, ": do this next") == 0);
}

static void t_short_unchanged(void)
{
	struct err e = {0};
	err_set(&e, -EINVAL, NULL, "a %d b", 3);
	CHECK_STR(e.msg, "a 3 b");
	CHECK_STR(e.code, "error");
	err_prefix(&e, "in %s", "f");
	CHECK_STR(e.msg, "in f: a 3 b");
	CHECK_INT(err_set(NULL, -1, "x", "y"), -1);
}

static const struct test_case cases[] = {
	{"long_paths_whole", "two PATH_MAX paths and the advice fit whole", t_long_paths_whole},
	{"beyond_keeps_end", "a longer message keeps its start and its end", t_beyond_keeps_end},
	{"short_unchanged", "short messages and prefixes as written", t_short_unchanged},
};
TEST_MAIN(cases)
