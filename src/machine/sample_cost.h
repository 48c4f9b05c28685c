/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one sample costs the application on this Machine, measured with the
 * calibration and cached with its Ceilings (issue 27 target 3, issue 24
 * item 8: no invented constant behind the overhead line).
 *
 * Method: the calibration kernel (calibration/kernel.c, sample_fp and
 * sample_dwarf) runs fma_dp on one thread (pure arithmetic, no memory
 * traffic, so what slows it is the sampling alone) in pairs of repetitions
 * of the same work, one bare and one sampled by a task-clock event at F Hz
 * opened on itself with what `perf record -e task-clock --call-graph
 * fp|dwarf,4096` asks the kernel for (perf_event_open; the order alternates
 * within pairs so a drift hits both halves). Pair i gives
 *     cost_i = (W / r_sampled_i - W / r_bare_i) / samples_i
 * (W the work of one repetition, r the rates, samples_i from the task-clock
 * time of the sampled half x F); the cost is the median over the pairs. F
 * is high (SAMPLE_COST_FREQ, capped by perf_event_max_sample_rate) so that
 * the slowdown stands above a shared machine's noise. What a sample costs
 * perf's own process (draining the ring buffer, on another core) is not
 * counted: on a node whose every core runs the application it adds to this.
 * No perf process runs, so a recording of a Run replays in order.
 *
 * The preload sampler (where perf is blocked) is measured the same way
 * (kernel sample_preload): libscope_profiler.so, dlopen'ed by the kernel,
 * samples itself with its own SIGPROF handler; each sampled repetition is
 * cut into SAMPLE_COST_PRELOAD_FREQ slices per CPU second, each followed by
 * a SIGPROF queued to the thread with SI_TIMER (what the sampler's timers
 * send; delivered and handled on the way back to user space, as theirs
 * are), each bare one by getppid (the same kernel entry and exit). Its
 * timers proper run on thread CPU time and expire at most once per kernel
 * tick (CONFIG_HZ): too rarely for the slowdown to stand above the noise;
 * what the timer's expiry costs the kernel at the tick is not in the
 * figure. Without the library beside nunatak its cost is unavailable with
 * that reason.
 *
 * Quality: measured when the middle half of the per-pair costs lies within
 * +-25 % of the median (a busy machine only adds noise to CPU times);
 * estimated with the reasons otherwise; unavailable, with the reason, when
 * sampling could not be opened, fewer than 3 pairs answered or no slowdown
 * stood above the noise. Not measured under replay (a reference recording
 * holds no such run).
 */
#ifndef NUNATAK_MACHINE_SAMPLE_COST_H
#define NUNATAK_MACHINE_SAMPLE_COST_H

#include "machine/calibrate.h"

struct ceiling;
struct err;
struct executor;
struct machine;

#define SAMPLE_COST_FREQ 4999
#define SAMPLE_COST_REPS 7
#define SAMPLE_COST_MS 30 /* of CPU time per repetition */
#define SAMPLE_COST_SPREAD 0.5 /* (q3 - q1) / median above it: estimated */
#define SAMPLE_COST_PRELOAD_FREQ 20000 /* a sample costs ~2 us: 4 % of the CPU time */

/* The cost names, one per call-stack mode measured (model/machine.h). */
#define COST_PERF_FP "perf_sample_fp"
#define COST_PERF_DWARF "perf_sample_dwarf"
#define COST_PRELOAD "preload_sample"

/* Pure: the cost named `name` from a sample_* kernel's output, into *out
 * (strings allocated; release with ceiling__release_strings). Returns 0 or
 * -ENOMEM. */
int sample_cost_compute(const char *name, const struct kernel_output *k, struct ceiling *out);

/* An unavailable cost named `name` with its reason, put into m. 0 / -ENOMEM. */
int sample_cost_unavailable(struct machine *m, const char *name, const char *why);

/* Runs the sample_fp, sample_dwarf and sample_preload kernels through x
 * (at once: each is timed on its own thread's CPU time) and puts the costs
 * into m (unavailable ones with their reason; the preload one when
 * o->sampler_lib is NULL). bin is the built calibration kernel. Returns 0
 * or -ENOMEM. */
int machine_sample_costs(struct machine *m, struct executor *x, const struct calibrate_opts *o,
			 const char *bin, struct calibrate_report *r, struct err *e);

#endif
