/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nunatak report --format roofline-csv`: the placed points of the Run's
 * roofline as plain CSV (RFC 4180), for users who plot with their own tools.
 * One row per placed Hotspot, then one per rank of it (MPI Runs), then the
 * regions carrying counters; each figure beside its Quality, an unavailable
 * figure an empty field (never 0), and on every row the two Ceilings the
 * placement is judged against: the Run's (its nodes' sum when it spans
 * nodes, payload "roofline") on a Hotspot's or region's row, the rank's own
 * node's on a rank's row.
 */
#ifndef NUNATAK_REPORT_ROOFLINE_CSV_H
#define NUNATAK_REPORT_ROOFLINE_CSV_H

#include <stddef.h>
#include <stdio.h>

struct err;
typedef struct json_t json_t;

/* Writes the CSV of payload (report --json's document) to out; *placed is
 * the number of points written (0: a header only, the Run has no placement).
 * Returns 0 or a negative errno with e. */
int roofline_csv_write(const json_t *payload, FILE *out, size_t *placed, struct err *e);

#endif
