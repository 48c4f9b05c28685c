/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a rank's trace says about itself beyond its calls: that it was cut
 * short (an unfinished trace: calls recovered, where it ended), the misuse
 * the library counted (kinds, counts, regions), and its timing context
 * (init/finalize stamps, startup time, per-thread wall and CPU time).
 * Collected per rank while summarising, shown by `inspect`.
 */
#ifndef NUNATAK_REGIONS_RANK_NOTES_H
#define NUNATAK_REGIONS_RANK_NOTES_H

#include <stdbool.h>
#include <stdint.h>

#include "ingest/spt_reader.h"

struct lane_time {
	int64_t first_ns, last_ns, cpu_ns; /* cpu_ns -1: unknown */
	char name[32];                     /* "" when the trace has no thread table */
};

struct misuse_note {
	int64_t count;
	size_t nr_names;
	char **names;
	int64_t *counts;
};

struct rank_note {
	int32_t rank;
	struct spt_cut cut;
	bool has_timing;
	int64_t init_ns, finalize_ns, init_real_ns, start_ns;
	int32_t nr_lanes;
	struct lane_time *lanes; /* owned */
	struct misuse_note misuse[SP_MISUSE_KIND_NR];
};

struct rank_notes {
	struct rank_note *v;
	size_t nr, cap;
};

/* Adds rank `rank`'s note from a parsed trace when it has anything to say
 * (cut, extension). 0 or -ENOMEM. */
int rank_notes__add(struct rank_notes *n, const struct spt_trace *t, int32_t rank);
void rank_notes__release(struct rank_notes *n);
/* a - b of untrusted stamps, saturated. */
int64_t rank_notes_diff_ns(int64_t a, int64_t b);
/* The seed's startup_time: from the start of the run (the process start
 * when the trace knows it, else sp_init) to the first region's start, the
 * time the instrumentation never saw; -1 without a region. Its text and
 * JSON are report/rank_notes_view.h. */
int64_t rank_note__startup_ns(const struct rank_note *r);

#endif
