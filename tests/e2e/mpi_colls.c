// SPDX-License-Identifier: BSD-3-Clause
/* Collectives with traffic known in advance (tests/e2e/mpi_colls.bash), on
 * any number of ranks n >= 2:
 *  1. MPI_COMM_WORLD: MPI_Bcast of 1000 ints from rank 1, twice; MPI_Allreduce
 *     of 256 doubles, 3 times; MPI_Alltoall of 100 ints to each member; MPI_Scan
 *     of one long long; MPI_Barrier;
 *  2. split by parity with key -rank (each half in reverse order): MPI_Bcast
 *     of 500 bytes from sub-rank 0 (the half's highest rank), MPI_Reduce of 64
 *     doubles to the last sub-rank (its lowest); then the split is freed before
 *     MPI_Finalize (its members must outlive the handle).
 * Prints "colls ok" on rank 0 when every result is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n, ok = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	int ints[1000];
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 1000; i++)
			ints[i] = rank == 1 ? i + k : -1;
		MPI_Bcast(ints, 1000, MPI_INT, 1, MPI_COMM_WORLD);
		ok &= ints[999] == 999 + k;
	}
	double v[256], sum[256];
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 256; i++)
			v[i] = rank + i;
		MPI_Allreduce(v, sum, 256, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		ok &= sum[0] == n * (n - 1) / 2.0;
	}
	int *out = malloc(sizeof(int) * 100 * (size_t)n), *in = malloc(sizeof(int) * 100 * (size_t)n);
	for (int i = 0; i < 100 * n; i++)
		out[i] = rank * 1000 + i / 100;
	MPI_Alltoall(out, 100, MPI_INT, in, 100, MPI_INT, MPI_COMM_WORLD);
	ok &= in[100 * (n - 1)] == (n - 1) * 1000 + rank;
	long long one = 1, pre = 0;
	MPI_Scan(&one, &pre, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	ok &= pre == rank + 1;
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Comm half;
	int hr, hn;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hn);
	char bytes[500];
	for (int i = 0; i < 500; i++)
		bytes[i] = hr == 0 ? (char)(rank + 1) : 0;
	MPI_Bcast(bytes, 500, MPI_BYTE, 0, half);
	int top = rank % 2 + 2 * ((n - 1 - rank % 2) / 2); /* the half's highest rank */
	ok &= bytes[499] == (char)(top + 1);
	double d[64], r[64];
	for (int i = 0; i < 64; i++)
		d[i] = 1;
	MPI_Reduce(d, r, 64, MPI_DOUBLE, MPI_SUM, hn - 1, half);
	if (hr == hn - 1)
		ok &= r[63] == hn;
	MPI_Comm_free(&half);

	int all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (rank == 0)
		printf(all ? "colls ok\n" : "colls WRONG\n");
	free(out);
	free(in);
	MPI_Finalize();
	return all ? 0 : 1;
}
