/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network Ceilings cached like the Machine's (issue 27): the ping-pong
 * before an MPI application costs a launch of the whole allocation (about a
 * second, more on a loaded node), so its network_latency and
 * network_bandwidth are kept per node set and MPI stack in
 * <cache>/nunatak/network/<key hash>.json and read back by later Runs
 * instead of measured again. The key is what decides which nodes and which
 * transport rank 0 and the last rank talk over: the launcher's prefix as
 * written (`mpirun -n 2`, `srun -N 2 -n 4`), the allocation's node list
 * (SLURM_JOB_NODELIST, or this host's name outside Slurm), the MPI stack
 * (implementation, version, the library the application links) and the
 * probe's version. Entries are sealed (common/cache_home.h): one nunatak
 * did not write is a miss. Deleting the file measures again.
 */
#ifndef NUNATAK_MPI_NETCACHE_H
#define NUNATAK_MPI_NETCACHE_H

struct machine;

/* The key (malloc'd text) for this launch; NULL on ENOMEM. */
char *netcache_key(const char *const *prefix, const char *stack, const char *nodelist,
		   const char *host);

/* Adds the cached network Ceilings of key to m. 1 when found (*path_out,
 * malloc'd, the file; *mpi_out, malloc'd, the stack it measured), 0 when
 * none or unusable, -ENOMEM. */
int netcache_load(const char *key, struct machine *m, char **path_out, char **mpi_out);

/* Stores m's network_* Ceilings under key (those that were measured or
 * estimated by the probe). 1 when written, 0 when there was nothing to keep
 * or no cache, negative on failure (a cache is an optimisation: callers
 * go on). */
int netcache_store(const char *key, const struct machine *m, const char *mpi);

#endif
