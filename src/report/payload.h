/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report payload (REFERENCE.md §7 "Payload", schema 6, name
 * "nunatak-report"): plain JSON recomputed on demand from a Run, never
 * persisted. Its trunk is the Run manifest (run, machine, provenance, passes,
 * degradations) so report and Run never drift apart. Every number is an
 * object {value, unit, quality, reason} (derived values add lineage and
 * formula); an unavailable value is null next to its reason.
 * Schema: docs/schemas/report-payload.json.
 */
#ifndef NUNATAK_REPORT_PAYLOAD_H
#define NUNATAK_REPORT_PAYLOAD_H

#include <stdbool.h>

struct analysis;
struct pivot;
typedef struct json_t json_t;

#define PAYLOAD_SCHEMA 6
#define PAYLOAD_NAME "nunatak-report"

/* Builds the payload. manifest (borrowed, may be NULL) provides the trunk.
 * no_source withholds extract text ("source text withheld by --no-source").
 * Returns a new reference (json_decref), or NULL when out of memory. */
struct rank_imbalance;
/* ranks (may be NULL) fills the payload's `ranks` (null outside MPI). */
json_t *payload_build(const json_t *manifest, const struct pivot *p, const struct analysis *a,
		      const struct rank_imbalance *ranks, bool no_source);

#endif
