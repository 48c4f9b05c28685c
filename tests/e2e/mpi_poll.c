// SPDX-License-Identifier: BSD-3-Clause
/*
 * A polling MPI program for tests/e2e/mpi_poll.sh (2 ranks). Rank 1 posts a
 * receive and polls it with MPI_Test, counting its calls; after `min` calls
 * it tells rank 0 (a small send), which then sends the awaited message. So
 * rank 1 polls at least `min` times whatever the load, and prints the exact
 * count: "rank 1 tests N". Rank 0 waits in MPI_Recv.
 * usage: mpi_poll [min=5000000]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long min = argc > 1 ? atol(argv[1]) : 5000000;
	int rank = 0, size = 1, ping = 1, data = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "mpi_poll: run me with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0) {
		MPI_Recv(&ping, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		data = 42;
		MPI_Send(&data, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
	} else {
		MPI_Request req;
		long calls = 0;
		int flag = 0;
		MPI_Irecv(&data, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
		while (!flag) {
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE); /* TEST_LINE */
			if (++calls == min)
				MPI_Send(&ping, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		}
		printf("rank 1 tests %ld data %d\n", calls, data);
	}
	MPI_Finalize();
	return 0;
}
