/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output files that are complete or absent: written to a temporary name in
 * the destination directory (fs_tmp_name), fsynced, and renamed over it only
 * once every byte is out, then the directory is fsynced (fs_rename_durable):
 * a crash or a full disk leaves no half-written file. "-" is stdout. The
 * streaming form of fs_write_atomic(); both share the name and the rename.
 */
#ifndef NUNATAK_COMMON_OUTFILE_H
#define NUNATAK_COMMON_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct err;

struct outfile {
	char *path; /* destination */
	char *tmp;  /* temporary name beside it; NULL for stdout */
	FILE *f;
};

/* Opens a temporary file beside `path` (or stdout for "-"). */
int outfile__open(struct outfile *o, const char *path, struct err *e);
/* Flushes, checks for write errors, closes and renames into place. */
int outfile__commit(struct outfile *o, struct err *e);
/* Closes and removes the temporary file; safe after a failed open or commit. */
void outfile__abort(struct outfile *o);
/* A temporary name beside `path` for writers that open files themselves
 * (HDF5); caller frees. */
char *outfile_tmp_name(const char *path);
/* For those writers, once their file is closed: fsync tmp, rename it over
 * path, fsync the directory. On failure e is "output.write" and tmp stays
 * (the caller unlinks it). */
int outfile_commit_path(const char *tmp, const char *path, struct err *e);

#endif
