// SPDX-License-Identifier: BSD-3-Clause
/* Who talks to whom, with traffic known in advance (tests/e2e/mpi_talk.sh):
 *  1. a ring on MPI_COMM_WORLD: rank r sends 3 messages of 1000 (r + 1)
 *     bytes to r + 1 (MPI_Isend, MPI_Recv of MPI_ANY_SOURCE, MPI_Wait);
 *     after a barrier, rank 1 sleeps 300 ms first, so rank 2 waits for it in
 *     its first MPI_Recv;
 *  2. by parity (MPI_Comm_split, key r): each rank sends 500 bytes to the
 *     next of its sub-communicator with MPI_Sendrecv;
 *  3. on a duplicate of MPI_COMM_WORLD: rank 0 sends 7777 bytes to the last
 *     rank with MPI_Ssend;
 *  4. both freed, then split again in reverse order (key -r): sub-rank 0 (the
 *     highest rank) sends 300 bytes to sub-rank 1 (MPI_Send / MPI_Recv). A
 *     stale rank translation of a reused handle would place it wrongly.
 * Prints "talk ok" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static char buf[16384], in[16384];

static void ring(int rank, int n)
{
	int to = (rank + 1) % n, len = 1000 * (rank + 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		struct timespec ts = {0, 300000000};
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < 3; i++) {
		MPI_Request rq;
		MPI_Isend(buf, len, MPI_BYTE, to, 1, MPI_COMM_WORLD, &rq);
		MPI_Recv(in, (int)sizeof(in), MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
}

int main(int argc, char **argv)
{
	int rank, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	memset(buf, 7, sizeof(buf));
	ring(rank, n);

	MPI_Comm half, dup, back;
	int k, m;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Comm_rank(half, &k);
	MPI_Comm_size(half, &m);
	MPI_Sendrecv(buf, 500, MPI_BYTE, (k + 1) % m, 2, in, 500, MPI_BYTE, (k + m - 1) % m, 2, half,
		     MPI_STATUS_IGNORE);

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	if (rank == 0)
		MPI_Ssend(buf, 7777, MPI_BYTE, n - 1, 3, dup);
	else if (rank == n - 1)
		MPI_Recv(in, 7777, MPI_BYTE, 0, 3, dup, MPI_STATUS_IGNORE);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &back);
	MPI_Comm_rank(back, &k);
	if (k == 0)
		MPI_Send(buf, 300, MPI_BYTE, 1, 4, back);
	else if (k == 1)
		MPI_Recv(in, 300, MPI_BYTE, 0, 4, back, MPI_STATUS_IGNORE);
	MPI_Comm_free(&back);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("talk ok\n");
	MPI_Finalize();
	return 0;
}
