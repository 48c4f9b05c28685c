// SPDX-License-Identifier: BSD-3-Clause
/*
 * The PMPI probe's cost per call, bare and probed in the same process:
 * with nunatak's probe preloaded (bench/mpi/probe_cost.sh), MPI_X goes
 * through the probe and PMPI_X straight to the MPI library. Blocks of N
 * calls of each alternate (bare first in even rounds, probed first in odd
 * ones) over R rounds; per function it prints the ns per call of each
 * (the fastest round: on a loaded machine the least disturbed, the closest
 * to the calls' own cost; and the median), the difference (the probe's cost)
 * and the ratio. Asserts nothing.
 *
 * The polling family runs as codes run it, nothing completing: MPI_Test and
 * MPI_Testany on pending receives (MPI_Irecv of a message never sent),
 * MPI_Iprobe finding nothing. Then cheap calls of the full path:
 * MPI_Wait on MPI_REQUEST_NULL, MPI_Barrier and MPI_Allreduce on
 * MPI_COMM_SELF.
 * usage: probe_cost [N=20000] [R=51]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NR_PENDING 4
#define MAX_ROUNDS 1000

static MPI_Request pending[NR_PENDING];

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* One block: n calls of function f, bare (PMPI) or probed (MPI). */
static double block(int f, int probed, long n)
{
	int flag = 0, index = 0, x = 1, y = 0;
	MPI_Request null = MPI_REQUEST_NULL;
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		switch (f * 2 + probed) {
		case 0: PMPI_Test(&pending[0], &flag, MPI_STATUS_IGNORE); break;
		case 1: MPI_Test(&pending[0], &flag, MPI_STATUS_IGNORE); break;
		case 2: PMPI_Testany(NR_PENDING, pending, &index, &flag, MPI_STATUS_IGNORE); break;
		case 3: MPI_Testany(NR_PENDING, pending, &index, &flag, MPI_STATUS_IGNORE); break;
		case 4: PMPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); break;
		case 5: MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); break;
		case 6: PMPI_Wait(&null, MPI_STATUS_IGNORE); break;
		case 7: MPI_Wait(&null, MPI_STATUS_IGNORE); break;
		case 8: PMPI_Barrier(MPI_COMM_SELF); break;
		case 9: MPI_Barrier(MPI_COMM_SELF); break;
		case 10: PMPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF); break;
		default: MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF); break;
		}
	}
	if (flag && f < 2) {
		fprintf(stderr, "probe_cost: a pending receive completed\n");
		exit(1);
	}
	return (now_ns() - t0) / (double)n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"MPI_Test (pending)", "MPI_Testany (4 pending)",
					    "MPI_Iprobe (nothing)", "MPI_Wait (null request)",
					    "MPI_Barrier (self)", "MPI_Allreduce (self, 1 int)"};
	enum { NR = sizeof(names) / sizeof(names[0]) };
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int rounds = argc > 2 ? atoi(argv[2]) : 51;
	if (n < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: probe_cost [calls per block >= 1] [rounds 1..%d]\n",
			MAX_ROUNDS);
		return 2;
	}
	MPI_Init(&argc, &argv);
	static char buf[NR_PENDING];
	for (int i = 0; i < NR_PENDING; i++)
		MPI_Irecv(&buf[i], 1, MPI_CHAR, 0, 1000 + i, MPI_COMM_SELF, &pending[i]);
	static double t[NR][2][MAX_ROUNDS];
	for (int r = 0; r < rounds; r++)
		for (int f = 0; f < NR; f++)
			for (int k = 0; k < 2; k++) {
				int probed = (k + r) % 2;
				t[f][probed][r] = block(f, probed, n);
			}
	printf("%ld calls per block, %d interleaved rounds (bare: PMPI_*, probed: MPI_* through "
	       "nunatak's probe); fastest round, then median\n", n, rounds);
	for (int f = 0; f < NR; f++) {
		double b = median(t[f][0], rounds), p = median(t[f][1], rounds);
		double bmin = t[f][0][0], pmin = t[f][1][0]; /* sorted by median() */
		printf("  %-28s bare %6.1f probed %6.1f ns/call: probe %+5.1f ns/call, ratio %.2f"
		       "  (median: %.1f, %.1f, %+.1f, %.2f)\n", names[f], bmin, pmin, pmin - bmin,
		       pmin / bmin, b, p, p - b, p / b);
	}
	for (int i = 0; i < NR_PENDING; i++) {
		MPI_Cancel(&pending[i]);
		MPI_Wait(&pending[i], MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
