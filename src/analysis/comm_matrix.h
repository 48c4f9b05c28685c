/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who talks to whom: the rank x rank point-to-point matrix of a Run, a pure
 * function of the pivot's mpi_peers rows (ingest/mpi.h; measured by
 * interposition, exact totals, never sampled). A pair (from, to) holds what
 * rank `from` sent to rank `to` (messages and bytes, from the sender's send
 * rows) and the time both spent on it (the sender's time in the sends naming
 * `to` plus the receiver's time in the blocking receives naming `from`).
 * Collectives name no partner and are not in it: their semantic pairs,
 * estimated, are analysis/comm_collectives.h's, kept apart. At scale the matrix is also binned into at most
 * COMM_MATRIX_MAX_BINS x COMM_MATRIX_MAX_BINS cells of `bin` consecutive
 * ranks each, for the heat map.
 */
#ifndef NUNATAK_ANALYSIS_COMM_MATRIX_H
#define NUNATAK_ANALYSIS_COMM_MATRIX_H

#include <stddef.h>
#include <stdint.h>

struct pivot;

#define COMM_MATRIX_MAX_BINS 64
#define COMM_MATRIX_TOP_PAIRS 10

struct comm_pair {
	int from, to; /* ranks, or bins in comm_matrix.cells */
	int64_t messages, bytes, time_ns;
};

struct comm_matrix {
	int nr_ranks;           /* rows and columns: ranks [0, nr_ranks) */
	int nr_reporting;       /* ranks that left peer rows */
	int64_t messages, bytes, time_ns; /* over every placed pair */
	int64_t unplaced_messages, unplaced_bytes; /* sends whose partner was not placed */
	struct comm_pair *pairs; /* every pair with traffic, most bytes first */
	size_t nr_pairs;
	int bin, nr_bins;        /* ranks per cell, cells per side */
	struct comm_pair *cells; /* non-empty cells, row-major */
	size_t nr_cells;
};

/* Builds the matrix over ranks [0, nr_ranks) (rows of Loci outside it are
 * ignored; sends to a partner outside it count as unplaced). m->nr_reporting is 0 when the Run has no peer rows.
 * Returns 0 or -ENOMEM. */
int comm_matrix_build(const struct pivot *p, int nr_ranks, struct comm_matrix *m);
void comm_matrix__release(struct comm_matrix *m);

#endif
