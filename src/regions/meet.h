/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where region traces and perf samples meet. perf recorded with
 * `-k CLOCK_MONOTONIC` stamps samples on the clock scope_profiler stamps
 * region calls with, so each sample falls inside the innermost open region
 * of its thread at its time.
 *
 * A rank's reconstructed calls (regions/callstack.h) become, per lane, a
 * piecewise-constant function "innermost open call path from time t on":
 * 2 transitions per call, sorted once (O(calls log calls)); a sample is a
 * binary search (O(log calls)). Calls are half-open [start, end): a sample at
 * a call's end belongs to its parent, one at a sibling's start to the sibling.
 *
 * Thread matching: a v3 trace names each lane's tid (its thread table); a
 * v2 trace has one lane of unknown tid, the process's main thread, which
 * matches samples whose tid equals their pid.
 */
#ifndef NUNATAK_REGIONS_MEET_H
#define NUNATAK_REGIONS_MEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct calls;
struct err;
struct rank_data;

struct region_lane_tl {
	int64_t tid;   /* -1: unknown (v2: the process's main thread) */
	size_t n;
	int64_t *t;    /* transition times, strictly ascending */
	int32_t *node; /* innermost call path node from t[i] on, -1: none */
};

struct region_timeline {
	struct region_lane_tl *lanes;
	int32_t nr_lanes;
};

/* Builds the per-lane timelines of c (rd gives the lanes' tids). */
int region_timeline__build(struct region_timeline *tl, const struct calls *c,
			   const struct rank_data *rd, struct err *e);
void region_timeline__release(struct region_timeline *tl);

/* The lane of a sample of thread tid in process pid, or -1 when none. */
int32_t region_timeline__lane(const struct region_timeline *tl, int64_t pid, int64_t tid);
/* The innermost open path node of `lane` at time t, or -1 outside every call. */
int32_t region_timeline__at(const struct region_timeline *tl, int32_t lane, int64_t t);


#endif
