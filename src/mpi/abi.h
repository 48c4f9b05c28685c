/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI library an application links (issue 22 item 1): nunatak's probes
 * are built for it and for nothing else, never from the launcher's name. The
 * answer comes from what the dynamic loader resolves for the application
 * (`ldd <app>`, through the execution boundary: it lists direct and indirect
 * dependencies, so a program reaching MPI through its own library - Debian's
 * LAMMPS - is seen too). The MPI ABI is the soname:
 *   libmpi.so.40 (and .20)          Open MPI   -> mpicc.openmpi
 *   libmpich.so.12, libmpi.so.12    MPICH ABI  -> mpicc.mpich
 * Any other libmpi*.so / libmpich*.so is an MPI of unknown family: only a
 * configured tools.mpicc may build for it, and only when the probe it builds
 * links the same soname (mpi_abi_from_ldd on the probe). Pure parsing here;
 * the caller runs ldd.
 */
#ifndef NUNATAK_MPI_ABI_H
#define NUNATAK_MPI_ABI_H

#include <stdbool.h>

enum mpi_family { MPI_FAMILY_UNKNOWN = 0, MPI_FAMILY_OPENMPI, MPI_FAMILY_MPICH };

struct mpi_abi {
	char soname[64]; /* "libmpi.so.40" */
	char path[512];  /* what the loader resolved it to, "" when "not found" */
	enum mpi_family family;
	bool f08; /* the loader also resolves Open MPI's mpi_f08 bindings (libmpi_usempif08) */
};

/* What `ldd` said. */
enum mpi_abi_status {
	MPI_ABI_FOUND = 0,   /* *out filled */
	MPI_ABI_NONE,        /* a dynamic program that links no MPI library */
	MPI_ABI_NOT_DYNAMIC, /* a script, a static program, not an ELF program */
};

/* Parses ldd's output (stdout and stderr concatenated are fine). The C MPI
 * library is preferred over language bindings (libmpi_mpifh, libmpichfort).
 * Never fails. */
enum mpi_abi_status mpi_abi_from_ldd(const char *text, struct mpi_abi *out);

/* "Open MPI", "MPICH", "unknown". */
const char *mpi_family_name(enum mpi_family f);
/* The family's Debian compiler wrapper ("mpicc.openmpi", "mpicc.mpich"), or
 * NULL for an unknown family. */
const char *mpi_family_mpicc(enum mpi_family f);
/* The family of a launcher's implementation name as mpi_stack_parse_version
 * gives it ("Open MPI", "MPICH", other: unknown). */
enum mpi_family mpi_family_of_impl(const char *impl);

#endif
