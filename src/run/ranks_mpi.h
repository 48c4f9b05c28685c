/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI measurement around a rank launch (docs/mpi.md "Measured MPI time"):
 * before the application, identify the MPI stack (`<launcher> --version`),
 * build or reuse nunatak's probes with the matching mpicc (mpi/build.h), run
 * the network ping-pong with the Run's own launcher prefix (network Ceilings
 * into the Machine), and hand the interposition library to the rank shim.
 * Whatever fails degrades `mpi-analysis-unavailable` (interposition) or
 * `network-ceilings-unavailable` (probe), announced before the launch, with
 * the reason and the remedy; the application runs regardless.
 */
#ifndef NUNATAK_RUN_RANKS_MPI_H
#define NUNATAK_RUN_RANKS_MPI_H

struct run_state;
struct err;

/* Returns the library the ranks preload (caller frees), or NULL when MPI
 * calls cannot be measured (degradation added). *e only for nunatak's own
 * failures (out of memory), which also return NULL. */
char *collect_mpi_prepare(struct run_state *s, struct err *e);

#endif
