/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Machine profile cache: $XDG_CACHE_HOME/nunatak/machines/<identity>.json
 * (default ~/.cache), holding {"kernel_version": MACHINE_KERNEL_VERSION,
 * "machine": {...machine__to_json...}}. The cache is only an optimisation:
 * every Run embeds a complete snapshot, so losing it loses nothing but the
 * time to recalibrate. A profile measured by another calibration kernel
 * version is stale by definition and is not loaded.
 */
#ifndef NUNATAK_MACHINE_CACHE_H
#define NUNATAK_MACHINE_CACHE_H

#include <stdbool.h>

struct err;
struct machine;

/* Bumped whenever the calibration kernel changes what it measures. */
#define MACHINE_KERNEL_VERSION 0

/* The cache directory ($XDG_CACHE_HOME/nunatak/machines, else
 * $HOME/.cache/nunatak/machines). Caller frees. NULL with e filled when
 * neither variable is set (code "machine.no_cache_dir") or on ENOMEM. */
char *machine_cache_dir(struct err *e);

/* Path of m's profile in dir (caller frees), NULL on ENOMEM. */
char *machine_cache_path(const struct machine *m, const char *dir);

/* Stores m's profile under its identity in dir (created if needed), written
 * atomically. Unlike the reference (which stores only a measured Ceiling, so
 * a busy Machine recalibrated on every Run), a profile is stored when at
 * least one Ceiling came from a kernel, measured or estimated with its
 * reasons: returns 1 when written, 0 when every Ceiling is the theoretical
 * table's, or a negative errno with e filled. *path_out (optional) receives
 * the file path (caller frees). */
int machine_cache_store(const struct machine *m, const char *dir, char **path_out,
			struct err *e);

/* Loads the Ceilings of m's cached profile into m (replacing its own).
 * Returns 1 when loaded; 0 when there is no profile, it is unreadable, it has
 * another kernel_version or another identity (e explains which, for -v);
 * -ENOMEM. m's snapshot fields are never replaced: the live snapshot wins. */
int machine_cache_load_ceilings(struct machine *m, const char *dir, struct err *e);

/* A Ceiling is a maximum: when a cached profile of m's identity holds a
 * better Ceiling than m's (measured beats estimated, which beats the
 * theoretical table; within one Quality the higher value wins), m takes the
 * cached one. *note (caller frees, NULL when nothing was kept) names each
 * kept Ceiling and what it displaced. Returns 1 when a profile was read, 0
 * when none, -ENOMEM with e filled. */
int machine_cache_keep_best(struct machine *m, const char *dir, char **note, struct err *e);

/* a is a better Ceiling than b (same name), by the rule above. */
struct ceiling;
bool ceiling__better(const struct ceiling *a, const struct ceiling *b);

/* c comes from the theoretical table (theory.h), not from a kernel. */
bool ceiling__from_theory(const struct ceiling *c);

/* True when one of m's Ceilings has Quality measured. */
bool machine__has_measured_ceiling(const struct machine *m);

#endif
