// SPDX-License-Identifier: BSD-3-Clause
/*
 * The call-stack ladder's cache (collect/stacks.h): what objdump found in a
 * module, keyed by the module's identity on disk (path, size, mtime, inode),
 * and the libraries ldd listed for a target under an LD_LIBRARY_PATH. A live
 * Run on an unchanged binary then decides without starting a process; a
 * rebuilt module has a new key. One text file, rewritten atomically:
 *   M <key>\t<sampled>\t<with_fp>
 *   L <key>\t<LD_LIBRARY_PATH or ->\t<lib>\t<lib>...
 */
#include "collect/stacks_cache.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/fsutil.h"
#include "common/safefs.h"

#define MAX_LINES 4096

char *stacks_cache_key(const char *path)
{
	struct stat st;
	if (!path || stat(path, &st) != 0)
		return NULL;
	return xasprintf("%s|%lld|%lld.%09ld|%llu", path, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (unsigned long long)st.st_ino);
}

void stacks_cache__load(struct stacks_cache *c)
{
	memset(c, 0, sizeof(*c));
	int no_home;
	c->path = cache_home_path("stacks-fp.txt", &no_home);
	/* ours only (common/safefs.h): another user's file would choose how
	 * the next Run collects its stacks */
	int fd = c->path ? safefs_open_owned(c->path) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (f && (n = getline(&line, &cap, f)) > 0 && c->n < MAX_LINES) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (xgrow((void **)&c->lines, &c->cap, c->n + 1, sizeof(char *)) < 0)
			break;
		if ((c->lines[c->n] = xstrdup(line)))
			c->n++;
	}
	free(line);
	if (f)
		fclose(f);
}

/* The fields after "<tag> <key>\t" of the line for key, or NULL. */
static const char *find(const struct stacks_cache *c, char tag, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = c->n; i-- > 0;) { /* the newest entry wins */
		const char *l = c->lines[i];
		if (l[0] == tag && l[1] == ' ' && strncmp(l + 2, key, kl) == 0 && l[2 + kl] == '\t')
			return l + 3 + kl;
	}
	return NULL;
}

bool stacks_cache__module(const struct stacks_cache *c, const char *key, int *sampled,
			  int *with_fp)
{
	const char *v = key ? find(c, 'M', key) : NULL;
	return v && sscanf(v, "%d\t%d", sampled, with_fp) == 2;
}

void stacks_cache__put_module(struct stacks_cache *c, const char *key, int sampled, int with_fp)
{
	if (!key || xgrow((void **)&c->lines, &c->cap, c->n + 1, sizeof(char *)) < 0)
		return;
	if ((c->lines[c->n] = xasprintf("M %s\t%d\t%d", key, sampled, with_fp))) {
		c->n++;
		c->dirty = true;
	}
}

char **stacks_cache__libs(const struct stacks_cache *c, const char *key, const char *ldp,
			  size_t *n)
{
	*n = 0;
	char *k = key ? xasprintf("%s\t%s", key, ldp && *ldp ? ldp : "-") : NULL;
	const char *v = k ? find(c, 'L', k) : NULL;
	xfree(k);
	if (!v)
		return NULL;
	char **libs = xcalloc(strlen(v) / 2 + 2, sizeof(char *));
	for (const char *p = v; libs && *p;) {
		const char *t = strchr(p, '\t');
		size_t len = t ? (size_t)(t - p) : strlen(p);
		if (len)
			libs[(*n)++] = xstrndup(p, len);
		p += len + (t ? 1 : 0);
	}
	return libs ? libs : NULL;
}

void stacks_cache__put_libs(struct stacks_cache *c, const char *key, const char *ldp,
			    char *const *libs, size_t n)
{
	if (!key || xgrow((void **)&c->lines, &c->cap, c->n + 1, sizeof(char *)) < 0)
		return;
	size_t len = strlen(key) + 8 + (ldp ? strlen(ldp) : 1);
	for (size_t i = 0; i < n; i++)
		len += strlen(libs[i]) + 1;
	char *l = xmalloc(len + 1);
	if (!l)
		return;
	int w = snprintf(l, len + 1, "L %s\t%s\t", key, ldp && *ldp ? ldp : "-");
	for (size_t i = 0; w > 0 && i < n; i++)
		w += snprintf(l + w, len + 1 - (size_t)w, "%s%s", libs[i], i + 1 < n ? "\t" : "");
	c->lines[c->n++] = l;
	c->dirty = true;
}

void stacks_cache__save(struct stacks_cache *c)
{
	if (c->dirty && c->path) {
		char *dir = xstrdup(c->path);
		char *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash) {
			*slash = '\0';
			mkdir(dir, 0755); /* <cache>/nunatak: may exist already */
		}
		xfree(dir);
		char *tmp = NULL;
		int fd = fs_tmp_create(c->path, 0644, &tmp);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (fd >= 0 && !f)
			close(fd);
		size_t from = c->n > MAX_LINES ? c->n - MAX_LINES : 0; /* the newest entries */
		bool ok = f != NULL;
		for (size_t i = from; ok && i < c->n; i++)
			ok = fprintf(f, "%s\n", c->lines[i]) >= 0;
		if (f && fclose(f) != 0)
			ok = false;
		if (tmp && (!ok || rename(tmp, c->path) != 0))
			unlink(tmp);
		xfree(tmp);
	}
	for (size_t i = 0; i < c->n; i++)
		xfree(c->lines[i]);
	xfree(c->lines);
	xfree(c->path);
	memset(c, 0, sizeof(*c));
}
