/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Placement per rank (beyond the reference, which aggregates ranks): for the
 * top Hotspots, each rank's DRAM intensity, achieved, attainable and
 * envelope fraction, so "rank 3 runs axpy at half the envelope of the
 * others" is visible. Each rank's values are analysis_run() over that rank's
 * Measurements only, against its own node's Ceilings (model/node_machines.h:
 * the node's Machine's, or the launch node's downgraded to estimated with the
 * reason when the node has none) and the Run's Ceilings when the Run records
 * no node Machines (a rank missing from recorded nodes is not placed: the
 * Run's Ceilings are then its nodes' sum): one set of formulas, the same Qualities and reasons. A rank with no sample of a Hotspot has no row
 * for it (never extrapolated). Computed only when the pivot holds at least
 * two ranks with Hotspot-level samples.
 *
 * Ownership: the result owns its per-rank analyses; diagnostics returned by
 * rank_placement__get are borrowed until rank_placement__release.
 */
#ifndef NUNATAK_ANALYSIS_RANK_PLACEMENT_H
#define NUNATAK_ANALYSIS_RANK_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "model/node_machines.h"

#define RANK_PLACEMENT_TOP 5 /* Hotspots placed per rank: the first by share */

struct rank_placement {
	int *ranks;               /* ascending */
	struct analysis *per_rank; /* one per rank, floor 1 */
	const struct node_machine **node; /* each rank's node entry (borrowed from
					     the caller's node_machines), or NULL */
	size_t nr_ranks;
};

/* Computes the per-rank analyses: a rank found in `nodes` (may be NULL) is
 * placed against its node's Ceilings, any other against those `a` used. The
 * result borrows `nodes` and `a`'s Ceilings. Returns 0 (an empty result when
 * fewer than two ranks were sampled) or -ENOMEM. */
int rank_placement_run(const struct pivot *p, const struct analysis *a,
		       const struct node_machines *nodes, struct rank_placement *out);
void rank_placement__release(struct rank_placement *rp);

/* The diagnostic of `hotspot` on the i-th rank, or NULL when that rank has
 * no time-base sample of it. */
const struct diagnostic *rank_placement__get(const struct rank_placement *rp, size_t i,
					     int64_t hotspot);

/* The envelope fraction spread of a Hotspot over ranks: lowest and highest
 * (their ranks) and the median over ranks where it is available. Returns the
 * number of ranks with a value (0: nothing to say). */
size_t rank_placement__spread(const struct rank_placement *rp, int64_t hotspot, double *lo,
			      int *lo_rank, double *hi, int *hi_rank, double *median);

#endif
