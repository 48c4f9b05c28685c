/* SPDX-License-Identifier: BSD-3-Clause */
/* A Derived value (analysis/analysis.h) as the payload writes every one:
 * {value, unit, quality, reason, lineage, formula[, bound]}. Shared by the
 * Hotspots (payload.c) and the regions placed on the roofline
 * (regions_view.c). */
#ifndef NUNATAK_REPORT_DERIVED_JSON_H
#define NUNATAK_REPORT_DERIVED_JSON_H

#include <jansson.h>

struct derived;

/* A new reference, NULL on ENOMEM. */
json_t *derived_json(const struct derived *d);

#endif
