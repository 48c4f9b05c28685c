// SPDX-License-Identifier: BSD-3-Clause
/*
 * Cost of one MPI call, for bench/mpi/pmpi_overhead.sh: N calls of cheap
 * MPI functions in a single rank (MPI_Iprobe that finds nothing, MPI_Test of
 * a completed request, MPI_Barrier on MPI_COMM_SELF), timed on
 * CLOCK_MONOTONIC. Prints `<function> <ns per call>` per line.
 * usage: call_cost [N=1000000]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	MPI_Init(&argc, &argv);
	int flag = 0;
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
	printf("MPI_Iprobe %.1f\n", (now_ns() - t0) / n);
	MPI_Request req = MPI_REQUEST_NULL;
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	printf("MPI_Test %.1f\n", (now_ns() - t0) / n);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		MPI_Barrier(MPI_COMM_SELF);
	printf("MPI_Barrier(self) %.1f\n", (now_ns() - t0) / n);
	MPI_Finalize();
	return 0;
}
