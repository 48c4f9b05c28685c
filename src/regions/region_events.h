/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Region calls of an MPI rank as Events (kind "region", start on
 * CLOCK_MONOTONIC like the traces and the MPI Events), so the report's
 * per-rank timeline shows them beside the MPI calls: the calls of depth 0
 * and 1 only, at most REGION_EVENTS_PER_RANK per rank (its longest), on the
 * rank's Locus (thread -1). name = the region's name, attributes
 * {"path": call path, "depth": d}.
 */
#ifndef NUNATAK_REGIONS_REGION_EVENTS_H
#define NUNATAK_REGIONS_REGION_EVENTS_H

#define REGION_EVENTS_PER_RANK 2048
#define REGION_EVENTS_MAX_DEPTH 1

struct pivot;
struct calls;
struct trace_set;
struct path_tree;

/* Returns the number of Events added, or -ENOMEM. */
int region_events_add(struct pivot *p, const struct calls *cl, const struct trace_set *ts,
		      const struct path_tree *pt, const char *node, int rank);

#endif
