/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ISO-8601 timestamps at second precision, the one writer of them. UTC is
 * written "+00:00" (not "Z") so every timestamp nunatak writes has the same
 * shape, "2026-11-29T14:05:07+01:00"; readers of the manifest and of the
 * recordings' meta.json accept either.
 */
#ifndef NUNATAK_COMMON_TIMEFMT_H
#define NUNATAK_COMMON_TIMEFMT_H

#include <stddef.h>
#include <time.h>

#define ISO8601_SIZE 32 /* enough for every zone below, NUL included */

enum iso8601_zone {
	ISO8601_UTC,             /* "2026-11-29T13:05:07+00:00" */
	ISO8601_LOCAL,           /* "2026-11-29T14:05:07+01:00" */
	ISO8601_LOCAL_NO_OFFSET, /* "2026-11-29T14:05:07" (Python's naive isoformat()) */
};

/* Formats t into buf (size >= ISO8601_SIZE; smaller sizes truncate). */
void iso8601(time_t t, enum iso8601_zone zone, char *buf, size_t size);

#endif
