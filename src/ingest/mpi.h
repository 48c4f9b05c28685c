/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ingestion of measured MPI time: each <collect>/rank-<N>/mpi-profile.txt
 * (ingest/mpi_profile.h) into the pivot, on the rank's Locus (node from its
 * rank.json, thread -1):
 *  - mpi_calls rows per MPI function, mpi_sites rows per call site (module +
 *    ELF virtual address, named later by attribution: mpi/sites.h), mpi_peers
 *    rows per point-to-point partner and direction;
 *  - Locus-level Measurements `mpi_time` (ns, Σ time in MPI calls) and
 *    `mpi_wall_time` (ns, MPI_Init's return to the profile's last write),
 *    `measured`, or `estimated` with the reason when the rank never reached
 *    MPI_Finalize (its figures stop at its last flush), or when polling
 *    calls were timed 1 in N and the others' time estimated;
 *  - per polling function (MPI_Test*, MPI_Iprobe...) not every call of
 *    which was timed, a Locus-level Measurement `mpi_polled:<function>`
 *    (the calls timed, unit "calls"): its time and its sites' are estimated;
 *  - the probe's own cost: `mpi_probe_overhead` (ns) and per function
 *    `mpi_probe_overhead:<function>`, estimated (its cost per call measured
 *    at MPI_Init times the calls); functions left out by `mpi skip` make
 *    `mpi_time` estimated (their calls are not in it);
 *  - Events (kind "mpi", attributes {"bytes", "peer"}), at most
 *    MPI_EVENTS_PER_RANK per rank and MPI_EVENTS_PER_RUN per Run (each rank
 *    then keeps its longest calls up to MPI_EVENTS_PER_RUN / ranks, never
 *    fewer than MPI_EVENTS_RANK_FLOOR).
 * Degradations, each declared once with the list of ranks:
 * `mpi-analysis-unavailable` (ranks that preloaded the library but left no
 * profile), `mpi-rank-unfinished`, `mpi-profile-unreadable`, `mpi-events-dropped`.
 */
#ifndef NUNATAK_INGEST_MPI_H
#define NUNATAK_INGEST_MPI_H

#include <stdbool.h>

struct pivot;
struct degradations;
struct err;

#define MPI_EVENTS_PER_RANK 16384 /* the library's own bound (12288 + 4096) */
#define MPI_EVENTS_PER_RUN 262144
#define MPI_EVENTS_RANK_FLOOR 256

struct mpi_ingest_summary {
	int nr_profiled;   /* ranks whose MPI profile was read */
	int nr_unfinished; /* of which never reached MPI_Finalize */
	int nr_expected;   /* ranks that preloaded the library */
	long nr_events;
};

/* Returns 0 (also without any profile), or -ENOMEM with e filled. */
int ingest_mpi(const char *collect_dir, int world_size, struct pivot *p,
	       struct degradations *d, struct mpi_ingest_summary *out, struct err *e);

#endif
