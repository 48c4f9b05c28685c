/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rank imbalance and MPI share (REFERENCE.md §6), a pure function of the
 * pivot and the world size the launch announced.
 *
 * A rank's time is its counted task-clock (the counting layer, a Locus-level
 * Measurement), else the sum of its time-base samples. Rank imbalance =
 * busiest rank's time / mean over the ranks that have a time. Ranks wait
 * for each other inside the MPI runtime, and Open MPI, MPICH and friends
 * wait by polling: a waiting rank burns as much CPU as a working one, so
 * imbalance on total time reads ~1 for a badly imbalanced code. The share
 * of each sampled rank's samples whose module is the MPI runtime (libmpi,
 * libopen-pal, UCX, libfabric, mca_* components, ...) is therefore split
 * off, and imbalance is computed on application time as well: user code
 * outside the MPI runtime and outside the kernel, because a rank waiting
 * with sched_yield (Open MPI when oversubscribed) spends that wait in the
 * kernel's context switch, and without call stacks a kernel sample cannot be
 * told apart from a system call of the application. The verdict uses
 * application time when at least two ranks were sampled and MPI plus kernel
 * hold a noticeable share (IMBALANCE_MPI_SIGNIFICANT); otherwise total time.
 * `basis` says which one was used; report/ranks_view.h renders both.
 */
#ifndef NUNATAK_ANALYSIS_IMBALANCE_H
#define NUNATAK_ANALYSIS_IMBALANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/mpi_view.h"
#include "model/model.h"


#define IMBALANCE_RATIO 2.0            /* classification `imbalance` at or above */
#define IMBALANCE_MPI_SIGNIFICANT 0.05 /* MPI share above which app time decides */

struct rank_row {
	int rank;
	const char *node;     /* borrowed from the pivot; NULL when the rank left nothing */
	bool present;         /* the rank left a Locus in the pivot */
	bool sampled;         /* it has Hotspot-level samples */
	bool counted;         /* it has a counted (Locus-level) task-clock */
	double time_ns;       /* counted task-clock, else Σ samples; NaN unavailable */
	const char *time_source; /* "counted task-clock", "samples", or NULL */
	double app_ns;        /* Σ samples in user code outside MPI; NaN when not sampled */
	double app_interposed_ns; /* time_ns x the share of wall clock outside MPI calls
				     (interposition), set only when some ranks were
				     only counted; else NaN */
	double mpi_ns;        /* Σ samples in the MPI runtime; NaN when not sampled */
	double sys_ns;        /* Σ samples in the kernel and pseudo-modules ([vdso],
				 [unknown]); NaN when not sampled */
	int64_t samples;      /* time-base samples, 0 when not sampled */
	int nr_threads;       /* application thread Loci with samples */
	int nr_helpers;       /* MPI runtime helper threads, sampled or not (analysis/threads.h) */
};

/* A node (Slurm's name, else the host's) and its ranks: node > rank > thread. */
struct node_row {
	const char *node;  /* borrowed from the pivot */
	int nr_ranks;      /* ranks on it that left something */
	int nr_valued;     /* of those, ranks with a value on the verdict's basis */
	double time_ns;    /* Σ rank time (total), NaN when no rank has one */
	double value_ns;   /* Σ rank value on the verdict's basis, NaN when none */
};

enum imbalance_reason {
	IMBALANCE_REASON_NONE = 0,
	IMBALANCE_REASON_TOO_FEW,      /* fewer than two ranks have a time: unavailable */
	IMBALANCE_REASON_SAMPLED_SUBSET, /* application time over the sampled ranks only */
	IMBALANCE_REASON_TIMED_SUBSET, /* total time over the ranks that have one */
	IMBALANCE_REASON_MIXED_CLOCKS, /* counted task-clock on reason_n ranks, sampled on the others */
	IMBALANCE_REASON_INTERPOSED,   /* reason_n of reason_of ranks only counted: CPU time x
					  the share of wall clock outside MPI calls */
	IMBALANCE_REASON_WORLD_UNBELIEVABLE, /* the manifest announces reason_n ranks for
						 reason_of Loci: the size is ignored */
	IMBALANCE_REASON_RANK_UNBELIEVABLE,  /* a Locus of rank reason_n among reason_of
						 Loci: no rank view */
	IMBALANCE_REASON_SEPARATE_WORLDS,    /* the ranks' own MPI worlds hold reason_n
						 ranks, the launch reason_of: separate
						 worlds, no imbalance across them */
};

