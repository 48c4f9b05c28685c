/* SPDX-License-Identifier: BSD-3-Clause */
/* What `regions inspect` says of each rank's notes (regions/rank_notes.h):
 * the lines after its table, and their JSON. */
#ifndef NUNATAK_REPORT_RANK_NOTES_VIEW_H
#define NUNATAK_REPORT_RANK_NOTES_VIEW_H

#include <stdio.h>

struct rank_notes;
typedef struct json_t json_t;

/* Text lines after the summary table (nothing when there is nothing). */
void rank_notes_print(const struct rank_notes *n, FILE *out);
/* JSON array of per-rank notes (empty array when none); new reference. */
json_t *rank_notes_json(const struct rank_notes *n);

#endif
