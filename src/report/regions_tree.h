/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `regions tree`: the reconstructed call tree of each rank and lane, one line
 * per call path (same-named regions under different parents stay apart),
 * with calls, inclusive and exclusive time summed over the path's calls.
 */
#ifndef NUNATAK_REPORT_REGIONS_TREE_H
#define NUNATAK_REPORT_REGIONS_TREE_H

#include <stdbool.h>
#include <stdio.h>

struct console;
struct err;
struct rank_filter;
struct trace_set;

struct tree_opts {
	const struct rank_filter *ranks;
	int max_depth; /* < 0: unlimited; 0: top-level calls only */
	bool paths;    /* print full " > " paths instead of indented names */
	bool json;
};

int regions_tree(struct trace_set *ts, const struct tree_opts *o, FILE *out,
		 struct console *con, struct err *e);

#endif
