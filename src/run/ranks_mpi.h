/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI measurement around a rank launch (docs/mpi.md "Measured MPI time"):
 * before the application, identify the MPI stack (`<launcher> --version`),
 * build or reuse nunatak's probes with the matching mpicc (mpi/build.h), run
 * the network ping-pong with the Run's own launcher prefix (network Ceilings
 * into the Machine), and hand the interposition library to the rank shim.
 * Whatever fails degrades `mpi-analysis-unavailable` (interposition) or
 * `network-ceilings-unavailable` (probe), announced before the launch, with
 * the reason and the remedy; the application runs regardless.
 */
#ifndef NUNATAK_RUN_RANKS_MPI_H
#define NUNATAK_RUN_RANKS_MPI_H

struct run_state;
struct err;

/* Returns the library the ranks preload (caller frees), or NULL when MPI
 * calls cannot be measured (degradation added). *e only for nunatak's own
 * failures (out of memory), which also return NULL. */
char *collect_mpi_prepare(struct run_state *s, struct err *e);

/* Once the application's nodes are known (the manifest's "nodes", after
 * run_node_machines): the network Ceilings are checked against the nodes
 * the ping-pong ran on (run_state.netceil). Same nodes: a cache hit gets its
 * stored Quality back. Other nodes (or, for a hit, nodes not known): they
 * stay or become estimated, the reason naming both sets. Said once, by
 * the summary (report/netceil_view.h); run_netceil_json is the manifest's
 * account. */
void run_netceil_check(struct run_state *s);

/* The manifest's cost.network_ceilings_from, or NULL (no network Ceilings). */
typedef struct json_t json_t;
json_t *run_netceil_json(const struct run_state *s);

/* Sets cost.network_ceilings_from in a manifest's JSON that lacks it (the
 * page and the summary are rendered before run_cost writes the cost), so
 * that they say where the network Ceilings came from. Nothing without
 * network Ceilings; a failed allocation leaves doc as it was. */
void run_netceil_into(const struct run_state *s, json_t *doc);

#endif
