// SPDX-License-Identifier: BSD-3-Clause
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* A small halo-exchange solver: compute, then exchange with both ring neighbours. */
static double work(long n, int rank)
{
	double s = 0;
	for (long i = 1; i < n; i++)
		s += 1.0 / ((double)i * (rank + 1) + 0.5);
	return s;
}
int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	double halo[512] = {0}, in[512];
	double s = 0;
	for (int it = 0; it < 20; it++) {
		s += work(n / 20, rank);
		MPI_Sendrecv(halo, 512, MPI_DOUBLE, (rank + 1) % size, 0, in, 512, MPI_DOUBLE,
			     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("sum %g\n", s);
	MPI_Finalize();
	return 0;
}
