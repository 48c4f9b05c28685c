// SPDX-License-Identifier: BSD-3-Clause
#include "store/run_lookup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "store/manifest.h"

/* 1 when dir holds a manifest.json, 0 when not, -ENOMEM. */
static int is_run(const char *dir)
{
	char *m = fs_join(dir, MANIFEST_FILE);
	struct stat st;
	if (!m)
		return -ENOMEM;
	int ok = stat(m, &st) == 0 && S_ISREG(st.st_mode);
	xfree(m);
	return ok;
}

/* "YYYYMMDD-HHMMSS" or "YYYYMMDD-HHMMSS-N": *n gets N (1 without). */
static bool stamp_suffix(const char *s, long *n)
{
	for (int i = 0; i < 15; i++)
		if (i == 8 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return false;
	*n = 1;
	if (s[15] == '\0')
		return true;
	if (s[15] != '-' || !isdigit((unsigned char)s[16]))
		return false;
	char *end;
	*n = strtol(s + 16, &end, 10);
	return *end == '\0';
}

static int newest_named(const char *runs_dir, const char *name, char **path_out)
{
	DIR *d = opendir(runs_dir);
	if (!d)
		return -ENOENT;
	size_t len = strlen(name);
	char *best = NULL;
	long best_n = 0;
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		long n;
		const char *s = de->d_name;
		if (strncmp(s, name, len) || s[len] != '-' || !stamp_suffix(s + len + 1, &n))
			continue;
		int c = best ? strncmp(s + len + 1, best + len + 1, 15) : 1;
		if (c < 0 || (c == 0 && n <= best_n))
			continue;
		char *path = fs_join(runs_dir, s);
		int run = path ? is_run(path) : -ENOMEM;
		xfree(path);
		if (run < 0) {
			rc = run;
		} else if (run) {
			xfree(best);
			best = xstrdup(s);
			best_n = n;
			rc = best ? 0 : -ENOMEM;
		}
	}
	closedir(d);
	if (rc == 0 && best && !(*path_out = fs_join(runs_dir, best)))
		rc = -ENOMEM;
	xfree(best);
	return rc < 0 ? rc : *path_out ? 0 : -ENOENT;
}

int run_lookup(const char *runs_dir, const char *arg, char **path_out, struct err *e)
{
	*path_out = NULL;
	int rc = is_run(arg);
	if (rc > 0)
		rc = (*path_out = xstrdup(arg)) ? 0 : -ENOMEM;
	else if (rc == 0 && !strchr(arg, '/')) {
		char *under = fs_join(runs_dir, arg);
		rc = under ? is_run(under) : -ENOMEM;
		if (rc > 0) {
			*path_out = under;
			return 0;
		}
		xfree(under);
		if (rc == 0)
			rc = newest_named(runs_dir, arg, path_out);
	} else if (rc == 0) {
		rc = -ENOENT;
	}
	if (rc == -ENOMEM)
		return err_oom(e);
	if (rc < 0)
		return err_set(e, -ENOENT, ERR_RUN_NOT_FOUND,
			       "no Run at or named '%s': looked for a directory holding %s, for "
			       "%s/%s and for the newest %s/%s-YYYYMMDD-HHMMSS; give a Run "
			       "directory's path", arg, MANIFEST_FILE, runs_dir, arg, runs_dir, arg);
	return 0;
}
