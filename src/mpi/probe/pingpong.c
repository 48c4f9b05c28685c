// SPDX-License-Identifier: BSD-3-Clause
/*
 * nunatak's network probe (REFERENCE.md §5 "Network probe"): a ping-pong
 * between rank 0 and the last rank, built with the Run's mpicc and launched
 * by the Run's own launcher prefix inside the allocation, before the
 * application. The ranks in between only take part in the final barrier.
 *
 * usage: pingpong [reps]   (bandwidth repetitions, default 3)
 *
 * Output on rank 0's stdout, one `key value...` per line:
 *   stack <Open MPI|MPICH|unknown> <version>   what this binary was built against
 *   ranks <N>
 *   nodes <rank 0's host> <last rank's host>
 *   latency_s <best one-way time of an 8-byte message over 1000 round trips>
 *   bandwidth_rep <i> <bytes/s>  (10 round trips of 4 MiB: 2*10*4 MiB / elapsed)
 *   intranode_nodes, intranode_latency_s, intranode_bandwidth_rep: the same
 *     between rank 0 and rank 1, when the first pair crossed nodes and rank 1
 *     shares rank 0's node (so both sides of the network are measured)
 *   node <name>   once per node any rank ran on, sorted (Slurm's name of the
 *     node, SLURMD_NODENAME, else the host's: as the rank shim names it), so
 *     that the Ceilings are kept for the node set they were measured on
 *   end
 * A rank count of 1 (no peer) prints `ranks 1` and `end` only.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LAT_TRIPS 1000
#define BW_TRIPS 10
#define BW_BYTES (4u << 20)
#define NODE_NAME 256

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Every rank's node name to rank 0, printed there once per node. */
static void print_nodes(int me, int size)
{
	char mine[NODE_NAME] = "";
	const char *slurm = getenv("SLURMD_NODENAME");
	if (slurm && *slurm)
		snprintf(mine, sizeof(mine), "%s", slurm);
	else
		gethostname(mine, sizeof(mine) - 1);
	mine[sizeof(mine) - 1] = '\0';
	char *all = me == 0 ? calloc((size_t)size, NODE_NAME) : NULL;
	if (me == 0 && !all)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Gather(mine, NODE_NAME, MPI_CHAR, all, NODE_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (me != 0)
		return;
	qsort(all, (size_t)size, NODE_NAME, by_name);
	for (int i = 0; i < size; i++) {
		const char *n = all + (size_t)i * NODE_NAME;
		if (i == 0 || strcmp(n, n - NODE_NAME) != 0)
			printf("node\t%.*s\n", NODE_NAME - 1, n);
	}
	free(all);
}

static void print_stack(void)
{
#if defined(OPEN_MPI)
	printf("stack\tOpen MPI\t%d.%d.%d\n", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
	       OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
	printf("stack\tMPICH\t%s\n", MPICH_VERSION);
#else
	printf("stack\tunknown\t-\n");
#endif
}

/* One round trip of n bytes, rank 0 first. */
static void trip(char *buf, int n, int me, int peer)
{
	if (me == 0) {
		MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
		MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
	}
}

static void measure(int me, int peer, int reps, const char *prefix)
{
	char *buf = calloc(BW_BYTES, 1);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	double best = 1e30;
	for (int i = 0; i < 10; i++) /* warm-up */
		trip(buf, 8, me, peer);
	for (int i = 0; i < LAT_TRIPS; i++) {
		double t0 = now_s();
		trip(buf, 8, me, peer);
		double dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
	if (me == 0)
		printf("%slatency_s\t%.9e\n", prefix, best / 2);
	trip(buf, (int)BW_BYTES, me, peer);
	for (int r = 0; r < reps; r++) {
		double t0 = now_s();
		for (int i = 0; i < BW_TRIPS; i++)
			trip(buf, (int)BW_BYTES, me, peer);
		double dt = now_s() - t0;
		if (me == 0)
			printf("%sbandwidth_rep\t%d\t%.6e\n", prefix, r,
			       2.0 * BW_TRIPS * BW_BYTES / dt);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3, me = 0, size = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int peer = size - 1;
	char host[256] = "", peer_host[256] = "";
	gethostname(host, sizeof(host) - 1);
	if (me == 0) {
		print_stack();
		printf("ranks\t%d\n", size);
	}
	if (size > 1 && (me == 0 || me == peer)) {
		if (me == 0)
			MPI_Recv(peer_host, sizeof(peer_host), MPI_CHAR, peer, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		else
			MPI_Send(host, sizeof(host), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
		if (me == 0)
			printf("nodes\t%s\t%s\n", host, peer_host);
		measure(me, peer, reps < 1 ? 1 : reps, "");
	}
	/* Within rank 0's node too, when the pair above crossed nodes. */
	int intra = 0;
	char one_host[256] = "";
	if (size > 2 && me == 1)
		MPI_Send(host, sizeof(host), MPI_CHAR, 0, 2, MPI_COMM_WORLD);
	if (size > 2 && me == 0) {
		MPI_Recv(one_host, sizeof(one_host), MPI_CHAR, 1, 2, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		one_host[sizeof(one_host) - 1] = peer_host[sizeof(peer_host) - 1] = '\0';
		intra = strcmp(host, peer_host) != 0 && strcmp(host, one_host) == 0;
	}
	if (size > 2)
		MPI_Bcast(&intra, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (intra && (me == 0 || me == 1)) {
		if (me == 0)
			printf("intranode_nodes\t%s\t%s\n", host, one_host);
		measure(me, 1, reps < 1 ? 1 : reps, "intranode_");
	}
	print_nodes(me, size);
	if (me == 0) {
		printf("end\n");
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
