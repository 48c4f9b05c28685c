/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Builds nunatak's MPI probes on the target with the Run's mpicc, through the
 * execution boundary, into $XDG_CACHE_HOME/nunatak/probes/<stack key>/:
 *   libnunatak-mpi-v<N>.so  mpicc -O2 -fPIC -shared -o ... nunatak_mpi.c -ldl
 *   pingpong-v<N>           mpicc -O2 -o ... pingpong.c
 * The embedded sources are (re)written only when they differ from the cached
 * ones, and an output is reused only when its seal (common/cache_home.h)
 * matches what it was built from and its bytes, and it is ours: a second Run
 * on the same stack compiles nothing, and a library another user put there
 * (or changed) is rebuilt, never preloaded. Outputs are built under a
 * temporary name and renamed, so concurrent Runs never load a half-written
 * library.
 */
#ifndef NUNATAK_MPI_BUILD_H
#define NUNATAK_MPI_BUILD_H

#include <stdbool.h>

struct executor;
struct err;
struct mpi_stack;

#define MPI_PROBES_VERSION 1

struct mpi_probes {
	char *dir;      /* the stack's probes folder */
	char *lib;      /* the interposition library, NULL when it could not be built */
	char *pingpong; /* the network probe, NULL when it could not be built */
	char *reason;   /* why something is missing (first failure), NULL when all built */
	bool built;     /* something was compiled now (not all from the cache) */
};

/* Writes the sources and builds what is missing. Returns 0 with whatever could
 * be built (out->reason says why the rest could not), or -ENOMEM / executor
 * failure in e. Release with mpi_probes__release(). */
int mpi_build(struct executor *x, const struct mpi_stack *st, const char *mpicc,
	      struct mpi_probes *out, struct err *e);
void mpi_probes__release(struct mpi_probes *p);

#endif
