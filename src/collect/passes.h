/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-pass collection (REFERENCE.md §3 "Multi-pass"): a PMU with few
 * counters measures the microarchitecture's counter group (perf.h's table,
 * the one single-pass runs use) in several passes of the same application,
 * one per canonical counter: `flops` ([fp_ret]) then `memory` (the DRAM
 * fills). The FLOP event is the witness, replicated in every pass: its
 * per-pass totals tell whether the passes ran the same work (the spread
 * (max - min) / mean above passes.witness is `passes-inconsistent`). Each
 * pass writes collect/pass-<i>/. A counter sampled in several passes counts
 * in its lowest pass (analysis/ applies the rule).
 */
#ifndef NUNATAK_COLLECT_PASSES_H
#define NUNATAK_COLLECT_PASSES_H

#include "tools/perf.h"

#define PASSES_MAX 4
#define PASS_EVENTS_MAX 8

struct pass_plan {
	int nr;
	const char *labels[PASSES_MAX];          /* "flops", "memory" */
	struct counter_event events[PASSES_MAX][PASS_EVENTS_MAX];
	struct counter_group groups[PASSES_MAX]; /* each pass's group (events above) */
	const char *witness_event;               /* perf event name of the witness */
	const char *witness;                     /* its canonical counter ("flops") */
};

/* Plans the passes of group g (pure). Returns 0, or -ENOENT when g is NULL,
 * has no FLOP event to witness, or fits one pass (one canonical counter). */
int passes_plan(const struct counter_group *g, struct pass_plan *out);

/* (max - min) / mean of n per-pass totals; -1 when undefined (n < 2, mean 0). */
double passes_spread(const double *totals, int n);

#endif
