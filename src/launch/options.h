/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The options of the first MPI launcher of a launch prefix, read with the
 * same tables as the split (launch/launchers.c), for code that needs what
 * they say rather than where they end: the network Ceilings' cache
 * (mpi/netcache_scope.h) reads the nodes and the transport from them.
 *
 * Each option is reported once with its name and its values: getopt
 * launchers' names as written ("-w", "--nodelist"; "--mpi=pmix" and
 * "-wn1" split into name and value), Open MPI's and hydra's without their
 * dashes ("H", "mca", "x", "genv"). An option missing from the tables is
 * reported as a flag. The walk stops at the launcher's first operand (a
 * wrapper or the application) or at "--". Pure: reads nothing else.
 */
#ifndef NUNATAK_LAUNCH_OPTIONS_H
#define NUNATAK_LAUNCH_OPTIONS_H

#include "launch/split.h"

/* One option: name (a pointer into the token, not NUL-terminated at the
 * '=': use name_len), values borrowed (nr_values 0..2). */
struct launch_option {
	const char *name;
	size_t name_len;
	const char *values[2];
	int nr_values;
};

typedef void (*launch_option_fn)(const struct launch_option *o, void *ctx);

/* Calls fn for each option of the first MPI launcher in the NULL-terminated
 * prefix; returns that launcher's kind (LAUNCHER_NONE: none, fn not
 * called). *launcher_at gets its index (may be NULL). */
enum launcher_kind launch_options(char *const *prefix, launch_option_fn fn, void *ctx,
				  size_t *launcher_at);

/* 1 when o's name is `name` (compared as the tables do: without dashes for
 * Open MPI and hydra, whose names are given bare). */
int launch_option__is(const struct launch_option *o, const char *name);

#endif
