// SPDX-License-Identifier: BSD-3-Clause
// An MPI program whose output and exit status a launch must keep: each rank
// prints its rank and the world size; rank 0 exits with argv[1] after
// MPI_Finalize (tests/e2e/mpi_pairings.sh).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	printf("rank %d of %d says hello\n", rank, size);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return rank == 0 && argc > 1 ? atoi(argv[1]) : 0;
}
