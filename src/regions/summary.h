/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Region summaries aggregated over ranks, fed one reconstructed rank at a
 * time (so only one rank's calls are ever in memory). Every total is exact
 * integer nanoseconds; only the standard deviation is floating point.
 *
 * Definitions (per region, summed over the selected ranks):
 *  - total: sum of the durations of every call (a recursive region counts
 *    its nested calls too, as the reference's total does);
 *  - exclusive: sum of each call's duration minus its direct children's;
 *  - coverage: wall time under the region, counting only its outermost calls
 *    (no double counting under recursion); % session = coverage (or
 *    exclusive, with percentage mode "exclusive") / sum of the ranks' session
 *    time. A rank's session is the coverage of a region named
 *    "scope_profiler.session" when it has one, else the sum over its threads
 *    of each thread's first entry to last exit (so shares never exceed
 *    100 % on threaded runs); total time is the longest rank's wall time;
 *  - % parent: total / the summed duration of the distinct enclosing calls
 *    (a top-level call's parent is its rank's session);
 *  - imbalance: max / mean of the per-rank coverage, and the busiest rank.
 */
#ifndef NUNATAK_REGIONS_SUMMARY_H
#define NUNATAK_REGIONS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "regions/callstack.h"

struct call_sink;
struct path_tree;
struct trace_set;
struct err;

#define SESSION_REGION "scope_profiler.session"

struct region_summary {
	int64_t calls;
	int64_t total_ns, exclusive_ns, coverage_ns; /* saturating sums */
	int64_t min_ns, max_ns;
	unsigned __int128 sumsq; /* of durations in ns^2: the exact variance */
	int64_t parent_ns;  /* denominator of % parent */
	int64_t first_start_ns; /* earliest start relative to its rank's first entry */
	int64_t *rank_cov;  /* nr_ranks coverage values */
	bool seen;
};

struct summary {
	struct region_summary *r; /* indexed by region id */
	size_t nr, cap;
	size_t nr_ranks; /* slots for rank_cov */
	int32_t *rank_ids;
	int64_t *session_ns; /* per rank slot */
	int64_t *span_ns;
	int64_t *wall_ns; /* per rank slot: its session region, else its span */
	size_t nr_loaded;
	int64_t nr_calls;
	/* per path node: does an ancestor carry the same region? (-1 unknown) */
	int8_t *node_nested;
	size_t cap_nodes;
	/* the rank being added: accumulated per call path (few, hot in cache),
	 * folded into regions at summary__end_rank */
	struct path_stats ps;
	/* the rank being added */
	const struct path_tree *pt;
	size_t slot;
	int64_t session_region; /* id of SESSION_REGION, -1 when absent */
};

int summary__init(struct summary *s, size_t nr_ranks);
void summary__release(struct summary *s);

/* Adding a rank: begin (after the rank is loaded, so every region name is
 * interned), stream its calls into the sink, end. */
int summary__begin_rank(struct summary *s, size_t slot, int32_t rank, int32_t nr_lanes,
			const struct trace_set *ts, const struct path_tree *pt);
struct call_sink summary__sink(struct summary *s);
int summary__end_rank(struct summary *s);
/* Folds src, which summarised the rank slots `slots`, into dst (both made
 * by summary__init with the same rank count): parallel summaries. */
int summary__merge(struct summary *dst, const struct summary *src, const size_t *slots,
		   size_t nr_slots);

enum pct_mode { PCT_COVERAGE, PCT_EXCLUSIVE };

enum sum_col {
	COL_REGION, COL_CALLS, COL_PERCENT, COL_PARENT, COL_TOTAL, COL_AVG, COL_MIN,
	COL_MAX, COL_STD, COL_IMBALANCE, COL_EXCLUSIVE, NR_COLS
};

struct summary_view {
	const char *sort;      /* start|total|calls|avg|min|max|std|name */
	const char *const *include; /* regexes (POSIX extended, search), may be empty */
	size_t nr_include;
	const char *const *exclude;
	size_t nr_exclude;
	enum pct_mode pct;
	int cols[NR_COLS]; /* enum sum_col, ended by -1 */
};

/* Parses "region,calls,percent,..." into cols (-1 terminated). */
int summary_parse_columns(const char *list, int *cols, struct err *e);
int summary_parse_sort(const char *sort, struct err *e);
/* Selected region ids in display order; caller frees. */
int summary__rows(const struct summary *s, const struct trace_set *ts,
		  const struct summary_view *v, uint32_t **ids, size_t *nr, struct err *e);
/* Rendered by report/regions_summary.h (table, JSON, CSV). */
int64_t summary__session_total(const struct summary *s);
int64_t summary__wall_ns(const struct summary *s); /* longest rank session */
double region_summary__std(const struct region_summary *r);

/* "12.35 ms"-style rendering of ns into buf. */
const char *fmt_duration(char *buf, size_t n, double ns);

#endif
