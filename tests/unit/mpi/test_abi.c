// SPDX-License-Identifier: BSD-3-Clause
// The MPI an application links, read from ldd's answer (mpi/abi.h): the
// outputs below are Debian 12's for Open MPI, MPICH and LAMMPS-like programs.
#include "harness.h"

#include "mpi/abi.h"

#include <string.h>

static void t_openmpi(void)
{
	const char *ldd = "\tlinux-vdso.so.1 (0x00007ffd)\n"
			  "\tlibmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40 (0x00007f40c2660000)\n"
			  "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f40c2400000)\n"
			  "\tlibopen-rte.so.40 => /lib/x86_64-linux-gnu/libopen-rte.so.40 (0x1)\n"
			  "\t/lib64/ld-linux-x86-64.so.2 (0x00007f40c28b0000)\n";
	struct mpi_abi a;
	CHECK_INT(mpi_abi_from_ldd(ldd, &a), MPI_ABI_FOUND);
	CHECK_STR(a.soname, "libmpi.so.40");
	CHECK_STR(a.path, "/lib/x86_64-linux-gnu/libmpi.so.40");
	CHECK_INT(a.family, MPI_FAMILY_OPENMPI);
	CHECK_STR(mpi_family_mpicc(a.family), "mpicc.openmpi");
}

static void t_mpich_fortran(void)
{
	/* the Fortran binding comes first: the C library is still the ABI */
	const char *ldd = "\tlibmpichfort.so.12 => /lib/x86_64-linux-gnu/libmpichfort.so.12 (0x1)\n"
			  "\tlibmpich.so.12 => /lib/x86_64-linux-gnu/libmpich.so.12 (0x2)\n";
	struct mpi_abi a;
	CHECK_INT(mpi_abi_from_ldd(ldd, &a), MPI_ABI_FOUND);
	CHECK_STR(a.soname, "libmpich.so.12");
	CHECK_INT(a.family, MPI_FAMILY_MPICH);
	CHECK_STR(mpi_family_mpicc(a.family), "mpicc.mpich");
	CHECK_STR(mpi_family_name(a.family), "MPICH");
	CHECK(!a.f08); /* MPICH's f08 bindings live in libmpichfort too: the imports tell */
}

static void t_openmpi_f08(void)
{
	/* Debian 12's ldd of a `use mpi_f08` program built with mpifort.openmpi */
	const char *ldd = "\tlibmpi_usempif08.so.40 => /lib/x86_64-linux-gnu/libmpi_usempif08.so.40 (0x1)\n"
			  "\tlibmpi_mpifh.so.40 => /lib/x86_64-linux-gnu/libmpi_mpifh.so.40 (0x2)\n"
			  "\tlibmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40 (0x3)\n";
	struct mpi_abi a;
	CHECK_INT(mpi_abi_from_ldd(ldd, &a), MPI_ABI_FOUND);
	CHECK_STR(a.soname, "libmpi.so.40");
	CHECK(a.f08);
	/* `use mpi`: no f08 library */
	CHECK_INT(mpi_abi_from_ldd(strstr(ldd, "\tlibmpi_mpifh"), &a), MPI_ABI_FOUND);
	CHECK(!a.f08);
}

static void t_indirect_and_missing(void)
{
	/* LAMMPS: MPI through liblammps; ldd lists it all the same */
	const char *ldd = "\tliblammps.so.0 => /lib/x86_64-linux-gnu/liblammps.so.0 (0x1)\n"
			  "\tlibmpi_mpifh.so.40 => not found\n"
			  "\tlibmpi.so.40 => not found\n";
	struct mpi_abi a;
	CHECK_INT(mpi_abi_from_ldd(ldd, &a), MPI_ABI_FOUND);
	CHECK_STR(a.soname, "libmpi.so.40");
	CHECK_STR(a.path, ""); /* the loader cannot resolve it */
	const char *intel = "\tlibmpifort.so.12 => /opt/intel/lib/libmpifort.so.12 (0x1)\n"
			    "\tlibmpi.so.12 => /opt/intel/lib/release/libmpi.so.12 (0x2)\n";
	CHECK_INT(mpi_abi_from_ldd(intel, &a), MPI_ABI_FOUND);
	CHECK_STR(a.soname, "libmpi.so.12");
	CHECK_INT(a.family, MPI_FAMILY_MPICH); /* the MPICH ABI */
	const char *other = "\tlibmpi.so.99 => /opt/x/libmpi.so.99 (0x2)\n";
	CHECK_INT(mpi_abi_from_ldd(other, &a), MPI_ABI_FOUND);
	CHECK_INT(a.family, MPI_FAMILY_UNKNOWN);
	CHECK(mpi_family_mpicc(a.family) == NULL);
}

static void t_none(void)
{
	struct mpi_abi a;
	const char *plain = "\tlinux-vdso.so.1 (0x00007ffd)\n"
			    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x1)\n"
			    "\tlibmpfr.so.6 => /lib/x86_64-linux-gnu/libmpfr.so.6 (0x1)\n";
	CHECK_INT(mpi_abi_from_ldd(plain, &a), MPI_ABI_NONE);
	CHECK_INT(mpi_abi_from_ldd("\tnot a dynamic executable\n", &a), MPI_ABI_NOT_DYNAMIC);
	CHECK_INT(mpi_abi_from_ldd("\tstatically linked\n", &a), MPI_ABI_NOT_DYNAMIC);
	CHECK_INT(mpi_abi_from_ldd("", &a), MPI_ABI_NOT_DYNAMIC);
	CHECK_INT(mpi_abi_from_ldd(NULL, &a), MPI_ABI_NOT_DYNAMIC);
	CHECK_INT(mpi_family_of_impl("Open MPI"), MPI_FAMILY_OPENMPI);
	CHECK_INT(mpi_family_of_impl("MPICH"), MPI_FAMILY_MPICH);
	CHECK_INT(mpi_family_of_impl("unknown"), MPI_FAMILY_UNKNOWN);
}

static const struct test_case cases[] = {
	{"openmpi", "an Open MPI program: libmpi.so.40, mpicc.openmpi", t_openmpi},
	{"mpich_fortran", "an MPICH Fortran program: the C library is the ABI", t_mpich_fortran},
	{"indirect_and_missing", "MPI through another library, unresolved, Intel's", t_indirect_and_missing},
	{"none", "no MPI, not dynamic, empty", t_none},
	{"openmpi_f08", "Open MPI's mpi_f08 bindings among the resolved libraries", t_openmpi_f08},
};
TEST_MAIN(cases)
