/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network Ceilings cached like the Machine's (issue 27): the ping-pong
 * before an MPI application costs a launch of the whole allocation (about a
 * second, more on a loaded node), so its network_* Ceilings are kept in
 * <cache>/nunatak/network/<hash>.json and read back by later Runs instead of
 * measured again. An entry is keyed by what decides the figures
 * (mpi/netcache_scope.h): the set of nodes the probe's ranks ran on (as the
 * probe itself reported them), the MPI stack (the launcher's implementation
 * and version, the library the application links, the probe) and the
 * transport options; not the rank count nor the application. It records
 * when it was measured and on which nodes.
 *
 * When a launch does not name its nodes before it starts, a second file per
 * "shape" (the node-selecting options, mpi/netcache_scope.h) points to the
 * node set a launch of that shape measured on last; the caller checks after
 * the launch that the application ran on those nodes (run/ranks_mpi.c).
 * Entries are sealed (common/cache_home.h): one nunatak did not write is a
 * miss. Deleting the directory measures again.
 */
#ifndef NUNATAK_MPI_NETCACHE_H
#define NUNATAK_MPI_NETCACHE_H

#include <jansson.h>

struct machine;

/* The key of a node set (sorted "n1,n2"), and of a shape; malloc'd text,
 * NULL on ENOMEM. */
char *netcache_key(const char *stack, const char *transport, const char *nodes);
char *netcache_shape_key(const char *stack, const char *transport, const char *shape);

/* A cached entry. */
struct netcache_hit {
	char *path;            /* the file */
	char *mpi;             /* the stack the probe reported ("Open MPI 4.1.4"), or NULL */
	char *nodes;           /* the nodes it was measured on, "n1,n2" */
	long long measured_at; /* Unix time */
	json_t *ceilings;      /* as stored: [{name, value, unit, quality, reason}] */
};
void netcache_hit__release(struct netcache_hit *h);

/* The entry of key: 1 when found and usable (*hit filled), 0 none, -ENOMEM.
 * Nothing is added to any Machine: netcache_hit__add does. */
int netcache_load(const char *key, struct netcache_hit *hit);

/* Adds the hit's Ceilings to m, each with `quality` and `reason` when
 * reason is not NULL (a hit not yet checked against the Run's nodes is
 * estimated), else as stored. Returns the number added, or -ENOMEM. */
int netcache_hit__add(const struct netcache_hit *h, struct machine *m, int quality,
		      const char *reason);

/* Stores m's network_* Ceilings (measured or estimated, with a value) for
 * `nodes` under key, with the shape's pointer to those nodes (shape_key may
 * be NULL). 1 when written, 0 when there was nothing to keep or no cache,
 * negative on failure (a cache is an optimisation: callers go on). */
int netcache_store(const char *key, const char *shape_key, const struct machine *m,
		   const char *mpi, const char *nodes);

/* The node set a launch of this shape measured on last (malloc'd), or NULL. */
char *netcache_shape_nodes(const char *shape_key);

#endif
