/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding a Run from what a user types (`nunatak compare A B`): a path to a
 * Run directory, a directory name under runs_dir, or a Run name, meaning
 * the newest <runs_dir>/<name>-YYYYMMDD-HHMMSS[-N] that holds a manifest.
 */
#ifndef NUNATAK_STORE_RUN_LOOKUP_H
#define NUNATAK_STORE_RUN_LOOKUP_H

struct err;

/* First match wins: `arg` itself when it is a directory holding
 * manifest.json; <runs_dir>/<arg> likewise; the newest Run named `arg`
 * (greatest stamp, then collision number). *path_out is caller-freed.
 * Returns 0, or -ENOENT with e filled (code "run.not_found", saying where
 * it looked), or -ENOMEM. */
int run_lookup(const char *runs_dir, const char *arg, char **path_out, struct err *e);

#endif
