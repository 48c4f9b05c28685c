/* SPDX-License-Identifier: BSD-3-Clause */
/* `regions inspect`'s computation: region summaries aggregated over ranks
 * (rendered by report/regions_summary.h). */
#ifndef NUNATAK_REGIONS_REGIONS_INSPECT_H
#define NUNATAK_REGIONS_REGIONS_INSPECT_H

struct console;
struct err;
struct rank_filter;
struct summary;
struct trace_set;

/* Reads and reconstructs every selected rank into s (initialised here; the
 * caller releases it with summary__release). */
int regions_summarize(struct trace_set *ts, const struct rank_filter *rf, struct summary *s,
		      struct console *con, struct err *e);

#endif
