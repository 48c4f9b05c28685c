/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where each thread's wall time went, from the kernel's context-switch
 * records: `perf record --switch-events` writes PERF_RECORD_SWITCH (misc
 * SWITCH_OUT, SWITCH_OUT_PREEMPT, or in) for every switch of a monitored
 * thread, with the thread and the time in the sample_id trailer; FORK, COMM
 * (exec) and EXIT records bound each thread's life. Per thread:
 *
 *   wall    = exit (or last record) - start (fork, exec or first record)
 *   off-CPU = Σ (switch in - switch out), plus start -> first switch in for a
 *             thread that starts runnable (a new thread waits for a CPU)
 *   CPU     = wall - off-CPU
 *
 * every one measured: the kernel timestamps each switch on the Run's clock.
 * An off interval that began with SWITCH_OUT_PREEMPT is the thread being
 * runnable but descheduled (another task had the CPU): off-CPU too, counted
 * apart as "preempted".
 *
 * As root, `-e context-switches/period=1,call-graph=fp/` adds, at each
 * switch out, the blocking thread's kernel + user stack (the software event
 * fires in the context of the thread leaving the CPU; period 1, where the
 * sched:sched_switch tracepoint, also read, would follow --freq and skip
 * switches under load). The off interval that follows is
 * attributed to the latest such stack of the thread taken since it last came
 * in: pivot stacks of counter OFFCPU_COUNTER (unit ns, value the off-CPU
 * time; OFFCPU_PREEMPTED_COUNTER for a preemption), attributed like every
 * other stack. An interval without one stays
 * unattributed and is still counted in the thread's off-CPU time.
 *
 * Where the machine allows, the stacks come from sched:sched_switch filtered
 * on prev_state != 0 instead (tools/perf.h): blocking switch-outs only. A
 * preempted interval then has no stack by design; its time is written per
 * thread as TIME_PREEMPTED_UNSTACKED_COUNTER, so that every view can say it.
 *
 * Records are sorted by perf only per round, so events are kept per thread
 * and sorted at emit: memory is linear in switches (16 bytes each).
 */
#ifndef NUNATAK_INGEST_SWITCHES_H
#define NUNATAK_INGEST_SWITCHES_H

#include <stdbool.h>
#include <stdint.h>

#include "ingest/aggregate.h"

struct err;
struct pivot;

/* Locus-level Measurements (hotspot PIVOT_NONE, unit ns) and the stack counter. */
#define TIME_WALL_COUNTER "wall_time"
#define TIME_CPU_COUNTER "cpu_time"
#define TIME_OFFCPU_COUNTER "offcpu_time"
#define TIME_PREEMPTED_COUNTER "offcpu_preempted"
#define OFFCPU_COUNTER "offcpu"
/* With the stacks of blocking switch-outs only (tools/perf.h
 * OFFCPU_BLOCKING_EVENT, the stack samples' event sched:sched_switch, which
 * nunatak records with its prev_state filter alone): the thread's preempted
 * time for which no stack was taken, by design (a switch-out by sched_yield,
 * or a preemption on the way back to user space), sample_count the
 * intervals. Written for every thread of such a Run (0 included), never
 * otherwise: its presence says which stacks the Run has. */
#define TIME_PREEMPTED_UNSTACKED_COUNTER "offcpu_preempted_unstacked"
/* Stacks of the intervals a thread spent preempted (runnable, descheduled):
 * where it was running when it lost the CPU (analysis/openmp.h counts them
 * with the work or the wait they interrupted). */
#define OFFCPU_PREEMPTED_COUNTER "offcpu_preempted"
/* The clock those come from, for every document that shows them. */
#define CLOCK_SWITCHES "wall clock (kernel context-switch timestamps)"

enum switch_kind { SWITCH_START = 0, SWITCH_IN, SWITCH_OUT, SWITCH_OUT_PREEMPT, SWITCH_EXIT };

struct switch_log;

/* New empty log, or NULL when out of memory; free with switch_log__free(). */
struct switch_log *switch_log__new(void);
void switch_log__free(struct switch_log *l);
/* One record of thread tid (process pid) at time_ns. 0 or -ENOMEM. */
int switch_log__event(struct switch_log *l, int64_t pid, int64_t tid, uint64_t time_ns,
		      enum switch_kind k);
/* Thread tid is nunatak's own (the `fg-exec` relay waiting for the
 * application, named SWITCH_RELAY_COMM): it has no time budget. 0 or -ENOMEM. */
#define SWITCH_RELAY_COMM "nunatak-relay"
int switch_log__exclude(struct switch_log *l, int64_t pid, int64_t tid);
/* A context-switch sample (borrowed): its callchain becomes the stack of
 * the off-CPU interval that follows. 0 or -ENOMEM. */
int switch_log__stack(struct switch_log *l, const struct ingest_sample *s);
/* The recording held context-switch records (set by the reader from the
 * events' context_switch bit): threads that never switched then still get a
 * budget (off-CPU 0). */
void switch_log__enable(struct switch_log *l);
bool switch_log__enabled(const struct switch_log *l);
/* True when e names the event whose samples are stacks at a switch out:
 * context-switches (cs), with or without terms/modifiers, or the scheduler
 * tracepoint sched:sched_switch. */
bool switch_log__is_switch_event(const char *event, size_t len);
/* The stack samples come from event (one switch_log__is_switch_event
 * accepts): sched:sched_switch means blocking switch-outs only
 * (TIME_PREEMPTED_UNSTACKED_COUNTER). */
void switch_log__stacks_from(struct switch_log *l, const char *event, size_t len);
bool switch_log__blocking_only(const struct switch_log *l);

/* The events in the order switch_log__intervals and switch_log__emit walk
 * them (each sorts when nothing did since the last event): done ahead, on
 * the thread that read the recording (ingest/perf_data.h). */
void switch_log__sort(struct switch_log *l);

/* Every off-CPU interval [start, end) of every thread, in time order per
 * thread (the same intervals switch_log__emit sums). fn returns 0 or a
 * negative error, which stops the walk and is returned. */
typedef int (*switch_interval_fn)(void *ctx, int64_t pid, int64_t tid, uint64_t start,
				  uint64_t end);
int switch_log__intervals(struct switch_log *l, switch_interval_fn fn, void *ctx);

/* Writes, for every thread seen, the Locus-level Measurements TIME_*_COUNTER
 * (measured, unit ns) and the OFFCPU_COUNTER stacks into p, Loci interned as
 * (o->node, o->rank, tid). Nothing when the log is not enabled. 0, or -ENOMEM
 * with e filled. */
int switch_log__emit(struct switch_log *l, const struct ingest_opts *o, struct pivot *p,
		     struct err *e);

#endif
