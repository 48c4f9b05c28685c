// SPDX-License-Identifier: BSD-3-Clause
/*
 * A deliberately imbalanced MPI program: rank 0 does three times the work of
 * every other rank in work_units(), then all ranks wait in MPI_Barrier. The
 * profile must show work_units() at ~3x on rank 0 against the others, and
 * the others' missing time spent inside the MPI runtime.
 *
 * usage: mpi_imbalance [units] [exit_code] [exit_rank]
 *   units      work units of a light rank (default 40; rank 0 does 3x)
 *   exit_code  exit code of rank exit_rank after MPI_Finalize (default 0)
 *   exit_rank  the rank that exits with exit_code (default: the last one)
 *
 * Built a second time with -DSP_ENABLE (mpi_imbalance_regions) it records
 * scope_profiler regions, one trace per rank:
 *   compute        1 call per rank   (work_units: 3x longer on rank 0)
 *   barrier        1 call per rank   (the light ranks wait here)
 *   reduce         1 call per rank
 * Without SP_ENABLE the SP_* macros compile to nothing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <scope_profiler.h>

/* One unit is a fixed number of dependent floating-point steps, so its cost
 * is the same on every rank and cannot be vectorised away. */
__attribute__((noinline)) static double work_units(long units)
{
	double x = 1.0;
	for (long u = 0; u < units; u++)
		for (long i = 0; i < 1000000; i++)
			x = x * 1.0000001 + 1e-9;
	return x;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 40;
	int exit_code = argc > 2 ? atoi(argv[2]) : 0;
	MPI_Init(&argc, &argv);
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int exit_rank = argc > 3 ? atoi(argv[3]) : size - 1;

	SP_BEGIN(compute, "compute");
	double x = work_units(rank == 0 ? 3 * units : units);
	SP_END(compute);
	SP_BEGIN(barrier, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	SP_END(barrier);

	double sum = 0.0;
	SP_BEGIN(reduce, "reduce");
	MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	SP_END(reduce);
	if (rank == 0)
		printf("mpi_imbalance: %d ranks, rank 0 did 3x%ld units, checksum %.6f\n", size,
		       units, sum);
	MPI_Finalize();
	return rank == exit_rank ? exit_code : 0;
}
