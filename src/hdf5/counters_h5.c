// SPDX-License-Identifier: BSD-3-Clause
/*
 * Counters per region in the .h5 profile: /rank<r>/perf_events, the place
 * the seed's results object keeps "perf_event_open counts by region" per
 * rank (ProfilingResults.perf_events, get_perf_events). Written by
 * `regions convert`/`merge` from the .spt's CNTR section (or copied from an
 * .h5 that has them), read back into struct region_counters so `inspect`,
 * `export` and the roofline see the same counts from either container. The
 * layout is in docs/formats.md (".h5 — HDF5 profile").
 */
#include "hdf5/counters_h5.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "h5_layout.h"
#include "hdf5/hdf5_trace.h"
#include "regions/region_counters.h"
#include "regions/trace_set.h"

#define PE_EVENTS_MAX 64 /* events a group may name (the library counts 8) */
#define PE_COUNTED_MAX 8

/* Event columns: an event counted on some rank of the source gets one (at
 * most PE_COUNTED_MAX), the others none. Fills c's event arrays. */
static size_t events_of(const struct region_counters *rc, struct sp_h5_counters *c,
			const char **names, const char **reasons, int32_t *kinds, int32_t *status,
			int *col)
{
	size_t k = 0;
	for (size_t i = 0; i < rc->nr_events; i++) {
		const struct ctr_event_info *x = &rc->events[i];
		bool counted = x->ranks_counted > 0 && k < PE_COUNTED_MAX;
		names[i] = x->name;
		reasons[i] = counted || !x->reason ? "" : x->reason;
		kinds[i] = x->kind;
		status[i] = counted ? 0 : 1;
		col[i] = counted ? (int)k++ : -1;
	}
	c->nr_events = rc->nr_events;
	c->event_names = names;
	c->event_reasons = reasons;
	c->event_kinds = kinds;
	c->event_status = status;
	return k;
}

struct pe_rows {
	const char **region;
	int32_t *lane;
	int64_t *calls, *incl, *excl;
};

static void pe_rows__free(struct pe_rows *p)
{
	xfree(p->region);
	xfree(p->lane);
	xfree(p->calls);
	xfree(p->incl);
	xfree(p->excl);
}

static int rows_of(const struct region_counters *rc, const struct trace_set *ts, const int *col,
		   size_t ncol, int32_t lane_off, struct pe_rows *p)
{
	size_t n = rc->nr_rows;
	*p = (struct pe_rows){
		.region = xcalloc(n + 1, sizeof(char *)),
		.lane = xcalloc(n + 1, sizeof(int32_t)),
		.calls = xcalloc(n + 1, sizeof(int64_t)),
		.incl = xcalloc(n * ncol + 1, sizeof(int64_t)),
		.excl = xcalloc(n * ncol + 1, sizeof(int64_t)),
	};
	if (!p->region || !p->lane || !p->calls || !p->incl || !p->excl)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct ctr_row *row = &rc->rows[i];
		p->region[i] = ts->regions[row->region].name;
		p->lane[i] = row->lane + lane_off;
		p->calls[i] = row->calls;
		for (size_t ev = 0; ev < rc->nr_events; ev++) {
			if (col[ev] < 0)
				continue;
			/* an event counted on the rank is counted on every row of it */
			p->incl[i * ncol + (size_t)col[ev]] = row->have[ev] ? row->incl[ev] : 0;
			p->excl[i * ncol + (size_t)col[ev]] = row->have[ev] ? row->excl[ev] : 0;
		}
	}
	return 0;
}

int h5_counters_write(hid_t rk, const struct region_counters *rc, const struct trace_set *ts,
		      int32_t lane_off)
{
	if (!rc->ranks_with)
		return 0;
	const char *names[CTR_EVENTS_MAX], *reasons[CTR_EVENTS_MAX];
	int32_t kinds[CTR_EVENTS_MAX], status[CTR_EVENTS_MAX];
	int col[CTR_EVENTS_MAX];
	struct sp_h5_counters c = {
		.backend = rc->backend ? rc->backend : "",
		.threads_without = rc->threads_without,
		.dropped = rc->dropped,
		.nr_rows = rc->nr_rows,
	};
	c.nr_counted = events_of(rc, &c, names, reasons, kinds, status, col);
	struct pe_rows p;
	int r = rows_of(rc, ts, col, c.nr_counted, lane_off, &p);
	if (r == 0) {
		c.region = p.region;
		c.lane = p.lane;
		c.calls = p.calls;
		c.inclusive = p.incl;
		c.exclusive = p.excl;
		r = sp_h5_write_counters(rk, &c);
	}
	pe_rows__free(&p);
	return r;
}

int h5_counters_of_source(struct region_counters *rc, struct trace_set *ts,
			  const struct trace_source *src, struct err *e)
{
	memset(rc, 0, sizeof(*rc));
	int r = src->kind == TRACE_SPT ? region_counters__read_path(rc, ts, src->path, e)
				       : h5_read_counters(rc, ts, src->path, src->rank, e);
	if (r)
		region_counters__release(rc);
	return r;
}
