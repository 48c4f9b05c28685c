// SPDX-License-Identifier: BSD-3-Clause
// An MPI program whose output and exit status a launch must keep: each rank
// prints its rank and the world size; rank 0 of a world of several ranks
// exits with argv[1] after MPI_Finalize (tests/e2e/mpi_pairings.sh). Under a
// launcher of another MPI each process is a world of its own: all exit 0, as
// a non-zero one would make the launcher kill the others, maybe before
// they printed.
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
	return rank == 0 && size > 1 && argc > 1 ? atoi(argv[1]) : 0;
}
