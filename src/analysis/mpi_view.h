/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Measured MPI time per rank and per call site (docs/mpi.md "Measured MPI
 * time"), a pure function of the pivot: the interposition library's
 * mpi_calls / mpi_sites rows and the Locus-level `mpi_time` and
 * `mpi_wall_time` Measurements (ingest/mpi.h). A rank's MPI fraction is
 * mpi_time / mpi_wall_time (time inside MPI calls over the time from
 * MPI_Init's return to MPI_Finalize), with the Quality of its Measurements.
 *
 * The dominant call is the (rank, MPI function) pair holding the largest
 * fraction of its rank's wall time, named with its heaviest call site:
 * "rank 1 waits 41% of its time in `MPI_Barrier` at `solver.c:212`".
 */
#ifndef NUNATAK_ANALYSIS_MPI_VIEW_H
#define NUNATAK_ANALYSIS_MPI_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

#define MPI_VIEW_MAX_SITES 5       /* sites listed per (rank, call) */
#define MPI_VIEW_MAX_EVENTS 20000  /* MPI Events in the payload's timeline (longest kept) */
#define MPI_VIEW_MAX_REGION_EVENTS 5000 /* region Events beside them (longest kept) */
#define MPI_VIEW_MAX_LANES 64      /* ranks drawn in the timeline: the lowest-numbered */

#define MPI_VIEW_PROBE_SHARE 0.01 /* the probe's share of a rank's time worth saying */
#define MPI_VIEW_PROBE_CALLS 3     /* functions named as its cause */

struct mpi_rank_time {
	bool measured;         /* the rank left an MPI profile */
	double mpi_ns, wall_ns;
	double probe_ns;       /* the probe's own cost (estimated), NaN when unknown */
	enum quality quality;  /* of mpi_time (estimated when the rank never finalized) */
	const char *reason;    /* borrowed from the pivot, NULL when measured */
};

struct mpi_view {
	struct mpi_rank_time *ranks; /* by rank, nr entries */
	size_t nr;
	int nr_measured;
	/* the dominant call; rank -1 when no rank was measured */
	int dom_rank;
	const char *dom_call;  /* borrowed */
	double dom_fraction;   /* of the rank's wall time */
	char dom_site[160];    /* "file.c:212", "function", "module+0x1a2b" or "" */
	double dom_site_fraction; /* that site's share of the rank's wall time (the
				     call's other sites excluded); 0 without a site */
	/* The rank where nunatak's probe costs the largest share of the wall
	 * time (Measurements mpi_probe_overhead*, estimated), -1 when none is
	 * known; the functions whose calls cost most there (each at least a
	 * tenth of the rank's probe cost), heaviest first. */
	int probe_rank;
	double probe_fraction;
	int nr_probe_calls;
	struct {
		const char *name; /* borrowed */
		double ns;
		int64_t calls;
	} probe_calls[MPI_VIEW_PROBE_CALLS];
};

/* Builds the view over ranks [0, nr_ranks). Returns 0 or -ENOMEM. */
int mpi_view_build(const struct pivot *p, size_t nr_ranks, struct mpi_view *v);
void mpi_view__release(struct mpi_view *v);

/* The rank of a Locus, -1 when it has none (or locus is not a row). */
int mpi_view_rank_of(const struct pivot *p, int64_t locus);

/* rank's mpi_calls, heaviest first, into *out (the array is the caller's
 * to free, its rows borrowed from p). Returns how many, or -ENOMEM. */
int mpi_view_calls(const struct pivot *p, int rank, const struct mpi_call ***out);

/* The call sites of (rank, call), heaviest first, at most
 * MPI_VIEW_MAX_SITES, into *out (caller frees the array; rows borrowed).
 * Returns how many, or -ENOMEM. */
int mpi_view_sites(const struct pivot *p, int rank, const char *call,
		   const struct mpi_site ***out);

/* How many of rank's calls of call (a polling function) the probe timed,
 * when it timed only some and estimated the others' time (the Measurement
 * `mpi_polled:<call>`, ingest/mpi.h); -1 when every call was timed. */
int64_t mpi_view_polled_timed(const struct pivot *p, int rank, const char *call);

/* The Events of one kind ("mpi", "region") on ranked Loci of the
 * MPI_VIEW_MAX_LANES lowest-numbered ranks that have such Events (the
 * timeline's lanes), at most cap (the longest), in start order; *total gets
 * how many there were on every rank, *ranks how many ranks had some. The
 * array is the caller's to free (rows borrowed from p); NULL on ENOMEM. The
 * payload's timeline (report/mpi_json.h) takes at most MPI_VIEW_MAX_EVENTS
 * MPI Events and MPI_VIEW_MAX_REGION_EVENTS region Events. */
const struct event **mpi_view_events(const struct pivot *p, const char *kind, size_t cap,
				     size_t *n, size_t *total, size_t *ranks);

#endif
