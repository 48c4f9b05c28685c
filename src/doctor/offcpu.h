/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which off-CPU mechanism this machine gets (issue 23), decided from the one
 * capability probe (tools/caps.h), said by doctor and used by `nunatak run`:
 *
 *  - OFFCPU_STACKS: perf records context switches (--switch-events) and a
 *    sample with the call stack at each (-e context-switches/period=1/),
 *    which needs kernel profiling (root, or perf_event_paranoid <= 1):
 *    per-thread wall / CPU / off-CPU time, off-CPU time by call path;
 *  - OFFCPU_SWITCHES: perf samples the user's own code only (paranoid 2):
 *    context switches only (allowed to an ordinary user for their own
 *    processes): the per-thread budget, the off-CPU time unattributed;
 *  - OFFCPU_PROCESS: no perf (preload sampler or bare): the application's
 *    wall time and its CPU time from wait4's rusage, per process only.
 */
#ifndef NUNATAK_DOCTOR_OFFCPU_H
#define NUNATAK_DOCTOR_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>

#include "common/degradation_kinds.h"

struct caps;

enum offcpu_mechanism { OFFCPU_PROCESS = 0, OFFCPU_SWITCHES, OFFCPU_STACKS };

/* perf_collects: perf is the Run's collector (not blocked, not replaced). */
enum offcpu_mechanism offcpu_mechanism(const struct caps *c, bool perf_collects);
/* One sentence for doctor and the run's announcement (static string). */
const char *offcpu_mechanism__describe(enum offcpu_mechanism m);
/* What would give the next mechanism up, or NULL at the top (static string). */
const char *offcpu_mechanism__remedy(enum offcpu_mechanism m);
const char *offcpu_mechanism__name(enum offcpu_mechanism m);
/* `nunatak run --offcpu`: "auto" (OFFCPU_STACKS: the best the machine
 * allows), "switches" or "process", the most the Run may use (it still
 * gets less where the machine allows less). 0, or -1 for another word. */
int offcpu_mechanism__parse(const char *word, enum offcpu_mechanism *m);
/* The Run's degradation when the user asked for less than the machine
 * allows (static strings): what the Run lacks, and how to get it. */
const char *offcpu_mechanism__asked(enum offcpu_mechanism m);
const char *offcpu_mechanism__asked_remedy(enum offcpu_mechanism m);

#define OFFCPU_DEGRADATION DEG_OFFCPU_UNATTRIBUTED

/* Within OFFCPU_STACKS, which switch-outs of an MPI rank get a stack on
 * this machine: true, the blocking ones only (tools/perf.h
 * OFFCPU_BLOCKING_EVENT: the scheduler's tracepoint filtered on prev_state,
 * which needs root, or perf_event_paranoid -1, and a readable tracefs);
 * false, every one (OFFCPU_STACK_EVENT), with why in why[cap]. Decided by
 * each rank shim on its own node; perf refusing the tracepoint falls back
 * there. Ranks only: oversubscribed MPI ranks yield tens of thousands of
 * times a second, and a single process keeps a stack at every switch-out,
 * whose preemptions of user code the OpenMP view splits into work and wait
 * (the filter cannot keep those and drop the yields: both leave in state R
 * with prev_state 0). */
bool offcpu_blocking_usable(char *why, size_t cap);
/* One sentence for doctor and the Runs: which stacks, and why (static
 * strings, the second completed by offcpu_blocking_usable's why). */
#define OFFCPU_BLOCKING_SAYS                                                              \
	"MPI ranks: call stacks of blocking switch-outs only (sched:sched_switch filtered on "           \
	"prev_state != 0): a switch-out by sched_yield or a preemption of user code takes "   \
	"none, by design (a stack at each would cost the rank more than the switch itself, " \
	"and an oversubscribed MPI rank yields tens of thousands of times a second)"
#define OFFCPU_EVERY_SAYS "call stacks at every switch-out (context-switches)"
#define OFFCPU_RANKS_EVERY_SAYS "MPI ranks: " OFFCPU_EVERY_SAYS

#endif
