/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to launch/: the per-tool option tables the split walks. Each tool
 * (launcher or wrapper) lists the options that take values, the flags worth
 * naming, and which options announce the world size.
 */
#ifndef NUNATAK_LAUNCH_LAUNCHERS_H
#define NUNATAK_LAUNCH_LAUNCHERS_H

#include <stddef.h>

#include "launch/split.h"

/* What an option says about the world size. */
enum ws_role { WS_NONE = 0, WS_TASKS, WS_NODES, WS_PER_NODE, WS_RS, WS_PER_RS };

struct launch_opt {
	const char *name;  /* with its dashes ("-n", "--ntasks"); without for DASH_FREE tools */
	unsigned char nargs; /* values it consumes: 0 flag, 1, or 2 (--mca KEY VALUE) */
	unsigned char ws;    /* enum ws_role */
};

enum opt_style {
	STYLE_GETOPT,    /* -x VALUE, -xVALUE, --long VALUE, --long=VALUE */
	STYLE_DASH_FREE, /* -np 4 == --np 4 (Open MPI, hydra): names compared without dashes */
};

struct launch_tool {
	const char *name;         /* basename as typed */
	enum launcher_kind kind;  /* LAUNCHER_NONE for a wrapper */
	enum opt_style style;
	const struct launch_opt *opts;
	size_t nr_opts;
	const struct launch_opt *more; /* a second table (mpirun = Open MPI + hydra), or NULL */
	size_t nr_more;
	int positionals;  /* operands before the command (taskset's mask) */
	int subcommand;   /* 1: a subcommand (run, submit) precedes the options (flux) */
};

/* The tool named by `token`'s basename, or NULL when it is neither a known
 * launcher nor a wrapper (then it is the application). */
const struct launch_tool *launch_tool_find(const char *token);

/* Looks `name` up in the tool's tables (per its style), or NULL. */
const struct launch_opt *launch_tool__opt(const struct launch_tool *t, const char *name);

#endif
