/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters per region (the .spt extension's 'CNTR' section, written by the
 * library under SCOPE_PROFILER_EVENTS): read from every selected rank, one
 * row per (rank, lane, region) with its calls and, per event, the
 * inclusive and exclusive sums. Events are matched by name across ranks;
 * an event a rank could not count is unavailable there (never zero), with
 * the rank's reason. Traces without the section (no events asked, .h5,
 * an unfinished trace) contribute no row and are counted.
 */
#ifndef NUNATAK_REGIONS_REGION_COUNTERS_H
#define NUNATAK_REGIONS_REGION_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct rank_filter;
struct trace_set;

#define CTR_EVENTS_MAX 16

struct ctr_event_info {
	char *name;
	int32_t kind;          /* SP_CTR_KIND_* (lib/sp_format.h) */
	size_t ranks_counted;  /* ranks that counted it */
	size_t ranks_unavailable;
	char *reason;          /* the first rank's reason when unavailable, else NULL */
	int32_t reason_rank;
};

struct ctr_row {
	int32_t rank, lane;
	uint32_t region;       /* trace_set region id */
	int64_t calls;
	bool have[CTR_EVENTS_MAX]; /* the rank counted the event */
	int64_t incl[CTR_EVENTS_MAX], excl[CTR_EVENTS_MAX];
};

/* One call's inclusive count of one event (the trace's 'CCAL' section). */
struct ctr_call {
	uint32_t region;  /* trace_set region id */
	int32_t rank, lane;
	uint16_t ev;      /* index in events[] */
	int64_t start_ns; /* the call's start, as in the trace */
	int64_t value;
};

/* The spread of one region's calls for one event. */
struct ctr_call_stats {
	size_t calls;     /* calls with a count */
	int64_t min, median, max; /* median: the lower middle value */
	double mean;
};

/* A field added here that an .h5's counters change must also cross from the
 * child that reads the .h5 (regions/h5_job.c, take_counters). */
struct region_counters {
	char *backend;          /* of the first rank with the section */
	bool test_backend;      /* some rank used the test-only backend */
	struct ctr_event_info events[CTR_EVENTS_MAX];
	size_t nr_events;
	size_t events_over;     /* event names beyond CTR_EVENTS_MAX (ignored) */
	struct ctr_row *rows;
	size_t nr_rows, cap_rows;
	size_t ranks_with, ranks_without; /* with / without a counter section */
	int64_t threads_without, dropped; /* summed over ranks */
	/* Each call's counts, where the trace keeps them (ranks_with_calls of
	 * the ranks_with); calls_not_kept: calls whose counts were dropped.
	 * Read only when want_calls is set before reading (40 bytes a call and
	 * event in memory: inspect and export ask, nunatak run does not). */
	bool want_calls;
	struct ctr_call *calls;
	size_t nr_calls, cap_calls;
	bool calls_sorted;
	size_t ranks_with_calls;
	int64_t calls_not_kept;
	int32_t calls_newer_version; /* > 0: a rank's per-call counts are of a newer format */
	/* Regions to show (by trace_set id; the caller's filters), NULL: all.
	 * Borrowed. */
	const bool *selected;
	size_t nr_selected;
};

/* Reads the counter sections of the ranks @p rf selects (NULL: all);
 * each call's counts too when @p want_calls. Region
 * names are interned into @p ts. 0 or -errno (e filled: a malformed trace,
 * a row naming a region or lane the trace lacks). */
int region_counters__read(struct region_counters *rc, struct trace_set *ts,
			  const struct rank_filter *rf, bool want_calls, struct err *e);
/* Reads the counter section of one .spt trace into @p rc (zeroed before
 * the first call; rows accumulate). 0 or -errno (e filled). */
int region_counters__read_path(struct region_counters *rc, struct trace_set *ts,
			       const char *path, struct err *e);
void region_counters__release(struct region_counters *rc);
/* Sorts the per-call counts by rank, lane and start (after a reader added them). */
void region_counters__sort_calls(struct region_counters *rc);

/* For readers of other containers (the .h5's /rank<r>/perf_events): the
 * index of event @p name (added with @p kind when new), -1 beyond
 * CTR_EVENTS_MAX (counted in events_over), -2 out of memory. */
int region_counters__event(struct region_counters *rc, const char *name, size_t len,
			   int32_t kind);
/* Notes that @p rank counted event @p g (or not, with its reason); g < 0 is
 * ignored. 0 or -ENOMEM. */
int region_counters__note(struct region_counters *rc, int g, int32_t rank, bool counted,
			  const char *reason, size_t reason_len);
/* Appends a row; value k of incl/excl belongs to event map[k] (< 0: none).
 * 0 or -ENOMEM. */
int region_counters__add_row(struct region_counters *rc, int32_t rank, int32_t lane,
			     uint32_t region, int64_t calls, const int *map, size_t n,
			     const int64_t *incl, const int64_t *excl);

/* The first event of @p kind (SP_CTR_KIND_*) counted somewhere, or -1. */
int region_counters__event_of_kind(const struct region_counters *rc, int32_t kind);

/* Sums over rows of region @p id for event @p ev: false when no row of the
 * region counted it (unavailable). *ranks_missing: rows of the region on
 * ranks that could not count it. */
bool region_counters__sum(const struct region_counters *rc, uint32_t id, size_t ev,
			  int64_t *incl, int64_t *excl, int64_t *calls, size_t *rows_missing);

/* The spread over the calls of region @p id for event @p ev (every rank
 * and lane); false when no call of it has a per-call count (the traces
 * predate them, or an .h5). */
bool region_counters__call_stats(const struct region_counters *rc, uint32_t id, size_t ev,
				 struct ctr_call_stats *out);
/* The calls with a count, sorted by region, event, value, rank, lane,
 * start (the readers sort them): for exports. */
const struct ctr_call *region_counters__calls(const struct region_counters *rc, size_t *n);

/* The unit of an event kind for display ("ns", "cycles", "flop", ...). */
const char *region_counters__unit(int32_t kind);

#endif
