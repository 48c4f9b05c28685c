/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C sources of nunatak's MPI probes, embedded at build time from
 * src/mpi/probe/ (src/mpi/embed_sources.cmake): the PMPI interposition
 * library (nunatak_mpi.c and the .inc files it includes) and the network
 * ping-pong (pingpong.c). They are compiled on the target by the Run's mpicc
 * (mpi/build.h), never by nunatak's own build.
 */
#ifndef NUNATAK_MPI_PROBE_SOURCES_H
#define NUNATAK_MPI_PROBE_SOURCES_H

#include <stddef.h>

struct mpi_probe_source {
	const char *name; /* file name, e.g. "nunatak_mpi.c" */
	const char *text;
	size_t len;
};

extern const struct mpi_probe_source mpi_probe_sources[];
extern const size_t nr_mpi_probe_sources;

#endif
