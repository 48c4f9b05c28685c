/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters per region in `regions inspect` (regions/region_counters.h): the
 * terminal table under the summary and the "counters" object of --json.
 * Every value carries its Quality: measured when every lane of the region
 * counted the event, estimated when some could not (or counts were
 * dropped), unavailable (null, with the library's reason) when none could.
 * Rates divide by the region's inclusive time (the sum of its calls'
 * durations, as the summary's Total): per second, per call, and where both
 * inputs exist IPC (instructions / cycles), FLOP/s, bytes/s and
 * arithmetic intensity (flop / byte).
 */
#ifndef NUNATAK_REPORT_REGIONS_COUNTERS_VIEW_H
#define NUNATAK_REPORT_REGIONS_COUNTERS_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

struct region_counters;
struct summary;
struct trace_set;

/* Nothing is printed when no rank carries a counter section. */
void regions_counters_print(const struct region_counters *rc, const struct summary *s,
			    const struct trace_set *ts, FILE *out);
/* The "counters" object, or JSON null when no rank carries counters. */
json_t *regions_counters_json(const struct region_counters *rc, const struct summary *s,
			      const struct trace_set *ts);

/* `regions export --table counters`: one tidy row per (rank, lane,
 * region, event) with calls, inclusive and exclusive sums, the unit and
 * the Quality (unavailable rows have empty sums and the reason): CSV with
 * a header line, or a JSON array of objects. 0 or -EIO. */
int regions_counters_csv(const struct region_counters *rc, const struct trace_set *ts,
			 FILE *out);
int regions_counters_rows_json(const struct region_counters *rc, const struct trace_set *ts,
			       FILE *out);

/* `regions export --table counter-calls`: each call's inclusive count of
 * each event (the traces' 'CCAL' section), one row per call and event, by
 * rank, lane and start: CSV `rank,lane,region,start_ns,event,unit,value`,
 * or the same rows as a JSON array. 0 or -errno. */
int regions_counter_calls_write(const struct region_counters *rc, const struct trace_set *ts,
				bool json, FILE *out);

#endif
