/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The payload's fragments of attribution's views (attrib/views.h): new
 * references, NULL on allocation failure.
 */
#ifndef NUNATAK_REPORT_ATTRIB_JSON_H
#define NUNATAK_REPORT_ATTRIB_JSON_H

#include <stdint.h>

struct pivot;
typedef struct json_t json_t;

/* A share as a Quality value: {value, unit "ratio", quality, reason}, null
 * and unavailable when the Hotspot's samples carry no value, never 0. */
json_t *attrib_share_json(double share);
/* {"lines":[{file,line,share}], "inline_frames":[{function,file,line,share}]} */
json_t *attrib_hotspot_json(const struct pivot *p, int64_t hotspot, const char *counter);
/* [{function,file,line,share,sites}]: the transverse inline view. */
json_t *attrib_inline_view_json(const struct pivot *p, const char *counter);

#endif
