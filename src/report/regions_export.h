/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exports of a run's calls to the formats of existing viewers, streamed one
 * rank at a time (docs/cli/regions.md):
 *  - speedscope: evented profiles, one per (rank, lane), unit nanoseconds,
 *    `at` relative to the run's first entry; frames deduplicated by region;
 *  - chrome: Trace Event Format object form, X events with exact decimal µs,
 *    pid = rank, tid = lane, M events naming both;
 *  - collapsed: "rank R;[thread L;]a;b;c <exclusive ns>" per call path;
 *  - csv / json: tidy events, one row per call (name, rank, lane, call_index,
 *    start, end, duration in seconds from the run's first entry), or with
 *    `summary` the region summary rows.
 */
#ifndef NUNATAK_REPORT_REGIONS_EXPORT_H
#define NUNATAK_REPORT_REGIONS_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

struct console;
struct err;
struct rank_filter;
struct summary_view;
struct trace_set;

enum export_format { EXPORT_SPEEDSCOPE, EXPORT_CHROME, EXPORT_COLLAPSED, EXPORT_CSV,
		     EXPORT_JSON };

int export_parse_format(const char *s, struct err *e);

struct export_opts {
	int format; /* enum export_format */
	bool summary; /* csv/json: region summaries instead of events */
	bool counters; /* csv/json: counters per (rank, lane, region, event) */
	bool counter_calls; /* csv/json: each call's counts per event */
	const struct rank_filter *ranks;
	const struct summary_view *view; /* for summary */
};

/* Writes the export to out (the caller owns atomic replacement). */
int regions_export(struct trace_set *ts, const struct export_opts *o, FILE *out,
		   struct console *con, struct err *e);

#endif
