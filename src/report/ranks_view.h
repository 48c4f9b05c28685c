/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rank view of a Run (analysis/imbalance.h computes it): the summary's
 * lines and the report payload's `ranks` fragment.
 */
#ifndef NUNATAK_REPORT_RANKS_VIEW_H
#define NUNATAK_REPORT_RANKS_VIEW_H

typedef struct json_t json_t;
struct rank_imbalance;
struct text_lines;

/* The summary line(s): "N ranks (k sampled); busiest rank R at F.FFx the
 * mean; MPI holds X% of the time", the application threads and the MPI
 * runtime helper threads seen beside them (analysis/threads.h; when there
 * are more threads than ranks), the basis, and a downgrade naming the value
 * it downgrades. Returns 0 or -ENOMEM. Appends nothing for a Run without
 * ranks. */
int ranks_view_lines(const struct rank_imbalance *ri, struct text_lines *out);

/* The payload fragment ranks{imbalance, mpi_fraction, unsampled, missing,
 * basis, busiest_rank, threads, helper_threads{count, fraction, rule},
 * rows[{..., threads, helper_threads}]}, or json null for a Run without ranks. New
 * reference, NULL when out of memory. */
json_t *ranks_view_payload(const struct rank_imbalance *ri);

#endif
