/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OpenMP parallel regions and their threads' work and wait (issue 23), a
 * pure function of the pivot, for GCC's libgomp, which has no tool
 * interface (OMPT), and LLVM's libomp without an OMPT tool: the runtime's
 * code is recognised by module, like MPI runtime code.
 *
 *  - a region is an outlined function GCC names `<parent>._omp_fn.<N>`
 *    (clang: `.omp_outlined.`, `.omp_outlined..<N>`); its
 *    file is the Hotspot's source file and its line that of the `#pragma omp
 *    parallel` read in the source extract (attrib/source.c widens an
 *    outlined function's extract upwards to hold it); without the source,
 *    the lowest sampled line of the region's code (pragma false);
 *  - a thread's work in a region: its time-base samples in the outlined
 *    function, plus the time it spent preempted while running there (the
 *    scheduler's stacks), so both sides of the comparison are wall time;
 *  - a thread's OpenMP wait: its time-base samples in libgomp (spinning at
 *    a barrier) plus its off-CPU time, blocked or preempted, while running
 *    libgomp (the stack's innermost frame outside the kernel and libc is
 *    libgomp's: the futex wait behind the barrier). Without the
 *    scheduler's stacks (not root) only the spinning is seen: the wait is
 *    then estimated, with that reason. Several regions: a wait whose stack
 *    holds a region's outlined function is that region's; the rest (the
 *    runtime's frames do not say which region a barrier served: unwinding
 *    skips the outlined caller of libgomp's barrier, and a worker's end
 *    barrier has none) is split between the regions the thread took part
 *    in, in proportion to its deficit in each (the longest work of its
 *    process's threads there minus its own: the wait the imbalance
 *    predicts at that barrier), estimated; with no deficit anywhere it
 *    goes with the region where the thread worked most.
 *  - libomp is built without frame pointers and waits in libc (sched_yield
 *    while it spins, a futex through pthread_cond_wait when it sleeps):
 *    under libomp, time whose innermost user frame is such a libc function
 *    is its wait (frame-pointer unwinding skips libomp's own frames);
 *  - OpenMP thread numbers: the process's main thread is 0 (the master of
 *    every region), the others by increasing OS thread id (libgomp starts
 *    its workers in order).
 */
#ifndef NUNATAK_ANALYSIS_OPENMP_H
#define NUNATAK_ANALYSIS_OPENMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct omp_thread {
	int thread;        /* OpenMP thread number */
	int64_t locus;
	double work_ns, wait_ns;
	bool wait_split;   /* wait_ns is its share of a wait no frame tied to a region
			    * (split by the imbalance: estimated) */
};

struct omp_region {
	char *name;        /* outlined function (owned) */
	const char *file;  /* borrowed from the pivot, or NULL */
	int line;          /* 0 when unknown */
	bool pragma;       /* line is the `#pragma omp parallel`'s (else its code's lowest sampled line) */
	double time_ns;    /* max over threads of work + wait */
	struct omp_thread *threads;
	size_t nr_threads, cap_threads;
	const struct omp_site *first; /* OMPT: the region's first row (borrowed) */
};

/* Under MPI, one rank's threads over all regions (rank x thread, issue 23
 * item 4): their time in regions and the part waiting, beside the rank's
 * time in MPI calls, so a rank whose threads are imbalanced reads apart
 * from a rank that waits in MPI. */
struct omp_rank {
	int rank;
	int nr_threads;
	double threads_time_ns, threads_wait_ns; /* sums over the rank's threads */
	int worst_thread;                        /* highest wait share, its OpenMP number */
	double worst_share;
	bool mpi_known;                          /* the MPI probe measured the rank */
	bool mpi_estimated;                      /* ... up to its last flush only */
	double mpi_time_ns, mpi_wall_ns;
};

struct omp_view {
	const char *runtime; /* "libgomp", "libomp", or NULL: no OpenMP runtime seen */
	bool ompt;           /* measured by nunatak's OMPT tool (the pivot's omp_sites): a
			      * region is its fork's call site, name its forking function,
			      * line that of the call (the pragma's); thread its OpenMP
			      * number in the team; work = implicit task - wait, exact */
	bool wait_measured;  /* the scheduler's stacks were there (blocked waits seen) */
	bool wait_split;     /* some thread's wait was split between regions */
	/* the Run took the stacks of blocking switch-outs only
	 * (ingest/switches.h TIME_PREEMPTED_UNSTACKED_COUNTER): the regions'
	 * threads' preempted time without a stack (sched_yield, a preemption of
	 * user code), spread over each thread's work and wait in proportion
	 * to them (estimated) */
	double unstacked_ns;
	struct omp_region *regions;
	size_t nr_regions;
	struct omp_rank *ranks; /* by rank; empty outside MPI */
	size_t nr_ranks;
};

/* With omp_sites in the pivot (the OMPT tool's), the view is theirs and
 * time_base is not needed; else the frames' as above.
 * 0 or -ENOMEM; release with omp_view__release() (also on failure). */
int omp_view_build(const struct pivot *p, const char *time_base, struct omp_view *v);
void omp_view__release(struct omp_view *v);
bool omp_is_runtime_module(const char *module);
/* "libgomp", "libomp" (LLVM's, also as libomp5/libiomp5), or NULL. */
const char *omp_runtime_of(const char *module);

#endif
