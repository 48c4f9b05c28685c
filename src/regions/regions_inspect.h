/* SPDX-License-Identifier: BSD-3-Clause */
/* `regions inspect`: region summary table (or JSON) aggregated over ranks. */
#ifndef NUNATAK_REGIONS_REGIONS_INSPECT_H
#define NUNATAK_REGIONS_REGIONS_INSPECT_H

#include <stdbool.h>
#include <stdio.h>

struct console;
struct err;
struct rank_filter;
struct summary;
struct summary_view;
struct trace_set;

/* Reads and reconstructs every selected rank into s (initialised here; the
 * caller releases it with summary__release). */
int regions_summarize(struct trace_set *ts, const struct rank_filter *rf, struct summary *s,
		      struct console *con, struct err *e);
int regions_inspect(struct trace_set *ts, const struct rank_filter *rf,
		    const struct summary_view *v, bool json, FILE *out, struct console *con,
		    struct err *e);

#endif
