/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `--mpi-skip` / `mpi.skip`: MPI functions nunatak's PMPI probe forwards
 * without measuring them, for codes where the probe's own cost is large
 * (the summary names those calls, docs/mpi.md). The list reaches each rank's
 * probe as NUNATAK_MPI_SKIP (collect/rank_shim.h); the probe writes the
 * functions it left out into its profile, and ingestion states the rank's
 * MPI time as estimated, those calls missing from it.
 */
#ifndef NUNATAK_MPI_SKIP_H
#define NUNATAK_MPI_SKIP_H

#include <stdbool.h>

/* True for "MPI_Name[,MPI_Name...]": each name MPI_ then letters, digits
 * and underscores, at most 64 names, none empty. */
bool mpi_skip_valid(const char *list);

#endif
