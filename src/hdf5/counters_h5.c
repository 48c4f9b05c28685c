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

/* Event columns: an event counted on some rank gets one (at most
 * PE_COUNTED_MAX), the others none. Fills c's event arrays; returns the
 * number of columns. */
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
	int32_t *lane;
	int64_t *calls, *incl, *excl;
	int8_t *counted;
};

static void pe_rows__free(struct pe_rows *p)
{
	xfree(p->lane);
	xfree(p->calls);
	xfree(p->incl);
	xfree(p->excl);
	xfree(p->counted);
}

/* Fills row i's columns; false when a counted column has no value on the
 * row (a merged rank whose runs counted different events). */
static bool fill_row(struct pe_rows *p, size_t i, const struct region_counters *rc,
		     const int *col, size_t ncol)
{
	const struct ctr_row *row = &rc->rows[i];
	bool all = true;
	for (size_t ev = 0; ev < rc->nr_events; ev++) {
		if (col[ev] < 0)
			continue;
		size_t c = i * ncol + (size_t)col[ev];
		p->incl[c] = row->have[ev] ? row->incl[ev] : 0;
		p->excl[c] = row->have[ev] ? row->excl[ev] : 0;
		p->counted[c] = row->have[ev];
		all &= row->have[ev];
	}
	return all;
}

/* The group from rc, row i named names[i], in the layout of
 * lib/h5_layout.c. */
static int write_group(hid_t rk, const struct region_counters *rc, const char *const *names,
		       int32_t lane_off)
{
	const char *ev_names[CTR_EVENTS_MAX], *reasons[CTR_EVENTS_MAX];
	int32_t kinds[CTR_EVENTS_MAX], status[CTR_EVENTS_MAX];
	int col[CTR_EVENTS_MAX];
	struct sp_h5_counters c = {
		/* A merged rank with any test-backend run says so: its counts are made up. */
		.backend = rc->test_backend ? "test" : rc->backend ? rc->backend : "",
		.threads_without = rc->threads_without,
		.dropped = rc->dropped,
		.nr_rows = rc->nr_rows,
		.region = names,
	};
	size_t n = rc->nr_rows, ncol = events_of(rc, &c, ev_names, reasons, kinds, status, col);
	struct pe_rows p = {
		.lane = xcalloc(n + 1, sizeof(int32_t)),
		.calls = xcalloc(n + 1, sizeof(int64_t)),
		.incl = xcalloc(n * ncol + 1, sizeof(int64_t)),
		.excl = xcalloc(n * ncol + 1, sizeof(int64_t)),
		.counted = xcalloc(n * ncol + 1, sizeof(int8_t)),
	};
	int r = -ENOMEM;
	if (p.lane && p.calls && p.incl && p.excl && p.counted) {
		bool all = true;
		for (size_t i = 0; i < n; i++) {
			p.lane[i] = rc->rows[i].lane + lane_off;
			p.calls[i] = rc->rows[i].calls;
			all &= fill_row(&p, i, rc, col, ncol);
		}
		c.nr_counted = ncol;
		c.lane = p.lane;
		c.calls = p.calls;
		c.inclusive = p.incl;
		c.exclusive = p.excl;
		c.counted = all ? NULL : p.counted;
		r = sp_h5_write_counters(rk, &c);
	}
	pe_rows__free(&p);
	return r;
}

int h5_counters_write(hid_t rk, const struct region_counters *rc, const struct trace_set *ts,
		      int32_t lane_off)
{
	if (!rc->ranks_with)
		return 0;
	const char **names = xcalloc(rc->nr_rows + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < rc->nr_rows; i++)
		names[i] = ts->regions[rc->rows[i].region].name;
	int r = write_group(rk, rc, names, lane_off);
	xfree(names);
	return r;
}

/* one's events in m (map[k]: m's index of one's event k, -1: none). */
static int absorb_events(struct region_counters *m, const struct region_counters *one,
			 int32_t rank, int *map)
{
	for (size_t k = 0; k < one->nr_events; k++) {
		const struct ctr_event_info *x = &one->events[k];
		int g = region_counters__event(m, x->name, strlen(x->name), x->kind);
		if (g == -2)
			return -ENOMEM;
		map[k] = g;
		bool counted = x->ranks_counted > 0;
		if (region_counters__note(m, g, rank, counted, x->reason,
					  x->reason ? strlen(x->reason) : 0))
			return -ENOMEM;
	}
	return 0;
}

int h5_counters_absorb(struct ctr_merged *m, const struct region_counters *one,
		       const struct trace_set *ts, int32_t rank, int32_t lane_off)
{
	if (!one->ranks_with)
		return 0;
	struct region_counters *rc = &m->rc;
	rc->ranks_with++;
	rc->threads_without += one->threads_without;
	rc->dropped += one->dropped;
	rc->test_backend |= one->test_backend;
	if (!rc->backend && one->backend && !(rc->backend = xstrdup(one->backend)))
		return -ENOMEM;
	int map[CTR_EVENTS_MAX];
	if (absorb_events(rc, one, rank, map))
		return -ENOMEM;
	for (size_t i = 0; i < one->nr_rows; i++) {
		const struct ctr_row *row = &one->rows[i];
		int rmap[CTR_EVENTS_MAX];
		for (size_t k = 0; k < one->nr_events; k++)
			rmap[k] = row->have[k] ? map[k] : -1;
		if (xgrow((void **)&m->names, &m->cap_names, rc->nr_rows + 1, sizeof(*m->names)) ||
		    region_counters__add_row(rc, rank, row->lane + lane_off, 0, row->calls, rmap,
					     one->nr_events, row->incl, row->excl))
			return -ENOMEM;
		m->names[rc->nr_rows - 1] = ts->regions[row->region].name;
	}
	return 0;
}

int h5_counters_write_merged(hid_t rk, const struct ctr_merged *m)
{
	return m->rc.ranks_with ? write_group(rk, &m->rc, m->names, 0) : 0;
}

void h5_counters_merged_release(struct ctr_merged *m)
{
	region_counters__release(&m->rc);
	xfree(m->names);
	memset(m, 0, sizeof(*m));
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
