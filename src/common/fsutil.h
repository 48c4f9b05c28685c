/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small filesystem helpers used everywhere: whole-file reads of
 * small files, atomic replacement (temp + fsync + rename + fsync of the
 * directory, so a crash leaves either the old file or the new one, never half
 * of one), mkdir -p, path joins. All return 0 or a negative errno.
 */
#ifndef NUNATAK_COMMON_FSUTIL_H
#define NUNATAK_COMMON_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

struct err;

/* Reads at most `max` bytes of path into a fresh NUL-terminated buffer
 * (*out, caller frees; *len may be NULL). -EFBIG when the file is larger. */
int fs_read_file(const char *path, size_t max, char **out, size_t *len);

/* Replaces path with data atomically: writes "<path>.tmp.<pid>" in the same
 * directory, fsyncs it, renames it over path, fsyncs the directory. On any
 * failure the temp file is removed and path is untouched; e says which step
 * failed (code "store.write"). */
int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e);

/* A cache entry: path's directory created, data written to fs_tmp_name()
 * with `mode` and renamed over path, without fsync (a cache lost in a crash
 * costs a recomputation; readers check what they load). Returns 0 or -errno;
 * the temp file never stays. */
int fs_write_cache(const char *path, const void *data, size_t len, unsigned mode);

/* The one temporary name of atomic writers (here and common/outfile.h):
 * "<path>.tmp.<pid>", beside path so the rename stays on one filesystem.
 * Caller frees; NULL when out of memory. */
char *fs_tmp_name(const char *path);

/* Renames tmp over path, then fsyncs path's directory. */
int fs_rename_durable(const char *tmp, const char *path, struct err *e);

/* Creates path and its missing parents (mode 0777 & ~umask). -ENOTDIR when a
 * component is a file. */
int fs_mkdir_p(const char *path);

/* "a/b" (no doubled slash); NULL on allocation failure. Caller frees. */
char *fs_join(const char *a, const char *b);

/* True when path exists (any type). */
int fs_exists(const char *path);

#endif
