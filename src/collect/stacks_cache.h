/* SPDX-License-Identifier: BSD-3-Clause */
/* The call-stack ladder's cache (stacks_cache.c): a live Run on unchanged
 * binaries decides without starting objdump or ldd. */
#ifndef NUNATAK_COLLECT_STACKS_CACHE_H
#define NUNATAK_COLLECT_STACKS_CACHE_H

#include <stdbool.h>
#include <stddef.h>

struct stacks_cache {
	char *path;
	char **lines;
	size_t n, cap;
	bool dirty;
};

/* "path|size|mtime|inode" of a file, or NULL when it cannot be stat'ed. */
char *stacks_cache_key(const char *path);
/* Loads $XDG_CACHE_HOME/nunatak/stacks-fp.txt (absent: empty). */
void stacks_cache__load(struct stacks_cache *c);
bool stacks_cache__module(const struct stacks_cache *c, const char *key, int *sampled,
			  int *with_fp);
void stacks_cache__put_module(struct stacks_cache *c, const char *key, int sampled, int with_fp);
/* The libraries ldd listed for key under LD_LIBRARY_PATH ldp (caller frees
 * each and the array), or NULL when not cached. */
char **stacks_cache__libs(const struct stacks_cache *c, const char *key, const char *ldp,
			  size_t *n);
void stacks_cache__put_libs(struct stacks_cache *c, const char *key, const char *ldp,
			    char *const *libs, size_t n);
/* Writes it back when changed (atomically), then frees it. */
void stacks_cache__save(struct stacks_cache *c);

#endif
