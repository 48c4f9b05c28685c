/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the network Ceilings of a launch depend on (issue 27), read from the
 * launcher's options and the environment before the launch, for the cache
 * (mpi/netcache.h):
 *  - the nodes: the set of nodes the ranks run on (names sorted, once
 *    each), when the launch names them for certain: srun -w/--nodelist (a
 *    host list, n[1-3,7], or a file of them when it holds a '/') and
 *    --nodefile, srun inside an allocation over all of its nodes
 *    (SLURM_JOB_NODELIST) or all but -x/--exclude's (a list or a file),
 *    each only when the step's node count (-N, else the allocation's,
 *    SLURM_JOB_NUM_NODES, lowered by fewer ranks as srun does) is that
 *    set's; mpirun -H/--host/-hosts or a hostfile; mpirun inside a Slurm
 *    allocation when its ranks cannot leave a node out (one node, a rank a
 *    slot, or more ranks than all nodes but the smallest hold, slots read
 *    as SLURM_TASKS_PER_NODE and as SLURM_JOB_CPUS_PER_NODE); and a plain
 *    mpirun outside any allocation (this host). Otherwise unknown before
 *    the launch, with why (srun -N 2 outside an allocation: Slurm picks the
 *    nodes when it starts; srun -r 1 counts nodes in Slurm's node table
 *    order, which the node list does not give);
 *  - the transport: the options and variables that choose how ranks talk:
 *    srun --mpi/--network and SLURM_MPI_TYPE, Open MPI --mca/--gmca pairs,
 *    -x and --tune/--am, hydra -genv/-env and -iface, and the environment's
 *    OMPI_MCA_*, UCX_*, FI_*, MPIR_CVAR_* (MPICH's netmod), MPICH_*,
 *    I_MPI_*, PSM2_*, PSM3_*, HFI_*, NCCL_* variables;
 *  - the shape: the options that choose the nodes (srun -N, -p, -w, -x,
 *    -C, --reservation, ...; the rank count only when no node count is
 *    given, since then it decides how many nodes), to find the node set a
 *    launch of the same shape used last when the nodes are not known before.
 * Not the rank count (with a node count given), the application, its
 * arguments, nor options such as --cpu-bind or -l. Pure: reads only the
 * prefix, the environment given, and a hostfile or node file the launch
 * names.
 */
#ifndef NUNATAK_MPI_NETCACHE_SCOPE_H
#define NUNATAK_MPI_NETCACHE_SCOPE_H

#include <stddef.h>

struct netcache_scope {
	char *nodes;          /* "n1,n2" (sorted, once each), or NULL: unknown before */
	char nodes_from[96];  /* where they were read: "srun -w", ... */
	char why_unknown[240];/* when nodes is NULL */
	char *transport;      /* "name=value" lines, sorted ("" when none) */
	char *shape;          /* launcher kind and node-selecting options */
};

/* Fills sc from the launch prefix (NULL-terminated, as the split left it),
 * the MPI implementation the launcher reported ("Open MPI", "MPICH",
 * "unknown"), the environment (NULL-terminated "K=V", as environ) and this
 * host's name. 0, or -ENOMEM. */
int netcache_scope_of(char *const *prefix, const char *impl, char *const *envp,
		      const char *host, struct netcache_scope *sc);
void netcache_scope__release(struct netcache_scope *sc);

/* Expands a Slurm host list ("n[1-3,07-08],gpu1", brackets in several
 * places) into its names, sorted and once each, joined by ","; NULL when
 * it is no host list or holds more than 65536 names. Caller frees. */
char *netcache_hostlist(const char *list);

/* Sorts and dedupes a ","-joined set in place (the canonical form keys and
 * comparisons use). */
void netcache_nodes_canon(char *nodes);

/* "n1, n2" from "n1,n2", for a sentence (malloc'd; NULL on ENOMEM). */
char *netcache_nodes_spaced(const char *nodes);

#endif
