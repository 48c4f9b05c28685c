/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Run directory on disk: naming, creation, discovery (REFERENCE.md §1
 * "Naming cascade", ARCHITECTURE.md "The Run directory").
 *
 *   <runs_dir>/<name>-YYYYMMDD-HHMMSS[-N]/   (local time; -2, -3 ... on collision)
 *   <runs_dir>/.gitignore                    "*", written when absent
 *
 * All functions return 0 or a negative errno with e filled (codes
 * "run.create", "run.none", "run.oom"); returned strings are caller-freed.
 */
#ifndef NUNATAK_STORE_RUNDIR_H
#define NUNATAK_STORE_RUNDIR_H

#include <time.h>

struct err;

/* The Run name, first match wins: --name, the configuration's `name`, the
 * basename of the git toplevel, the basename of the real target (the
 * application seen through launchers). Each argument may be NULL or empty.
 * The winner is sanitised (rundir_sanitize_name); "run" when all are empty.
 * Returns a fresh string, NULL on ENOMEM. */
char *rundir_pick_name(const char *flag_name, const char *config_name,
		       const char *git_toplevel, const char *target);

/* Every run of characters outside [A-Za-z0-9._-] becomes one '-'. Caller
 * frees; NULL on ENOMEM. An all-dots result ("." or "..") becomes "run" so it
 * can never name a parent directory. The result is cut to RUNDIR_NAME_MAX
 * bytes, so "<name>-YYYYMMDD-HHMMSS-N" always fits a file name (NAME_MAX 255). */
#define RUNDIR_NAME_MAX 128
char *rundir_sanitize_name(const char *raw);

/* Creates <runs_dir>/<name>-<stamp of now>, adding -2, -3 ... while the name
 * is taken (mkdir is the arbiter, so concurrent Runs never share a
 * directory). runs_dir and its .gitignore are created when absent. */
int rundir_create(const char *runs_dir, const char *name, time_t now, char **path_out,
		  struct err *e);

/* -o: the exact path. Created with its parents; an existing directory is
 * accepted only when empty, so a previous Run is never overwritten. */
int rundir_create_exact(const char *path, struct err *e);

/* The newest Run under runs_dir: among subdirectories holding a
 * manifest.json, the greatest (timestamp suffix, collision number, name);
 * directories without a parseable stamp use their manifest's mtime. -ENOENT
 * with "no Run under <dir>: ..." when there is none. */
int rundir_find_latest(const char *runs_dir, char **path_out, struct err *e);

#endif
