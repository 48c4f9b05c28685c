/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --include/--exclude for the verbs that reconstruct calls (tree, every
 * event export, plot): a region that does not pass is removed from each rank
 * as it loads, before the call stacks are rebuilt, so its calls vanish and
 * the calls it contained re-nest under the nearest enclosing region that
 * passes (their exclusive time and paths follow), as the seed's filters do.
 * A region passes when it matches some --include (or none is given) and no
 * --exclude. Patterns are POSIX extended regexes, searched in the name.
 */
#ifndef NUNATAK_REGIONS_REGION_FILTER_H
#define NUNATAK_REGIONS_REGION_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct rank_data;
struct trace_set;

struct region_filter {
	regex_t *inc, *exc;
	size_t nr_inc, nr_exc;
	int8_t *verdict; /* per region id: 0 unknown, 1 keep, -1 drop */
	size_t cap;
};

/* Compiles the patterns (usage error naming a bad one). Either list may be
 * empty; with both empty the filter keeps everything. */
int region_filter__init(struct region_filter *f, const char *const *inc, size_t nr_inc,
			const char *const *exc, size_t nr_exc, struct err *e);
void region_filter__release(struct region_filter *f);
bool region_filter__active(const struct region_filter *f);
/* Whether region `id` of ts passes. */
bool region_filter__keep(struct region_filter *f, const struct trace_set *ts, uint32_t id);
/* Drops the regions of rd that do not pass. 0 or -ENOMEM. */
int region_filter__apply(struct region_filter *f, const struct trace_set *ts,
			 struct rank_data *rd);

#endif
