/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nodes as Machines: which Machine (model/machine_identity.h) each node of an
 * MPI Run was, the ranks that ran there, and the Ceilings those ranks are
 * placed against, with where the Ceilings came from. The manifest's "nodes"
 * array; one entry per (node, Machine) pair, normally one per node (ranks
 * of one node bound to different CPU sets are different Machines).
 *
 * Honesty: a node's Ceilings are its own Machine's (the launch node's Machine,
 * or a profile cached on that node for its identity). A node without them
 * borrows the launch node's, each downgraded to estimated with the reason;
 * never another Machine's numbers labelled measured.
 *
 * Ownership: node_machines owns every entry, string and array.
 */
#ifndef NUNATAK_MODEL_NODE_MACHINES_H
#define NUNATAK_MODEL_NODE_MACHINES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/machine.h"

struct err;

enum node_ceilings_source {
	NODE_CEILINGS_LAUNCH,   /* the node is the launch node's Machine (same identity) */
	NODE_CEILINGS_OWN,      /* a profile cached for the node's own Machine */
	NODE_CEILINGS_BORROWED, /* none of its own: the launch node's, estimated */
};

struct node_machine {
	char *node;               /* Slurm's name of the node, else its host name */
	int *ranks;               /* ascending */
	size_t nr_ranks, cap_ranks;
	bool known;               /* the ranks recorded their Machine (m's snapshot) */
	struct machine m;         /* the node's Machine and the Ceilings its ranks use */
	enum node_ceilings_source source;
	char *reason;             /* why borrowed, else NULL */
	bool calibrated;          /* its own Ceilings were calibrated on the node in this Run */
};

struct node_machines {
	struct node_machine *v;
	size_t n, cap;
};

const char *node_ceilings_source__name(enum node_ceilings_source s);

/* [{node, ranks[], identity, machine{machine__to_json}, ceilings_source,
 * reason, calibrated}]; a new reference or NULL on allocation failure. */
json_t *node_machines__to_json(const struct node_machines *nm);
/* The inverse; an entry without a node name or ranks is refused (-EINVAL,
 * e names it). nm is initialised by this call. */
int node_machines__from_json(struct node_machines *nm, const json_t *j, struct err *e);

/* The entry holding rank, or NULL. */
const struct node_machine *node_machines__of_rank(const struct node_machines *nm, int rank);
/* The named Ceiling of an entry with a positive value, or NULL. */
const struct ceiling *node_machine__ceiling(const struct node_machine *n, const char *name);

void node_machines__release(struct node_machines *nm);

/* The Ceilings of the whole Run, for its aggregate placement (the roofline
 * of the Run): a Hotspot's achieved rate there sums the FLOPs of every rank
 * on every node over the busiest Locus' time, so its roof is every node's
 * together, not the launch node's alone. flops_dp and dram_bandwidth, each
 * the sum over the Run's nodes of that node's Ceiling (its own Machine's, or
 * the launch node's borrowed, estimated); each node counted once (the
 * Machine of its lowest rank: a node whose ranks ran under several Machines
 * makes the sum estimated, said). Quality: the worst of the terms, their
 * reasons joined. A node without the Ceiling leaves that sum out (never a
 * partial sum: too low a roof overstates every envelope), the reason in
 * `missing`. */
struct run_ceilings {
	bool applies;            /* false: the Run's Ceilings are the launch node's
				    (no nodes, or one node not all of whose
				    Machines have their own Ceilings) */
	struct ceiling c[2];     /* flops_dp, dram_bandwidth: the present ones first */
	size_t n;
	size_t nr_nodes;
	char *basis;             /* "the sum of the Ceilings of its 2 nodes (n1, n2)" */
	char *missing;           /* why a sum is left out, or NULL */
};

/* Fills rc (initialised here). Returns 0 or -ENOMEM (rc released). */
int node_machines__run_ceilings(const struct node_machines *nm, struct run_ceilings *rc);
void run_ceilings__release(struct run_ceilings *rc);

#endif
