/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI compiler wrapper adapter (mpicc of Open MPI or MPICH, [tools]
 * mpicc): builds the argv of nunatak's PMPI probes (mpi/build.c), never
 * spawns. A shared library (the interposition library, preloaded into the
 * ranks) is `-O2 -fPIC -shared -o OUT SRC -ldl`; a program (the network
 * probe) `-O2 -o OUT SRC`.
 */
#ifndef NUNATAK_TOOLS_MPICC_H
#define NUNATAK_TOOLS_MPICC_H

#include <stdbool.h>

#define MPICC_ARGV_MAX 9 /* words of the longest argv, NULL included */

/* Fills argv (NULL-terminated, borrowing the strings). */
void mpicc_argv_build(const char *argv[MPICC_ARGV_MAX], const char *mpicc, bool shared,
		      const char *out, const char *src);

#endif
