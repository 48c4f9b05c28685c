/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drives a regions verb over a run one rank at a time: load (mmap), rebuild
 * the call stacks, hand them to a visitor, release. Peak memory is one rank's
 * trace plus its call arrays, whatever the number of ranks.
 */
#ifndef NUNATAK_REGIONS_REGIONS_RUN_H
#define NUNATAK_REGIONS_REGIONS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regions/rank_filter.h"

struct calls;
struct console;
struct err;
struct path_tree;
struct rank_data;
struct trace_set;

/* Number of trace sources the filter selects; an unmatched rank is an error. */
int rank_filter__count(const struct rank_filter *f, const struct trace_set *ts, size_t *n,
		       struct err *e);

typedef int (*rank_visitor)(void *ctx, size_t slot, const struct rank_data *rd,
			    const struct calls *c, struct err *e);

int regions_for_each_rank(struct trace_set *ts, const struct rank_filter *f,
			  struct path_tree *pt, rank_visitor fn, void *ctx, struct console *con,
			  struct err *e);

/* Earliest start over the selected ranks (0 when there is no call): the time
 * origin of exports. Reads only the start arrays. */
int regions_min_start(struct trace_set *ts, const struct rank_filter *f, int64_t *min,
		      struct err *e);

#endif
