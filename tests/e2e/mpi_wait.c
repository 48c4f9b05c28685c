// SPDX-License-Identifier: BSD-3-Clause
/*
 * The MPI measurement test program (tests/e2e/mpi_measured.sh). Rank 0 works
 * three units, every other rank one unit (a unit is UNIT_MS of busy spinning
 * on CLOCK_MONOTONIC, so it lasts the same on a loaded machine), then all
 * meet in MPI_Barrier, which each rank times itself and prints:
 *   rank R barrier_ns N
 * Then rank 0 sends rank 1 exactly 1000 MPI_BYTEs and 7 MPI_DOUBLEs (1056
 * bytes) into larger buffers, which rank 1 receives with MPI_STATUS_IGNORE.
 *
 * usage: mpi_wait UNIT_MS [kill]
 *   kill: rank 1 waits until rank 0 has written its final profile (the
 *         file beside its own NUNATAK_MPI_PROFILE, rank-0 for rank-1: the
 *         launcher kills the other ranks when one dies, and a loaded
 *         machine may not have run rank 0 that far yet), makes one more MPI
 *         call after 0.4 s (its profile flushes when NUNATAK_MPI_FLUSH_MS is
 *         shorter), then kills itself with SIGKILL before MPI_Finalize.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin_ms(long ms)
{
	long long end = now_ns() + ms * 1000000LL;
	volatile double x = 1.0;
	while (now_ns() < end)
		x = x * 1.0000001 + 1e-9;
}

static void wait_rank0_final(void)
{
	const char *mine = getenv("NUNATAK_MPI_PROFILE");
	const char *at = mine ? strstr(mine, "/rank-1/") : NULL;
	if (!at)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%.*s/rank-0/%s", (int)(at - mine), mine, at + 8);
	for (int i = 0; i < 600; i++) { /* at most 60 s */
		char line[256];
		FILE *f = fopen(path, "r");
		int final = 0;
		while (f && fgets(line, sizeof(line), f))
			final |= strcmp(line, "state\tfinalized\n") == 0;
		if (f)
			fclose(f);
		if (final)
			return;
		usleep(100000);
	}
}

int main(int argc, char **argv)
{
	long unit = argc > 1 ? atol(argv[1]) : 200;
	int kill_mode = argc > 2 && strcmp(argv[2], "kill") == 0;
	int rank = 0, size = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	spin_ms(rank == 0 ? 3 * unit : unit);
	long long t0 = now_ns();
	MPI_Barrier(MPI_COMM_WORLD); /* BARRIER_LINE */
	long long t1 = now_ns();
	printf("rank %d barrier_ns %lld\n", rank, t1 - t0);
	fflush(stdout);
	static char buf[8192];
	if (size > 1 && rank == 0) {
		MPI_Send(buf, 1000, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		MPI_Send(buf, 7, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
	} else if (size > 1 && rank == 1) {
		MPI_Recv(buf, 8192, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(buf, 1000, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (kill_mode && rank == 1) {
		usleep(400000);
		wait_rank0_final();
		int flag = 0;
		MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		raise(SIGKILL);
	}
	MPI_Finalize();
	return 0;
}
