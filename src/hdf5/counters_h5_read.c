// SPDX-License-Identifier: BSD-3-Clause
/* The reader of /rank<r>/perf_events (the writer is counters_h5.c). Every
 * length is checked against the others and against the file's storage: a
 * malformed group is a clear error naming the file and the dataset. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "hdf5/counters_h5.h"
#include "hdf5/hdf5_trace.h"
#include "regions/region_counters.h"
#include "regions/trace_set.h"

#define PE_EVENTS_MAX 64
#define PE_COUNTED_MAX 8
#define PE_MAX_EXPANSION 1100u /* deflate's worst ratio, as trace_read.c */

struct pe_read {
	hid_t g;
	const char *path, *what;
	int32_t rank;
	struct err *e;
};

static int bad(const struct pe_read *p, const char *what)
{
	return err_set(p->e, -EINVAL, ERR_TRACE_CORRUPT,
		       "%s: /rank%" PRId32 "/perf_events/%s: expected %s", p->path, p->rank,
		       p->what, what);
}

/* Opens dataset `name` and checks its shape: nd dimensions, the first
 * `n0` (or any when n0 is NULL and *got0 receives it), the second n1. */
static hid_t open_ds(struct pe_read *p, const char *name, int nd, hsize_t n0, hsize_t n1,
		     size_t elem, hsize_t *got0)
{
	p->what = name;
	hid_t d = H5Lexists(p->g, name, H5P_DEFAULT) > 0 ? H5Dopen2(p->g, name, H5P_DEFAULT) : -1;
	if (d < 0) {
		bad(p, "a dataset");
		return -1;
	}
	hid_t sp = H5Dget_space(d);
	hsize_t dims[2] = {0, 0};
	bool ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == nd &&
		  H5Sget_simple_extent_dims(sp, dims, NULL) == nd;
	if (sp >= 0)
		H5Sclose(sp);
	hsize_t cells = nd == 2 ? dims[0] * dims[1] : dims[0];
	ok = ok && (got0 || dims[0] == n0) && (nd == 1 || dims[1] == n1) &&
	     dims[0] < ((hsize_t)1 << 40) && dims[1] <= PE_COUNTED_MAX;
	ok = ok && (cells == 0 || cells * elem / PE_MAX_EXPANSION <= H5Dget_storage_size(d));
	if (!ok) {
		H5Dclose(d);
		bad(p, nd == 2 ? "a 2-D dataset of one row per counter row and one column "
				 "per counted event"
			       : "a 1-D dataset of one value per event or row, backed by the file");
		return -1;
	}
	if (got0)
		*got0 = dims[0];
	return d;
}

static int read_ds(struct pe_read *p, const char *name, hid_t mtype, void *buf, int nd,
		   hsize_t n0, hsize_t n1, size_t elem, hsize_t *got0)
{
	hid_t d = open_ds(p, name, nd, n0, n1, elem, got0);
	if (d < 0)
		return -EINVAL;
	hsize_t rows = got0 ? *got0 : n0;
	herr_t r = rows && (nd == 1 || n1) ? H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)
					   : 0;
	H5Dclose(d);
	return r < 0 ? bad(p, "a readable dataset") : 0;
}

/* Reads a string dataset of n entries into v (caller reclaims with
 * free_strs). */
static int read_strs(struct pe_read *p, const char *name, char **v, hsize_t n)
{
	hid_t d = open_ds(p, name, 1, n, 0, 1, NULL);
	if (d < 0)
		return -EINVAL;
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	hid_t ft = H5Dget_type(d);
	bool str = H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0;
	H5Tclose(ft);
	herr_t r = str && n ? H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : str ? 0 : -1;
	H5Tclose(t);
	H5Dclose(d);
	for (hsize_t i = 0; r >= 0 && i < n; i++)
		if (!v[i])
			r = -1;
	return r < 0 ? bad(p, "a dataset of variable-length strings") : 0;
}

static void free_strs(char **v, hsize_t n)
{
	for (hsize_t i = 0; v && i < n; i++)
		H5free_memory(v[i]);
}

