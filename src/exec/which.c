// SPDX-License-Identifier: BSD-3-Clause
/* PATH lookup with the shell's distinction between "absent" (127) and
 * "present but not executable" (126): a PATH entry that exists but lacks the
 * execute bit is remembered and reported only when nothing later matches,
 * which is what bash and dash do. */
#include "exec/exec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"

/* 0 executable regular file, -EACCES present but not executable (or a
 * directory), -ENOENT absent. A path that cannot be looked at (a directory
 * on the way we may not search) is -EACCES when named, but absent when tried
 * from PATH: the shells search on (another user's PATH entry, a 0700 home). */
static int check_file(const char *path, bool named)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return named && errno == EACCES ? -EACCES : -ENOENT;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	return access(path, X_OK) == 0 ? 0 : -EACCES;
}

static char *absolute(const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	const char *p = path;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return xasprintf("%s/%s", cwd, p);
}

int exec_which_in(const char *name, const char *path_env, char **path_out)
{
	*path_out = NULL;
	if (!name || !name[0])
		return -ENOENT;
	if (strchr(name, '/')) {
		int rc = check_file(name, true);
		if (rc == 0 && !(*path_out = absolute(name)))
			return -ENOMEM;
		return rc;
	}
	char defpath[256] = "/usr/local/bin:/usr/bin:/bin";
	if (!path_env)
		path_env = getenv("PATH");
	if (!path_env) {
		size_t n = confstr(_CS_PATH, defpath, sizeof(defpath));
		if (n == 0 || n > sizeof(defpath))
			snprintf(defpath, sizeof(defpath), "/usr/local/bin:/usr/bin:/bin");
		path_env = defpath;
	}
	int found = -ENOENT;
	for (const char *p = path_env;; p++) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		/* An empty PATH element means the current directory (POSIX). */
		char *cand = len ? xasprintf("%.*s/%s", (int)len, p, name) : xasprintf("./%s", name);
		if (!cand)
			return -ENOMEM;
		int rc = check_file(cand, false);
		if (rc == 0) {
			*path_out = absolute(cand);
			xfree(cand);
			return *path_out ? 0 : -ENOMEM;
		}
		if (rc == -EACCES)
			found = -EACCES;
		xfree(cand);
		if (!end)
			break;
		p = end;
	}
	return found;
}

int exec_which(const char *name, char **path_out)
{
	return exec_which_in(name, NULL, path_out);
}
