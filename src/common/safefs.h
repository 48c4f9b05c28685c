/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files another user could have written (docs/security.md). On a shared
 * machine a project directory, a cache or a Run directory may hold files
 * nunatak did not create: a nunatak.toml whose [tools] names a program, a
 * cached library preloaded into the ranks, a FIFO named like a Run file.
 *
 * "Trusted" (the rule of git's safe.directory, stricter on modes): owned by
 * the effective user or by root, and writable by nobody else: no write bit
 * for others, and a group write bit only when the group is the user's own
 * (Debian's user-private groups under umask 002). A directory writable by
 * others is still trusted when it is sticky (/tmp): nobody can replace a
 * file in it that they do not own.
 *
 * Nothing here keeps state; every call checks the file system afresh.
 */
#ifndef NUNATAK_COMMON_SAFEFS_H
#define NUNATAK_COMMON_SAFEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* NULL when st is trusted, else a static phrase saying why not
 * ("owned by another user", "writable by other users", ...). */
const char *safefs_untrusted_why(const struct stat *st);

/* Checks dir and every directory above it up to "/". Returns NULL when all
 * are trusted, else a malloc'd "<directory>: <why>" naming the first one
 * that is not (an unreadable one counts as untrusted). */
char *safefs_dir_chain_problem(const char *dir);

/* Opens path read-only without following a symlink in its last component
 * and without blocking on a FIFO; returns the fd (O_CLOEXEC, blocking again)
 * of a regular file, else -ELOOP (a symlink), -EINVAL (not a regular file:
 * FIFO, device, directory, socket) or -errno. */
int safefs_open_regular(const char *path);

/* safefs_open_regular() for a file nunatak itself keeps (cache entries):
 * also -EPERM when the file is not owned by the effective user or is
 * writable by anybody else. */
int safefs_open_owned(const char *path);

/* A short phrase for the negative results above ("it is a symbolic link
 * ...", "it is not a regular file ..."); falls back to strerror. */
const char *safefs_strerror(int rc);

/* Whole-file read through safefs_open_owned() (at most max bytes, NUL
 * added; *len may be NULL). 0 or a negative errno as above, -EFBIG. */
int safefs_read_owned(const char *path, size_t max, char **out, size_t *len);

/* The same for a Run's or a trace's files (any owner: Runs are passed
 * between colleagues): a regular file, not a symlink, never blocking. */
int safefs_read_regular(const char *path, size_t max, char **out, size_t *len);

/* 0 when path is a regular file that is not a symlink (for readers that
 * open by name themselves: SQLite, HDF5), else as safefs_open_regular(). */
int safefs_check_regular(const char *path);

/* Creates dir (and missing parents) private to the user: a directory it
 * creates is 0700; dir itself, when it already exists, must be owned by the
 * user (its mode is then narrowed to 0700) and its parent trusted. Returns 0;
 * -EPERM when it is not trusted (another user's, a symlink, under a
 * directory others can write); another negative errno when it cannot be
 * created. *why (malloc'd, may be NULL on ENOMEM) names the directory and
 * the reason. */
int safefs_mkdir_private(const char *dir, char **why);

#endif