static char *str_attr(hid_t g, const char *name)
{
	if (H5Aexists(g, name) <= 0)
		return NULL;
	hid_t a = H5Aopen(g, name, H5P_DEFAULT), ft = H5Aget_type(a);
	char *v = NULL, *out = NULL;
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	if (H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0) {
		if (H5Aread(a, t, &v) >= 0 && v) {
			out = xstrdup(v);
			H5free_memory(v);
		}
	} else if (H5Tget_class(ft) == H5T_STRING) { /* fixed length, as the library writes */
		size_t sz = H5Tget_size(ft);
		out = sz && sz <= 65536 ? xcalloc(sz + 1, 1) : NULL;
		if (out && H5Aread(a, ft, out) < 0)
			zfree(&out);
	}
	H5Tclose(t);
	H5Tclose(ft);
	H5Aclose(a);
	return out;
}

static int64_t i64_attr(hid_t g, const char *name)
{
	int64_t v = 0;
	if (H5Aexists(g, name) > 0) {
		hid_t a = H5Aopen(g, name, H5P_DEFAULT);
		if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0 || v < 0)
			v = 0;
		H5Aclose(a);
	}
	return v;
}

/* The events: their global indices in map (counted ones, in order). */
static int read_events(struct pe_read *p, struct region_counters *rc, int *map, size_t *ncol)
{
	hsize_t n = 0;
	int32_t kinds[PE_EVENTS_MAX], status[PE_EVENTS_MAX];
	char *names[PE_EVENTS_MAX] = {0}, *reasons[PE_EVENTS_MAX] = {0};
	hid_t d = open_ds(p, "event_kinds", 1, 0, 0, 4, &n);
	if (d < 0)
		return -EINVAL;
	H5Dclose(d);
	if (n > PE_EVENTS_MAX)
		return bad(p, "at most 64 events");
	int r = read_ds(p, "event_kinds", H5T_NATIVE_INT32, kinds, 1, n, 0, 4, NULL);
	if (r == 0)
		r = read_ds(p, "event_status", H5T_NATIVE_INT32, status, 1, n, 0, 4, NULL);
	if (r == 0)
		r = read_strs(p, "event_names", names, n);
	if (r == 0)
		r = read_strs(p, "event_reasons", reasons, n);
	*ncol = 0;
	for (hsize_t i = 0; r == 0 && i < n; i++) {
		bool counted = status[i] == 0;
		if (counted && *ncol == PE_COUNTED_MAX) {
			p->what = "event_status";
			r = bad(p, "at most 8 counted events");
			break;
		}
		int g = region_counters__event(rc, names[i], strlen(names[i]), kinds[i]);
		if (g == -2 || region_counters__note(rc, g, p->rank, counted, reasons[i],
						     strlen(reasons[i])))
			r = err_oom(p->e);
		if (counted)
			map[(*ncol)++] = g;
	}
	free_strs(names, n);
	free_strs(reasons, n);
	return r;
}

struct pe_cols {
	char **region;
	int32_t *lane;
	int64_t *calls, *incl, *excl;
	int8_t *counted; /* NULL: every cell counted (no `counted` dataset) */
	hsize_t n;
};