enum imbalance_basis {
	IMBALANCE_BASIS_TOTAL = 0,       /* total time */
	IMBALANCE_BASIS_APP,             /* user code outside the MPI runtime and the kernel */
	IMBALANCE_BASIS_APP_INTERPOSED,  /* CPU time outside the MPI calls measured by interposition */
};

struct rank_imbalance {
	struct rank_row *rows; /* by rank; includes ranks the world size announced */
	size_t nr_rows;
	int world_size;        /* announced, -1 unknown */
	int nr_present, nr_sampled, nr_counted;
	int nr_threads;         /* application thread Loci with samples, over all ranks */
	int nr_helpers;         /* MPI runtime helper threads seen, counted apart */
	double helper_fraction; /* their share of the sampled time; NaN without samples */
	const char *time_base; /* the samples' time-base counter, borrowed, or NULL */

	double total_imbalance; /* busiest / mean on total time; NaN unavailable */
	int total_busiest;
	double app_imbalance;   /* busiest / mean on app time, sampled ranks; NaN */
	int app_busiest;
	double mpi_fraction;    /* Σ mpi / Σ all samples, over sampled ranks; NaN (the
				   sampled estimate: it decides the verdict's basis) */
	double mpi_measured;    /* Σ mpi_time / Σ mpi_wall_time over ranks measured by
				   interposition; NaN when none was */
	struct mpi_view mpi;    /* measured MPI time per rank and call (owned) */
	const struct pivot *pivot; /* borrowed: what the rows were computed from */
	double sys_fraction;    /* Σ sys / Σ all samples, over sampled ranks; NaN */

	bool periods_exact;     /* ranks counted and ranks sampled mix, and the sampled
				   ones' time is their task-clock samples' periods:
				   the same count, short of one period a thread */
	struct node_row *nodes; /* in order of their lowest rank (owned) */
	size_t nr_nodes;
	double node_imbalance;  /* busiest node's value / mean node value, on the
				   verdict's basis; NaN below two nodes with a value */
	int busiest_node;       /* index in nodes, -1 unavailable */
	double imbalance;       /* the verdict's value (one of the two above); NaN */
	int busiest_rank;       /* -1 when unavailable */
	enum imbalance_basis basis; /* what the verdict was measured on */
	enum quality quality;
	/* Why the verdict is downgraded (report/ranks_view.c words it): over
	 * reason_n of reason_of ranks. IMBALANCE_REASON_NONE when measured. */
	enum imbalance_reason reason;
	int reason_n, reason_of;
	/* The ranks' own MPI_COMM_WORLD size (Locus-level `mpi_world_size`, from
	 * the MPI probe), when smaller than the ranks the launch numbered: they
	 * ran as separate worlds of this size (an MPICH program under Open MPI's
	 * mpirun: N singletons), not one job; 0 otherwise. own_worlds: how many
	 * (the rows / own_world_size, rounded up); own_reporting: the ranks whose
	 * probe said so. No imbalance is computed across separate worlds. */
	int own_world_size, own_worlds, own_reporting;
};

/*
 * Computes the rank view of p. world_size (-1 unknown) adds rows for the
 * announced ranks that left nothing. Returns 0 with ri->nr_rows == 0 for a
 * Run without ranks, or -ENOMEM. Release with rank_imbalance__release().
 */
int imbalance_ranks(const struct pivot *p, int world_size, struct rank_imbalance *ri);

/* The ranks' own MPI_COMM_WORLD size (`mpi_world_size`) when smaller than
 * nr_ranks, the ranks the launch numbered (-1: the highest rank of a Locus
 * + 1): they ran as separate worlds of that size. 0 otherwise. *reporting
 * (may be NULL) gets how many ranks said a smaller size. */
int imbalance_own_world(const struct pivot *p, long nr_ranks, int *reporting);
void rank_imbalance__release(struct rank_imbalance *ri);

#endif
