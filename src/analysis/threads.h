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
 *   - at least THREADS_HELPER_SHARE of its time-base samples fall in MPI
 *     runtime modules (threads_is_mpi_module), the kernel or pseudo-modules
 *     ([kernel.kallsyms], [vdso], [unknown]) or the C runtime (libc,
 *     libpthread, the dynamic loader): code that is not the application's.
 * The thread's name (perf's comm) is not used: the runtimes seen here leave
 * their threads named after the program. Limits, said plainly: a thread of
 * the application that only ever runs in libc or the kernel (a thread that
 * does nothing but write() files) is set aside too; a Locus whose process
 * was not recorded (a Run written before the pid was kept) is never set
 * aside. Helper threads keep their samples in every share and in each rank's
 * time; they are only left out of the Locus counts and of per-Locus ratios.
 */
#ifndef NUNATAK_ANALYSIS_THREADS_H
#define NUNATAK_ANALYSIS_THREADS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

#define THREADS_HELPER_SHARE 0.9
/* The rule in one sentence, for the payload (keep in step with the share). */
#define THREADS_HELPER_RULE                                                             \
	"a thread other than the rank's main thread (tid != pid) with at least 90% of its " \
	"time-base samples in the MPI runtime, the kernel or the C runtime"

struct locus_roles {
	bool *helper;          /* by Locus id; NULL when the pivot has no Locus */
	size_t nr_loci;
	size_t nr_helpers;     /* helper thread Loci with a time-base sample */
	size_t nr_app;         /* application Loci with a time-base sample */
	double helper_time;    /* Σ time base on helper threads */
	double all_time;       /* Σ time base on every Locus */
};

/* True when module is not the application's code: an MPI runtime, the
 * kernel or a pseudo-module, or the C runtime. */
bool threads_is_runtime_module(const char *module);
/* True when `module` (a path or basename) belongs to an MPI runtime. */
bool threads_is_mpi_module(const char *module);

/* Classifies every Locus of p on the time base (NULL: nothing is a helper).
 * Returns 0 or -ENOMEM; release with locus_roles__release(). */
int locus_roles(const struct pivot *p, const char *time_base, struct locus_roles *out);
void locus_roles__release(struct locus_roles *r);

static inline bool locus_roles__is_helper(const struct locus_roles *r, int64_t locus)
{
	return r && r->helper && locus >= 0 && (size_t)locus < r->nr_loci && r->helper[locus];
}

#endif
