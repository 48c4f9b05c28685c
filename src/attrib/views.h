/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Views over the per-address detail attribution persisted (pivot.addresses +
 * pivot.frames): pure functions of the pivot, never persisted, usable on a
 * machine where the binary and the symbolizer no longer exist.
 *
 *  - lines of a Hotspot: weight per (file, line) of the innermost frame of
 *    each sampled address, as a share of the Hotspot's weight;
 *  - inline frames of a Hotspot: weight per innermost frame (function, file,
 *    declaration line) - the physical function itself when nothing was inlined;
 *  - the transverse inline view: the same key across every Hotspot, as a share
 *    of all sampled weight (unresolved Hotspots included), with the number of
 *    Hotspots it appears in: the one view stable across recompilations.
 *
 * `counter` NULL means the time base: the first of task-clock, cpu-clock,
 * cycles that Hotspot-level Measurements carry. A counter sampled in several
 * Passes counts in its lowest Pass only.
 * Returned arrays are sorted by decreasing weight (lines: by file, line);
 * strings are borrowed from the pivot. Caller frees the array with xfree().
 */
#ifndef NUNATAK_ATTRIB_VIEWS_H
#define NUNATAK_ATTRIB_VIEWS_H

#include <stddef.h>
#include <stdint.h>

struct pivot;

struct attrib_share {
	const char *function; /* NULL in line views */
	const char *file;     /* NULL when unknown */
	int line;             /* lines: the sampled line; inline views: the declaration line */
	double value;         /* in the counter's unit */
	double share;         /* 0..1 */
	int sites;            /* transverse view: Hotspots it appears in; else 1 */
};

/* The time-base counter of p, or NULL when it has none (borrowed). */
const char *attrib_time_base(const struct pivot *p);

int attrib_lines(const struct pivot *p, int64_t hotspot, const char *counter,
		 struct attrib_share **out, size_t *nr);
int attrib_inline_frames(const struct pivot *p, int64_t hotspot, const char *counter,
			 struct attrib_share **out, size_t *nr);
int attrib_inline_view(const struct pivot *p, const char *counter, struct attrib_share **out,
		       size_t *nr);

/* The line holding most of the Hotspot's weight. Returns 0, or -ENOENT when
 * the Hotspot has no line-level detail. */
int attrib_hottest_line(const struct pivot *p, int64_t hotspot, const char *counter,
			struct attrib_share *out);

/* Their payload fragments are report/attrib_json.h. */

#endif
