/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser of `perf stat -x, -e task-clock,cycles,instructions -o FILE -- cmd`
 * (the rank counting layer, REFERENCE.md §3/§4): pure, bytes -> Locus-level
 * Measurements (hotspot = PIVOT_NONE, thread = -1: the whole rank).
 *
 * Shape seen with perf 6.1.187 (this machine; tests/golden/perf-stat/) and
 * the same columns documented for 5.x-6.x:
 *     # started on Sun Nov 29 14:02:24 2026
 *     <blank>
 *     0.69,msec,task-clock,685441,100.00,0.310,CPUs utilized
 *     <not supported>,,cycles,0,100.00,,
 * columns: value, unit, event, run time (ns), coverage % (multiplexing), then
 * optional metric value and unit, which we ignore. Lines starting with '#'
 * and blank lines are not data. The event keeps modifiers ("task-clock:u");
 * they are stripped with the same canonicalisation as sampling
 * (ingest_counter_canon). "msec" values become ns.
 *
 * `<not supported>` and `<not counted>` give an unavailable Measurement with
 * reason "counter not supported on this node" (value 0, meaningless).
 * Degradations added to st->degradations:
 *   counting-unavailable  no counter counted (header-only CSV, or all unavailable)
 *   counting-incomplete   some counters unavailable (named in the message)
 *   perf-stat-unparsed    "{n} of {total} perf stat lines not recognized (first: ...)"
 */
#ifndef NUNATAK_INGEST_PERF_STAT_H
#define NUNATAK_INGEST_PERF_STAT_H

#include <stddef.h>

#include "ingest/aggregate.h"

struct err;
struct pivot;

/*
 * Parses buf[0..len) and adds one Measurement per counter line to p, for the
 * Locus (o->node, o->rank, thread -1), pass o->pass_index. st must be
 * zero-initialised (release with ingest_stats__release()). Returns the number
 * of counted (measured) counters (>= 0), or -ENOMEM with e filled.
 */
int ingest_perf_stat(const char *buf, size_t len, const struct ingest_opts *o,
		     struct pivot *p, struct ingest_stats *st, struct err *e);

#endif
