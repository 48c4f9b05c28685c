/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the wall time went (issue 23), a pure function of the pivot: per
 * Locus (thread) and for the Run, wall, CPU and off-CPU time from the
 * Locus-level Measurements ingest/switches.h writes (kernel context
 * switches, measured), and the off-CPU time by function and call path from
 * the OFFCPU_COUNTER stacks.
 *
 * Run totals: wall = the longest thread's wall time (the process's life for
 * a single process); CPU and off-CPU = sums over threads, so off-CPU is in
 * thread-seconds and for one thread exactly wall - CPU. A Run without
 * context-switch records has no per-thread budget: every figure is
 * unavailable with its reason, never 0.
 *
 * Under MPI the totals and the off-CPU Hotspots are the application's
 * threads only: the MPI runtime's helper threads (analysis/threads.h, the
 * one classification the Ranks section uses too), asleep in their event
 * loops for the whole run, are no time the application lost. Their time is
 * summed apart (helper_*), with their own off-CPU Hotspots, and each
 * thread's row says whether it is one: application + helpers = every
 * thread. A Run without ranks has no helper and is unchanged.
 *
 * Off-CPU Hotspots: each off-CPU stack is named by its innermost frame in
 * the application's code (neither the kernel nor the C runtime:
 * threads_is_runtime_module), the blocking function; the cause comes from
 * the kernel and runtime frames below it (sleep: nanosleep; lock: futex,
 * pthread; I/O: read, write, fsync, poll, io_schedule...; MPI: an MPI
 * runtime module; OpenMP: libgomp; else other). A stack with no frame of
 * the application is named by its innermost user-space frame ("function in
 * module", or the module alone when unnamed). Time preempted (runnable, waiting for a CPU)
 * and off-CPU time without a stack are rows of their own.
 */
#ifndef NUNATAK_ANALYSIS_TIME_BUDGET_H
#define NUNATAK_ANALYSIS_TIME_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct locus_time {
	int64_t locus;
	double wall_ns, cpu_ns, offcpu_ns, preempted_ns;
	double unstacked_ns; /* of preempted_ns, without a stack by design (blocking_stacks) */
	bool helper; /* an MPI runtime helper thread: not in the totals */
};

/* A counting-only MPI rank (beyond the sampling threshold: perf stat, no
 * context switches): its process-level time. wall_ns is perf stat's
 * duration_time (NAN when the rank's perf stat had none: an older Run),
 * cpu_ns its task-clock, the CPU time of all its threads together. Per
 * thread there is nothing honest to give: perf stat counts the command it
 * launches as a whole (per-thread counts need an attach by thread id), and
 * the rank's threads are gone from /proc when it ends. */
struct rank_time {
	int64_t locus; /* the rank's Locus (thread -1) */
	double wall_ns, cpu_ns;
};

struct offcpu_hotspot {
	char *name;        /* owned */
	const char *cause; /* "sleep", "I/O", "lock", "MPI", "other" (static) */
	double time_ns;
	int64_t intervals;
	bool attributed;   /* false: the preempted / unattributed rows */
};

/* The MPI runtime's helper threads, summed apart from the totals. */
struct helper_time {
	size_t threads;       /* helper thread Loci with a budget */
	size_t ranks;         /* ranks they belong to */
	size_t min_per_rank, max_per_rank; /* over those ranks */
	double wall_ns, cpu_ns, offcpu_ns, preempted_ns; /* sums over them */
	double unstacked_ns;  /* of preempted_ns, without a stack by design */
	double attributed_ns; /* their off-CPU time with a call stack */
	struct offcpu_hotspot *hot; /* their off-CPU Hotspots, largest first */
	size_t nr_hot;
};

struct time_budget {
	bool available;       /* context-switch records were ingested */
	bool ranks;           /* the Run has MPI ranks (helpers are looked for) */
	/* over the application's threads (every thread without ranks) */
	double wall_ns, cpu_ns, offcpu_ns, preempted_ns, attributed_ns;
	size_t nr_app;        /* application threads with a budget */
	struct locus_time *loci; /* every thread with a budget, helpers marked */
	size_t nr_loci;
	struct offcpu_hotspot *hot; /* the application's, by time, largest first */
	size_t nr_hot;
	struct helper_time helpers;
	bool have_stacks;     /* off-CPU call stacks were recorded */
	/* ...of blocking switch-outs only (ingest/switches.h
	 * TIME_PREEMPTED_UNSTACKED_COUNTER): unstacked_ns of preempted_ns (a
	 * switch-out by sched_yield, or a preemption of user code) has none, by
	 * design */
	bool blocking_stacks;
	double unstacked_ns;
	struct rank_time *counted; /* counting-only ranks, by Locus */
	size_t nr_counted;
};

/* 0 or -ENOMEM; release with time_budget__release() (also on failure). */
int time_budget_build(const struct pivot *p, struct time_budget *tb);
void time_budget__release(struct time_budget *tb);

/* The cause of an off-CPU stack from the names of its frames (innermost
 * first; NULL entries are unnamed frames) and modules. Static string. */
const char *offcpu_cause(const char *const *functions, const char *const *modules, size_t n);

#endif
