// SPDX-License-Identifier: BSD-3-Clause
#include "store/rundir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"

static bool name_char(unsigned char c)
{
	return isalnum(c) ? c < 0x80 : (c == '.' || c == '_' || c == '-');
}

char *rundir_sanitize_name(const char *raw)
{
	size_t n = strlen(raw);
	char *out = xmalloc(n + 1), *w = out;
	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)raw; *p;) {
		if (name_char(*p)) {
			*w++ = (char)*p++;
			continue;
		}
		*w++ = '-';
		while (*p && !name_char(*p))
			p++;
	}
	*w = '\0';
	if (w - out > RUNDIR_NAME_MAX)
		out[RUNDIR_NAME_MAX] = '\0';
	if (strspn(out, ".") == strlen(out)) { /* "", "." and ".." name nothing safe */
		xfree(out);
		return xstrdup("run");
	}
	return out;
}

static const char *base_of(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *b = path + n;
	while (b > path && b[-1] != '/')
		b--;
	return b;
}

char *rundir_pick_name(const char *flag_name, const char *config_name,
		       const char *git_toplevel, const char *target)
{
	char *base = NULL, *out;
	const char *pick = "run";
	if (flag_name && *flag_name) {
		pick = flag_name;
	} else if (config_name && *config_name) {
		pick = config_name;
	} else if ((git_toplevel && *git_toplevel) || (target && *target)) {
		const char *p = git_toplevel && *git_toplevel ? git_toplevel : target;
		const char *b = base_of(p);
		size_t len = strcspn(b, "/");
		if (!(base = xstrndup(b, len)))
			return NULL;
		pick = *base ? base : "run";
	}
	out = rundir_sanitize_name(pick);
	xfree(base);
	return out;
}

static int write_gitignore(const char *runs_dir, struct err *e)
{
	char *path = fs_join(runs_dir, ".gitignore");
	if (!path)
		return err_oom(e);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), rc = 0;
	if (fd >= 0) {
		if (write(fd, "*\n", 2) != 2)
			rc = -EIO;
		if (close(fd) < 0 && !rc)
			rc = -errno;
	} else if (errno != EEXIST) {
		rc = -errno;
	}
	if (rc)
		err_set(e, rc, ERR_RUN_CREATE, "cannot write %s: %s", path, strerror(-rc));
	xfree(path);
	return rc;
}

int rundir_create(const char *runs_dir, const char *name, time_t now, char **path_out,
		  struct err *e)
{
	*path_out = NULL;
	int rc = fs_mkdir_p(runs_dir);
	if (rc)
		return err_set(e, rc, ERR_RUN_CREATE,
			       "cannot create the runs directory %s: %s; set runs_dir in "
			       "nunatak.toml or give -o a writable path",
			       runs_dir, strerror(-rc));
	if ((rc = write_gitignore(runs_dir, e)))
		return rc;
	struct tm tm;
	char stamp[32];
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int n = 1; n < 10000; n++) {
		char *path = n == 1 ? xasprintf("%s/%s-%s", runs_dir, name, stamp)
				    : xasprintf("%s/%s-%s-%d", runs_dir, name, stamp, n);
		if (!path)
			return err_oom(e);
		if (mkdir(path, 0777) == 0) {
			*path_out = path;
			return 0;
		}
		rc = -errno;
		if (rc != -EEXIST) {
			err_set(e, rc, ERR_RUN_CREATE, "cannot create the Run directory %s: %s", path,
				strerror(-rc));
			xfree(path);
			return rc;
		}
		xfree(path);
	}
	return err_set(e, -EEXIST, ERR_RUN_CREATE,
		       "%s/%s-%s: 9999 Runs already exist for this second", runs_dir, name, stamp);
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *de;
	int empty = 1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

