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
#include "hdf5/hdf5_trace.h"
#include "regions/region_counters.h"
#include "regions/trace_set.h"

#define PE_GROUP "perf_events"
#define PE_EVENTS_MAX 64 /* events a group may name (the library counts 8) */
#define PE_COUNTED_MAX 8

static hid_t vstr_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

static int write_nd(hid_t g, const char *name, hid_t ftype, hid_t mtype, const void *buf,
		    int nd, const hsize_t *dims)
{
	hid_t sp = H5Screate_simple(nd, dims, NULL);
	hid_t d = H5Dcreate2(g, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	bool empty = false;
	for (int i = 0; i < nd; i++)
		empty |= dims[i] == 0;
	herr_t rc = d < 0 ? -1 : empty ? 0 : H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(sp);
	return rc < 0 ? -EIO : 0;
}

static int write_strs(hid_t g, const char *name, const char **v, hsize_t n)
{
	hid_t t = vstr_type();
	int rc = write_nd(g, name, t, t, v, 1, &n);
	H5Tclose(t);
	return rc;
}

static void attr_scalar(hid_t g, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(g, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, mtype, v);
	H5Aclose(a);
	H5Sclose(sp);
}

static int write_events(hid_t g, const struct region_counters *rc, int *col)
{
	size_t n = rc->nr_events, k = 0;
	const char *names[CTR_EVENTS_MAX], *reasons[CTR_EVENTS_MAX];
	int32_t kinds[CTR_EVENTS_MAX], status[CTR_EVENTS_MAX];
	for (size_t i = 0; i < n; i++) {
		const struct ctr_event_info *x = &rc->events[i];
		bool counted = x->ranks_counted > 0 && k < PE_COUNTED_MAX;
		names[i] = x->name;
		reasons[i] = counted || !x->reason ? "" : x->reason;
		kinds[i] = x->kind;
		status[i] = counted ? 0 : 1;
		col[i] = counted ? (int)k++ : -1;
	}
	hsize_t hn = n;
	int r = write_strs(g, "event_names", names, hn);
	if (r == 0)
		r = write_nd(g, "event_kinds", H5T_STD_I32LE, H5T_NATIVE_INT32, kinds, 1, &hn);
	if (r == 0)
		r = write_nd(g, "event_status", H5T_STD_I32LE, H5T_NATIVE_INT32, status, 1, &hn);
	if (r == 0)
		r = write_strs(g, "event_reasons", reasons, hn);
	return r ? r : (int)k;
}

struct pe_rows {
	const char **region;
	int32_t *lane;
	int64_t *calls, *incl, *excl;
	int8_t *counted;
};

static void pe_rows__free(struct pe_rows *p)
{
	xfree(p->region);
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

static int write_rows(hid_t g, const struct region_counters *rc, const char *const *names,
		      const int *col, size_t ncol, int32_t lane_off)
{
	size_t n = rc->nr_rows;
	struct pe_rows p = {
		.region = xcalloc(n + 1, sizeof(char *)),
		.lane = xcalloc(n + 1, sizeof(int32_t)),
		.calls = xcalloc(n + 1, sizeof(int64_t)),
		.incl = xcalloc(n * ncol + 1, sizeof(int64_t)),
		.excl = xcalloc(n * ncol + 1, sizeof(int64_t)),
		.counted = xcalloc(n * ncol + 1, sizeof(int8_t)),
	};
	int r = -ENOMEM;
	if (!p.region || !p.lane || !p.calls || !p.incl || !p.excl || !p.counted)
		goto out;
	bool all = true;
	for (size_t i = 0; i < n; i++) {
		p.region[i] = names[i];
		p.lane[i] = rc->rows[i].lane + lane_off;
		p.calls[i] = rc->rows[i].calls;
		all &= fill_row(&p, i, rc, col, ncol);
	}
	hsize_t d1 = n, d2[2] = {n, ncol};
	r = write_strs(g, "region", p.region, d1);
	if (r == 0)
		r = write_nd(g, "lane", H5T_STD_I32LE, H5T_NATIVE_INT32, p.lane, 1, &d1);
	if (r == 0)
		r = write_nd(g, "calls", H5T_STD_I64LE, H5T_NATIVE_INT64, p.calls, 1, &d1);
	if (r == 0)
		r = write_nd(g, "inclusive", H5T_STD_I64LE, H5T_NATIVE_INT64, p.incl, 2, d2);
	if (r == 0)
		r = write_nd(g, "exclusive", H5T_STD_I64LE, H5T_NATIVE_INT64, p.excl, 2, d2);
	/* Only when some row lacks a counted event: which cells hold a count. */
	if (r == 0 && !all)
		r = write_nd(g, "counted", H5T_STD_I8LE, H5T_NATIVE_INT8, p.counted, 2, d2);
out:
	pe_rows__free(&p);
	return r;
}

/* The group from rc, row i named names[i]. */
static int write_group(hid_t rk, const struct region_counters *rc, const char *const *names,
		       int32_t lane_off)
{
	hid_t g = H5Gcreate2(rk, PE_GROUP, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	hid_t st = vstr_type();
	/* A merged rank with any test-backend run says so: its counts are made up. */
	const char *backend = rc->test_backend ? "test" : rc->backend ? rc->backend : "";
	attr_scalar(g, "backend", st, st, &backend);
	H5Tclose(st);
	attr_scalar(g, "threads_without", H5T_STD_I64LE, H5T_NATIVE_INT64, &rc->threads_without);
	attr_scalar(g, "dropped", H5T_STD_I64LE, H5T_NATIVE_INT64, &rc->dropped);
	int col[CTR_EVENTS_MAX];
	int r = write_events(g, rc, col);
	if (r >= 0)
		r = write_rows(g, rc, names, col, (size_t)r, lane_off);
	H5Gclose(g);
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
