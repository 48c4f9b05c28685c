/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Application Loci and MPI runtime helper threads.
 *
 * Loci stay node > rank > thread: in a hybrid MPI+OpenMP code the imbalance
 * between the threads of one rank is a finding. But an MPI runtime starts
 * threads of its own in every rank (Open MPI's progress and async threads,
 * the libevent loop, PMIx's listener, UCX's async thread): they are no part
 * of the application's work, and counting them as Loci would turn 4 ranks
 * into "8 Loci" and feed their handful of samples into per-Locus ratios.
 *
 * A thread Locus is a runtime helper when all of these hold:
 *   - it belongs to a rank (rank >= 0) and its process is known (pid > 0);
 *   - it is not the rank's main thread (tid != pid): the thread that runs
 *     main(), MPI_Init and the application's MPI calls is never set aside,
 *     however much of its time it spends waiting inside the runtime;
 *   - on the CPU it ran the runtime's code or hardly ran: when it has
 *     time-base samples, at least THREADS_HELPER_SHARE of them fall in MPI
 *     runtime modules (threads_is_mpi_module), the kernel or pseudo-modules
 *     ([kernel.kallsyms], [vdso], [unknown]) or the C runtime (libc,
 *     libpthread, the dynamic loader): code that is not the application's;
 *     when it has none (a thread asleep for the whole run is never sampled),
 *     its CPU time from the kernel's context switches is at most
 *     THREADS_HELPER_IDLE of its wall time;
 *   - off the CPU it waited in the runtime's code: at least
 *     THREADS_HELPER_SHARE of its off-CPU time with a call stack (blocked or
 *     preempted, ingest/switches.h) is in stacks without a frame in the
 *     application's code (every frame in the modules above). A thread with
 *     samples but no off-CPU stack (a Run without scheduler call stacks) is
 *     judged by its samples alone; a thread with neither is never set aside.
 * The thread's name (perf's comm) is not used: the runtimes seen here leave
 * their threads named after the program. Limits, said plainly: a thread of
 * the application that only ever runs in libc or the kernel and blocks
 * without a frame of the application on its stack (a thread that does
 * nothing but write() files, or whose frames are lost to a module built
 * without frame pointers) is set aside too; a never-sampled thread of the
 * application that sleeps the whole run in such a stack as well; a thread
 * that never ran long enough to be sampled, in a Run without scheduler call
 * stacks (`--offcpu switches`), is never set aside (nothing says whose it
 * is); a Locus whose process was not recorded (a Run written before the pid
 * was kept) is never set aside. Helper threads keep their samples in every
 * share of the sampled time and in each rank's time; they are left out of
 * the Locus counts, of per-Locus ratios and of the time budget's totals
 * (analysis/time_budget.h), which states their time on its own.
 */
#ifndef NUNATAK_ANALYSIS_THREADS_H
#define NUNATAK_ANALYSIS_THREADS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

#define THREADS_HELPER_SHARE 0.9
#define THREADS_HELPER_IDLE 0.01
/* The rule in one sentence, for the payload (keep in step with the shares). */
#define THREADS_HELPER_RULE                                                                \
	"a thread other than the rank's main thread (tid != pid) with at least 90% of its "    \
	"time-base samples in the MPI runtime, the kernel or the C runtime (without samples: " \
	"on the CPU at most 1% of its wall time), and, when its off-CPU call stacks were "     \
	"recorded, at least 90% of that off-CPU time in stacks without a frame of the "        \
	"application"

struct locus_roles {
	bool *helper;          /* by Locus id; NULL when the pivot has no Locus */
	size_t nr_loci;
	size_t nr_helpers;     /* helper thread Loci (sampled or not) */
	size_t nr_app;         /* other Loci seen (a sample or a budget) */
	double helper_time;    /* Σ time base on helper threads */
	double all_time;       /* Σ time base on every Locus */
};

/* True when module is not the application's code: an MPI runtime, the
 * kernel or a pseudo-module, or the C runtime. */
bool threads_is_runtime_module(const char *module);
/* True when `module` (a path or basename) belongs to an MPI runtime. */
bool threads_is_mpi_module(const char *module);

/* Classifies every Locus of p on the time base (NULL: no sample is read),
 * the context-switch budgets and the off-CPU stacks (ingest/switches.h).
 * Returns 0 or -ENOMEM; release with locus_roles__release(). */
int locus_roles(const struct pivot *p, const char *time_base, struct locus_roles *out);
void locus_roles__release(struct locus_roles *r);

static inline bool locus_roles__is_helper(const struct locus_roles *r, int64_t locus)
{
	return r && r->helper && locus >= 0 && (size_t)locus < r->nr_loci && r->helper[locus];
}

#endif