int rundir_create_exact(const char *path, struct err *e)
{
	if (!path[0]) /* mkdir("") says only "Invalid argument" */
		return err_set(e, -EINVAL, ERR_RUN_CREATE, "-o expects a directory path, got ''");
	if (fs_exists(path)) {
		int empty = dir_is_empty(path);
		if (empty < 0)
			return err_set(e, empty, ERR_RUN_CREATE, "-o %s: %s; choose a new path", path,
				       empty == -ENOTDIR ? "exists and is not a directory"
							 : strerror(-empty));
		if (!empty)
			return err_set(e, -EEXIST, ERR_RUN_CREATE,
				       "-o %s: the directory exists and is not empty; choose a new path "
				       "or remove it",
				       path);
		return 0;
	}
	int rc = fs_mkdir_p(path);
	if (rc)
		return err_set(e, rc, ERR_RUN_CREATE,
			       "cannot create the Run directory %s: %s; give -o a path in a "
			       "writable directory",
			       path, strerror(-rc));
	return 0;
}

/* "YYYYMMDDHHMMSS" + 6-digit collision number from "<name>-YYYYMMDD-HHMMSS[-N]". */
static bool stamp_key(const char *name, char key[32])
{
	size_t n = strlen(name);
	const char *end = name + n;
	long coll = 1;
	const char *dash = strrchr(name, '-');
	/* A trailing "-N" after a full stamp is a collision number. */
	if (dash && dash > name + 16 && strspn(dash + 1, "0123456789") == strlen(dash + 1) &&
	    end - dash - 1 < 6 && end - dash - 1 > 0 && dash[-7] == '-') {
		coll = strtol(dash + 1, NULL, 10);
		end = dash;
	}
	if (end - name < 16)
		return false;
	const char *s = end - 15; /* YYYYMMDD-HHMMSS */
	if (s[-1] != '-' || s[8] != '-' || strspn(s, "0123456789") != 8 ||
	    strspn(s + 9, "0123456789") != 6)
		return false;
	snprintf(key, 32, "%.8s%.6s%06ld", s, s + 9, coll);
	return true;
}

static void mtime_key(const struct stat *st, char key[32])
{
	struct tm tm;
	char t[20];
	localtime_r(&st->st_mtime, &tm);
	strftime(t, sizeof(t), "%Y%m%d%H%M%S", &tm);
	snprintf(key, 32, "%s%06d", t, 0);
}

int rundir_find_latest(const char *runs_dir, char **path_out, struct err *e)
{
	*path_out = NULL;
	DIR *d = opendir(runs_dir);
	if (!d && errno != ENOENT) /* EACCES, ENOTDIR...: the reason matters */
		return err_set(e, -ENOENT, ERR_RUN_NONE,
			       "no Run under %s (%s): run `nunatak run -- <command>` first", runs_dir,
			       strerror(errno));
	if (!d)
		return err_set(e, -ENOENT, ERR_RUN_NONE,
			       "no Run under %s: run `nunatak run -- <command>` first, or name a Run "
			       "directory (`nunatak report DIR`)",
			       runs_dir);
	char best_key[32] = "", *best = NULL;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d)) && !rc) {
		if (de->d_name[0] == '.')
			continue;
		char *manifest = xasprintf("%s/%s/manifest.json", runs_dir, de->d_name);
		struct stat st;
		char key[32];
		if (!manifest) {
			rc = -ENOMEM;
			break;
		}
		if (stat(manifest, &st) == 0 && S_ISREG(st.st_mode)) {
			if (!stamp_key(de->d_name, key))
				mtime_key(&st, key);
			int cmp = strcmp(key, best_key);
			if (!best || cmp > 0 || (cmp == 0 && strcmp(de->d_name, base_of(best)) > 0)) {
				xfree(best);
				memcpy(best_key, key, sizeof(key));
				if (!(best = fs_join(runs_dir, de->d_name)))
					rc = -ENOMEM;
			}
		}
		xfree(manifest);
	}
	closedir(d);
	if (rc) {
		xfree(best);
		return err_set(e, rc, ERR_OOM, "out of memory");
	}
	if (!best)
		return err_set(e, -ENOENT, ERR_RUN_NONE,
			       "no Run under %s: run `nunatak run -- <command>` first", runs_dir);
	*path_out = best;
	return 0;
}
