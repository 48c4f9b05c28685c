/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who talks to whom in collectives: the rank x rank matrix of the
 * collectives' semantic traffic, a pure function of the pivot's
 * mpi_collectives rows (ingest/mpi.h; each rank's calls, time and bytes of
 * one collective on one communicator with one root, the communicator's
 * members by rank in MPI_COMM_WORLD). Kept apart from the point-to-point
 * matrix (analysis/comm_matrix.h), which is measured: here only the volume
 * the collective's meaning implies is known, never the pairs the MPI
 * library's algorithm (tree, ring, recursive doubling...) really used, so
 * every cell is estimated. Patterns, over a communicator of n members:
 *  - one-to-all (Bcast, Ibcast, Scatter, Scatterv): root -> each other
 *    member, the bytes that member counted (its buffer, its piece);
 *  - all-to-one (Reduce, Ireduce, Gather, Gatherv): each other member ->
 *    root, the bytes the member counted;
 *  - all-pairs (Allreduce, Iallreduce, Allgather, Allgatherv: a member's
 *    bytes to each other member; Alltoall, Alltoallv, Reduce_scatter,
 *    Reduce_scatter_block: its bytes / n to each, an even split);
 *  - prefix (Scan, Exscan): a member's bytes to each later member;
 *  - sync (Barrier, Ibarrier): every pair, no bytes.
 * A pair's calls are the calls of the member whose bytes it holds; a
 * member's time is spread evenly over the pairs it is an end of. At scale
 * the cells are binned as the point-to-point matrix's (`bin` consecutive
 * ranks per cell), computed per communicator from per-bin sums, never pair
 * by pair: an Allreduce over 4096 ranks costs O(ranks + bins^2).
 */
#ifndef NUNATAK_ANALYSIS_COMM_COLLECTIVES_H
#define NUNATAK_ANALYSIS_COMM_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/comm_matrix.h"

struct pivot;

#define COMM_COLL_TOP_GROUPS 20 /* the payload's heaviest groups */

enum comm_pattern {
	COMM_ONE_TO_ALL,
	COMM_ALL_TO_ONE,
	COMM_ALL_PAIRS,
	COMM_PREFIX,
	COMM_SYNC,
	COMM_NR_PATTERNS
};

/* "one-to-all", "all-to-one", "all-pairs", "prefix", "sync". */
const char *comm_pattern_name(enum comm_pattern k);

/* The pattern of the MPI collective `name` ("MPI_Bcast"); *split: a
 * member's bytes are divided over the n members (Alltoall...). -1 when name
 * is not a collective the probe records. */
int comm_pattern_of(const char *name, int *split);

/* One collective on one communicator with one root, over its members. */
struct comm_coll_group {
	const char *name;    /* borrowed from the pivot */
	const char *members; /* rank list (model/rank_list.h), borrowed */
	int size, root;      /* root -1: none */
	int nr_reporting;    /* members with a row */
	enum comm_pattern pattern;
	int64_t calls, time_ns; /* summed over the reporting members */
	int64_t bytes;          /* semantic bytes over its pairs */
};

struct comm_collectives {
	int nr_ranks, nr_reporting; /* ranks with collective rows */
	int64_t calls, time_ns, bytes;
	int64_t pattern_bytes[COMM_NR_PATTERNS];
	/* rows whose communicator (or root) could not be placed: not drawn */
	int64_t unplaced_calls, unplaced_bytes;
	int bin, nr_bins;        /* as comm_matrix's */
	struct comm_pair *cells; /* non-empty cells, row-major; messages: calls */
	size_t nr_cells;
	struct comm_coll_group *groups; /* most bytes first */
	size_t nr_groups;
};

/* Builds the collectives' matrix over ranks [0, nr_ranks). c->nr_reporting
 * is 0 when the Run has no collective rows. Returns 0 or -ENOMEM. */
int comm_collectives_build(const struct pivot *p, int nr_ranks, struct comm_collectives *c);
void comm_collectives__release(struct comm_collectives *c);

#endif
