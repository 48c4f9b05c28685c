/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network ping-pong probe's output (src/mpi/probe/pingpong.c, format at
 * its top) and the Ceilings it yields (REFERENCE.md §5 "Network probe"):
 *  - network_latency (s): the best one-way time of an 8-byte message;
 *  - network_bandwidth (byte/s): the maximum of the repetitions (a Ceiling is
 *    an upper bound, never a mean).
 * Both are `measured`, downgraded to `estimated` with the reasons joined by
 * "; " when rank 0 and the last rank share a node ("measured over shared
 * memory: single-node allocation, not the interconnect") or when the
 * bandwidth repetitions disperse by more than 10 %. When that pair crossed
 * nodes and rank 1 shares rank 0's node, the same within the node:
 * network_latency_intranode and network_bandwidth_intranode (the names say
 * what each crossed: the interconnect, or the node's shared memory).
 */
#ifndef NUNATAK_MPI_NETPROBE_H
#define NUNATAK_MPI_NETPROBE_H

#include <stdbool.h>

struct machine;

#define NETPROBE_MAX_REPS 16
#define NETPROBE_DISPERSION 0.10

struct netprobe {
	char impl[32], version[64]; /* the stack the probe was built against */
	int ranks;                  /* -1 when not said */
	char node0[128], node_last[128];
	double latency_s;           /* < 0 when absent */
	double bandwidth[NETPROBE_MAX_REPS];
	int nr_bandwidth;
	/* rank 0 <-> rank 1 on rank 0's node, when measured */
	char intra_node[128];
	double intra_latency_s;     /* < 0 when absent */
	double intra_bandwidth[NETPROBE_MAX_REPS];
	int nr_intra_bandwidth;
	/* every node a rank of the probe ran on (`node` lines), sorted, joined
	 * by ","; "" when none was said or they did not fit (nodes_overflow) */
	char nodes[4096];
	bool nodes_overflow;
	bool complete;              /* the `end` line was seen */
};

/* Parses the probe's stdout. Lines it does not know are skipped (a newer
 * probe may add some). Returns 0, or -EINVAL when the text is no probe
 * output (no `ranks` line). */
int netprobe_parse(const char *text, struct netprobe *np);

/* Adds network_latency and network_bandwidth to m (when measured), and
 * their _intranode pair when the probe measured one. Returns
 * the number added, or -ENOMEM. */
int netprobe_ceilings(const struct netprobe *np, struct machine *m);

#endif
