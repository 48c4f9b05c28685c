/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Run-level meeting of region traces and samples (regions/meet.h), after
 * attribution: reads every trace under <collect>/regions/ into
 * pivot.region_stats (per Locus = node, rank, thread and call path: calls,
 * inclusive and exclusive ns), then, when the sampled perf.data was recorded
 * on CLOCK_MONOTONIC, assigns each sample to the innermost open region of
 * its thread into pivot.region_samples. Otherwise the named degradation
 * `regions-not-aligned` says why.
 */
#ifndef NUNATAK_REGIONS_MEET_RUN_H
#define NUNATAK_REGIONS_MEET_RUN_H

#include <stdbool.h>
#include <stdint.h>

struct degradations;
struct err;
struct pivot;

struct meet_opts {
	const char *regions_dir; /* <collect>/regions */
	const char *collect_dir; /* MPI: <collect>/rank-<N>/perf.data per rank */
	const char *perf_data;   /* single process: its perf.data, NULL when none */
	bool mpi;                /* Loci carry the trace's rank (else rank -1) */
	const char *node;        /* hostname of a Locus no sampled rank names */
};

struct meet_summary {
	int nr_traces;        /* trace files read */
	int64_t nr_calls;     /* region calls reconstructed */
	int64_t nr_samples;   /* samples read from the perf.data files */
	int64_t nr_in_region; /* of which inside a region */
};

/* Returns 0 (also when there is no trace), or a negative errno with e filled
 * (a malformed trace, out of memory); the degradations go to d. */
int regions_meet_run(struct pivot *p, const struct meet_opts *o, struct degradations *d,
		     struct meet_summary *out, struct err *e);

#endif
