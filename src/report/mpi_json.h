/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The payload's measured MPI time (docs/mpi.md), from the selections of
 * analysis/mpi_view.h.
 */
#ifndef NUNATAK_REPORT_MPI_JSON_H
#define NUNATAK_REPORT_MPI_JSON_H

#include <stddef.h>

struct pivot;
typedef struct json_t json_t;

/* rank's mpi_calls [{name, calls, time_ns, bytes, sites: [{file, line,
 * function, time_ns}]}], heaviest first; an empty array for a rank without
 * a profile. New reference, NULL on ENOMEM. */
json_t *mpi_calls_json(const struct pivot *p, int rank);

/* The timeline: {t0_ns, names[], items: [[rank, name index, start_ns - t0_ns,
 * duration_ns, bytes, peer, kind (0 MPI call, 1 region call)]], total, shown,
 * limit, regions_total, regions_shown, ranks_total, ranks_shown}: the MPI
 * Events of the MPI_VIEW_MAX_LANES lowest-numbered ranks that have some (the
 * lanes drawn), at most MPI_VIEW_MAX_EVENTS (the longest), then their region
 * Events (regions/region_events.h), at most MPI_VIEW_MAX_REGION_EVENTS, each
 * in start order; total and regions_total count every rank's.
 * json null without MPI Events. New reference, NULL on ENOMEM. */
json_t *mpi_timeline_json(const struct pivot *p);

/* Who talks to whom (analysis/comm_matrix.h) over ranks [0, nr_ranks):
 * {ranks, ranks_reporting, messages, bytes, time_ns (Value, wall clock),
 * unplaced {messages, bytes}, bin, bins, cells: [[from bin, to bin, bytes,
 * messages, time_ns]], top_pairs: [{from, to, messages, bytes, time_ns
 * (Value)}], basis, collectives}; collectives (analysis/comm_collectives.h),
 * estimated, apart: {quality, reason, ranks, ranks_reporting, calls, bytes
 * (Value, estimated), bytes_by_pattern, time_ns (Value), unplaced {calls,
 * bytes}, bin, bins, cells: [[from bin, to bin, bytes, calls, time_ns]],
 * groups: [{function, pattern, members, size, root, ranks_reporting, calls,
 * bytes, time_ns}] (the COMM_COLL_TOP_GROUPS heaviest), groups_total, basis}
 * or null. json null when no rank left peer or collective rows. New
 * reference, NULL on ENOMEM. */
json_t *mpi_comm_matrix_json(const struct pivot *p, int nr_ranks);

/* The summary's line on it, into buf ("" when there is none). */
void mpi_comm_matrix_line(const struct pivot *p, int nr_ranks, char *buf, size_t cap);
/* The summary's line on the collectives' (estimated) matrix, "" when none. */
void mpi_comm_coll_line(const struct pivot *p, int nr_ranks, char *buf, size_t cap);

#endif
