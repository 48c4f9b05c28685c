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

typedef struct json_t json_t;

#define MPI_VIEW_MAX_SITES 5       /* sites listed per (rank, call) in the payload */
#define MPI_VIEW_MAX_EVENTS 20000  /* MPI Events in the payload's timeline (longest kept) */
#define MPI_VIEW_MAX_REGION_EVENTS 5000 /* region Events beside them (longest kept) */

struct mpi_rank_time {
	bool measured;         /* the rank left an MPI profile */
	double mpi_ns, wall_ns;
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
};

/* Builds the view over ranks [0, nr_ranks). Returns 0 or -ENOMEM. */
int mpi_view_build(const struct pivot *p, size_t nr_ranks, struct mpi_view *v);
void mpi_view__release(struct mpi_view *v);

/* rank's mpi_calls [{name, calls, time_ns, bytes, sites: [{file, line,
 * function, time_ns}]}], heaviest first; an empty array for a rank without
 * a profile. New reference, NULL on ENOMEM. */
json_t *mpi_view_calls_json(const struct pivot *p, int rank);

/* The timeline: {t0_ns, names[], items: [[rank, name index, start_ns - t0_ns,
 * duration_ns, bytes, peer, kind (0 MPI call, 1 region call)]], total, shown,
 * limit, regions_total, regions_shown}: the Run's MPI Events, at most
 * MPI_VIEW_MAX_EVENTS (the longest), then its region Events (regions/
 * region_events.h), at most MPI_VIEW_MAX_REGION_EVENTS, each in start order.
 * json null without MPI Events. New reference, NULL on ENOMEM. */
json_t *mpi_view_timeline_json(const struct pivot *p);

#endif