static int read_cols(struct pe_read *p, struct pe_cols *c, size_t ncol)
{
	hid_t d = open_ds(p, "calls", 1, 0, 0, 8, &c->n);
	if (d < 0)
		return -EINVAL;
	H5Dclose(d);
	c->region = xcalloc(c->n + 1, sizeof(char *));
	c->lane = xcalloc(c->n + 1, sizeof(int32_t));
	c->calls = xcalloc(c->n + 1, sizeof(int64_t));
	c->incl = xcalloc(c->n * ncol + 1, sizeof(int64_t));
	c->excl = xcalloc(c->n * ncol + 1, sizeof(int64_t));
	if (!c->region || !c->lane || !c->calls || !c->incl || !c->excl)
		return err_oom(p->e);
	int r = read_ds(p, "calls", H5T_NATIVE_INT64, c->calls, 1, c->n, 0, 8, NULL);
	if (r == 0)
		r = read_ds(p, "lane", H5T_NATIVE_INT32, c->lane, 1, c->n, 0, 4, NULL);
	if (r == 0)
		r = read_ds(p, "inclusive", H5T_NATIVE_INT64, c->incl, 2, c->n, ncol, 8, NULL);
	if (r == 0)
		r = read_ds(p, "exclusive", H5T_NATIVE_INT64, c->excl, 2, c->n, ncol, 8, NULL);
	if (r == 0)
		r = read_strs(p, "region", c->region, c->n);
	if (r == 0 && H5Lexists(p->g, "counted", H5P_DEFAULT) > 0) { /* a merged rank */
		c->counted = xcalloc(c->n * ncol + 1, sizeof(int8_t));
		r = c->counted ? read_ds(p, "counted", H5T_NATIVE_INT8, c->counted, 2, c->n, ncol,
					 1, NULL)
			       : err_oom(p->e);
	}
	return r;
}

static int add_rows(struct pe_read *p, struct region_counters *rc, struct trace_set *ts,
		    const int *map, size_t ncol)
{
	struct pe_cols c = {0};
	int r = read_cols(p, &c, ncol);
	for (hsize_t i = 0; r == 0 && i < c.n; i++) {
		if (c.lane[i] < 0 || c.calls[i] < 0) {
			p->what = c.lane[i] < 0 ? "lane" : "calls";
			r = bad(p, "values >= 0");
			break;
		}
		int rmap[PE_COUNTED_MAX];
		for (size_t k = 0; k < ncol; k++)
			rmap[k] = !c.counted || c.counted[i * ncol + k] ? map[k] : -1;
		int64_t id = trace_set__intern(ts, c.region[i], strlen(c.region[i]), NULL, 0, -1);
		if (id < 0 || region_counters__add_row(rc, p->rank, c.lane[i], (uint32_t)id,
						       c.calls[i], rmap, ncol, c.incl + i * ncol,
						       c.excl + i * ncol))
			r = err_oom(p->e);
	}
	free_strs(c.region, c.region ? c.n : 0);
	xfree(c.region);
	xfree(c.lane);
	xfree(c.calls);
	xfree(c.incl);
	xfree(c.excl);
	xfree(c.counted);
	return r;
}

static int read_group(struct pe_read *p, struct region_counters *rc, struct trace_set *ts)
{
	rc->ranks_with++;
	rc->threads_without += i64_attr(p->g, "threads_without");
	rc->dropped += i64_attr(p->g, "dropped");
	char *backend = str_attr(p->g, "backend");
	if (backend && !strcmp(backend, "test"))
		rc->test_backend = true;
	if (!rc->backend)
		rc->backend = backend;
	else
		xfree(backend);
	int map[PE_COUNTED_MAX];
	size_t ncol = 0;
	int r = read_events(p, rc, map, &ncol);
	return r ? r : add_rows(p, rc, ts, map, ncol);
}

int h5_read_counters(struct region_counters *rc, struct trace_set *ts, const char *path,
		     int32_t rank, struct err *e)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	char grp[64];
	snprintf(grp, sizeof(grp), "rank%" PRId32, rank);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return err_set(e, -EIO, ERR_TRACE_CORRUPT, "%s: cannot open the HDF5 file", path);
	hid_t rg = H5Lexists(f, grp, H5P_DEFAULT) > 0 ? H5Gopen2(f, grp, H5P_DEFAULT) : -1;
	int r = 0;
	if (rg < 0 || H5Lexists(rg, "perf_events", H5P_DEFAULT) <= 0) {
		rc->ranks_without++;
	} else {
		struct pe_read p = {.path = path, .rank = rank, .e = e};
		p.g = H5Gopen2(rg, "perf_events", H5P_DEFAULT);
		p.what = "";
		r = p.g < 0 ? bad(&p, "a group") : read_group(&p, rc, ts);
		if (p.g >= 0)
			H5Gclose(p.g);
	}
	if (rg >= 0)
		H5Gclose(rg);
	H5Fclose(f);
	return r;
}
