/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one rule for where nunatak caches things: $XDG_CACHE_HOME, else
 * $HOME/.cache (the XDG base-directory default). Every cache (Machine
 * profiles, the measured perf cost per sample) derives its folder from here,
 * so a writer and its reader cannot disagree.
 */
#ifndef NUNATAK_COMMON_CACHE_HOME_H
#define NUNATAK_COMMON_CACHE_HOME_H

/* Returns a malloc'd "<cache home>/nunatak/<sub>" (sub may be ""), or NULL
 * when neither variable is set (*no_home = 1) or on ENOMEM (*no_home = 0). */
char *cache_home_path(const char *sub, int *no_home);

/* A cost per sample bench/run measured on this machine, in seconds: the
 * number in <cache>/nunatak/<name> when it is there and sane (0 < v < 10 ms;
 * *measured set), else fallback (*measured false). */
#include <stdbool.h>
double cache_home_read_cost(const char *name, double fallback, bool *measured);

#endif
