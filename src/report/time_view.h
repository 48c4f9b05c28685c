/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The time budget of a Run (analysis/time_budget.h computes it): the
 * summary's first lines ("time: wall 3.27 s; on CPU 1.62 s (49.5 % of wall
 * time) ..."), the payload's `time_budget` and `offcpu_hotspots`. Every
 * figure is a Derived {value, unit, quality, reason, lineage, formula,
 * clock}; every share names its base.
 */
#ifndef NUNATAK_REPORT_TIME_VIEW_H
#define NUNATAK_REPORT_TIME_VIEW_H

#include <stdbool.h>

typedef struct json_t json_t;
struct pivot;
struct text_lines;
struct time_budget;

/* The launch as nunatak's executor measured it, for a Run without a thread
 * budget: its duration (collector start-up included) and wait4's rusage. */
struct launch_time {
	double wall_s;  /* <= 0 or NaN: unknown */
	double cpu_s;   /* user + system, < 0: unknown */
	bool cpu_includes_collector;
};

/* The summary's time lines; then, under MPI, one per counting-only rank
 * (its process-level time from perf stat; p names the ranks). */
int time_view_lines(const struct time_budget *tb, const struct launch_time *lt,
		    const struct pivot *p, struct text_lines *out);

/* time_budget{mechanism, wall_ns, cpu_ns, offcpu_ns, preempted_ns, loci[{node,
 * rank, thread, pid, name (the thread's comm, null when none was recorded),
 * wall_ns, cpu_ns, offcpu_ns, preempted_ns}]}. New
 * reference or NULL (out of memory). */
json_t *time_view_payload(const struct time_budget *tb, const struct pivot *p,
			  const struct launch_time *lt);

/* offcpu_hotspots[{name, cause, time_ns, intervals, attributed, share}]. */
json_t *time_view_offcpu_payload(const struct time_budget *tb);

#endif
