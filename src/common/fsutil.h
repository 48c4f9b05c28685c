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

/* Replaces path with data atomically: writes fs_tmp_create()'s file in the same
 * directory, fsyncs it, renames it over path, fsyncs the directory. On any
 * failure the temp file is removed and path is untouched; e says which step
 * failed (code "store.write"). */
int fs_write_atomic(const char *path, const void *data, size_t len, struct err *e);

/* A cache entry: path's directory created, data written to fs_tmp_name()
 * with `mode` and renamed over path, without fsync (a cache lost in a crash
 * costs a recomputation; readers check what they load). Returns 0 or -errno;
 * the temp file never stays. */
int fs_write_cache(const char *path, const void *data, size_t len, unsigned mode);

/* The one temporary file of atomic writers (here and common/outfile.h):
 * "<path>.tmp.<16 random hex digits>", beside path so the rename stays on
 * one filesystem, created with O_CREAT|O_EXCL|O_NOFOLLOW (a name planted
 * beforehand, a symlink above all, is never opened: another is drawn).
 * Returns the fd (O_RDWR, O_CLOEXEC) with *tmp (caller frees), or -errno. */
int fs_tmp_create(const char *path, unsigned mode, char **tmp);

/* fs_tmp_create() for writers that open the file themselves (SQLite,
 * HDF5): the name of a fresh empty file, reserved (0644), which the caller
 * reopens and truncates, and unlinks if it fails. Caller frees; NULL on
 * failure. */
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
