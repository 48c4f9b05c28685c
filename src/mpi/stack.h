/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI stack a Run launches with, and the MPI compiler wrapper that
 * matches it (REFERENCE.md §5 "Network probe"): the launcher's `--version`
 * names the implementation (Open MPI; MPICH's Hydra; else unknown), and the
 * probes cache key is sha256("impl|version|mpicc")[:16], so every stack has
 * its own compiled probes under $XDG_CACHE_HOME/nunatak/probes/<key>/.
 *
 * mpicc: `tools.mpicc` when configured; otherwise the wrapper that goes with
 * the launcher - the same Debian alternative suffix (mpirun.mpich ->
 * mpicc.mpich, mpiexec.openmpi -> mpicc.openmpi), or the `mpicc` beside a
 * launcher given by path - and else `mpicc` from PATH. Pure functions: the
 * caller runs the commands through the execution boundary.
 */
#ifndef NUNATAK_MPI_STACK_H
#define NUNATAK_MPI_STACK_H

#include <stddef.h>

struct mpi_stack {
	char impl[32];    /* "Open MPI", "MPICH", "unknown" */
	char version[64]; /* "4.1.4", or "" when the output names none */
	char key[17];     /* probes cache key (hex) */
};

/* Parses a launcher's `--version` output:
 *   "mpirun (Open MPI) 4.1.4"                       Open MPI
 *   "HYDRA build details:\n    Version:  4.0.2"     MPICH (Hydra)
 * anything else is "unknown". Never fails. */
void mpi_stack_parse_version(const char *text, struct mpi_stack *st);

/* Fills st->key from impl, version and the mpicc path. */
void mpi_stack_key(struct mpi_stack *st, const char *mpicc);

/* The mpicc to use for a launcher (argv[0] as the user wrote it): configured
 * wins when it differs from the conventional "mpicc". Caller frees; NULL on
 * ENOMEM. */
char *mpi_stack_mpicc(const char *launcher, const char *configured);

#endif
