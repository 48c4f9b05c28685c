/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendering of region summaries (regions/summary.h, computed by
 * regions/regions_inspect.h): the terminal table and JSON document of
 * `regions inspect`, the CSV rows of `regions export --table summary`.
 */
#ifndef NUNATAK_REPORT_REGIONS_SUMMARY_H
#define NUNATAK_REPORT_REGIONS_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

struct console;
struct err;
struct rank_filter;
struct summary;
struct summary_view;
struct trace_set;

int summary__print_table(const struct summary *s, const struct trace_set *ts,
			 const struct summary_view *v, FILE *out, struct err *e);
int summary__print_json(const struct summary *s, const struct trace_set *ts,
			const struct summary_view *v, FILE *out, struct err *e);
/* Tidy summary rows as CSV (seconds), for `export --table summary`. */
int summary__print_csv(const struct summary *s, const struct trace_set *ts,
		       const struct summary_view *v, FILE *out, struct err *e);

/* `regions inspect`: summarises the selected ranks (regions_summarize) and
 * prints the table, or the JSON document. */
int regions_inspect(struct trace_set *ts, const struct rank_filter *rf,
		    const struct summary_view *v, bool json, FILE *out, struct console *con,
		    struct err *e);

#endif
