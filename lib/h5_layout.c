/* SPDX-License-Identifier: BSD-3-Clause */
/* The .h5 profile's layout, shared by both writers (h5_layout.h). */
#include "h5_layout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp_format.h"

static hid_t str_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

static void attr(hid_t obj, const char *name, hid_t file_type, hid_t mem_type, const void *v)
{
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, mem_type, v);
		H5Aclose(a);
	}
	H5Sclose(s);
}

void sp_h5_attr_str(hid_t obj, const char *name, const char *value)
{
	hid_t t = str_type();
	const char *v = value ? value : "";
	attr(obj, name, t, t, &v);
	H5Tclose(t);
}

void sp_h5_attr_i64(hid_t obj, const char *name, int64_t v)
{
	attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

void sp_h5_attr_f64(hid_t obj, const char *name, double v)
{
	attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

int sp_h5_dset(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, int nd,
	       const hsize_t *dims, const void *data)
{
	hid_t s = H5Screate_simple(nd, dims, NULL);
	hid_t d = H5Dcreate2(loc, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	bool empty = false;
	for (int i = 0; i < nd; i++)
		empty |= dims[i] == 0;
	int rc = d < 0 ? -EIO : 0;
	if (d >= 0) {
		if (!empty && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
			rc = -EIO;
		H5Dclose(d);
	}
	H5Sclose(s);
	return rc;
}

static int dset_1d(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, size_t n,
		   const void *data)
{
	hsize_t dims[1] = {n};
	return sp_h5_dset(loc, name, file_type, mem_type, 1, dims, data);
}

int sp_h5_dset_strings(hid_t loc, const char *name, const char *const *v, size_t n)
{
	hid_t t = str_type();
	int rc = dset_1d(loc, name, t, t, n, v);
	H5Tclose(t);
	return rc;
}

static void attr_str_opt(hid_t g, const char *name, const char *v)
{
	if (v)
		sp_h5_attr_str(g, name, v);
}

int sp_h5_write_metadata(hid_t file, const struct sp_h5_metadata *m)
{
	hid_t g = H5Gcreate2(file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	sp_h5_attr_i64(g, "schema", SP_H5_SCHEMA);
	attr_str_opt(g, "timestamp", m->timestamp);
	attr_str_opt(g, "writer", m->writer);
	attr_str_opt(g, "versions", m->versions);
	attr_str_opt(g, "hostname", m->hostname);
	attr_str_opt(g, "platform", m->platform);
	attr_str_opt(g, "working_directory", m->working_directory);
	attr_str_opt(g, "user", m->user);
	attr_str_opt(g, "label", m->label);
	sp_h5_attr_i64(g, "omp_num_threads", m->omp_num_threads);
	sp_h5_attr_i64(g, "mpi_size", m->mpi_size);
	sp_h5_attr_i64(g, "total_cores", m->total_cores);
	if (m->start_time_ns >= 0)
		sp_h5_attr_i64(g, "start_time_ns", m->start_time_ns);
	if (m->finalize_time_ns >= 0)
		sp_h5_attr_i64(g, "finalize_time_ns", m->finalize_time_ns);
	if (m->num_nodes > 0) /* unknown: absent, as the published reader expects */
		sp_h5_attr_i64(g, "num_nodes", m->num_nodes);
	return H5Gclose(g) < 0 ? -EIO : 0;
}

/* One column of a region, written a slice at a time. */
static int column(hid_t rg, const struct sp_h5_region *r, int col, void *buf, size_t slice)
{
	bool lane = col == SP_H5_LANE;
	hid_t ft = lane ? H5T_STD_I32LE : H5T_STD_I64LE, mt = lane ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64;
	const char *name = col == SP_H5_START ? "start_times" : col == SP_H5_END ? "end_times" : "lanes";
	hsize_t dims[1] = {r->nr_calls};
	hid_t s = H5Screate_simple(1, dims, NULL);
	hid_t d = H5Dcreate2(rg, name, ft, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int rc = d < 0 ? -EIO : 0;
	for (size_t done = 0; rc == 0 && done < r->nr_calls;) {
		size_t m = r->nr_calls - done < slice ? r->nr_calls - done : slice;
		rc = r->fill(r->ctx, col, done, m, buf);
		if (rc)
			break;
		hsize_t off[1] = {done}, cnt[1] = {m};
		hid_t ms = H5Screate_simple(1, cnt, NULL);
		H5Sselect_hyperslab(s, H5S_SELECT_SET, off, NULL, cnt, NULL);
		if (H5Dwrite(d, mt, ms, s, H5P_DEFAULT, buf) < 0)
			rc = -EIO;
		H5Sclose(ms);
		done += m;
	}
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(s);
	return rc;
}

int sp_h5_write_region(hid_t regions, const struct sp_h5_region *r, void *buf, size_t slice)
{
	char *link = malloc(3 * strlen(r->name) + 4);
	if (!link)
		return -ENOMEM;
	sp_h5_escape(r->name, link);
	hid_t rg = H5Gcreate2(regions, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	free(link);
	if (rg < 0)
		return -EIO;
	int rc = column(rg, r, SP_H5_START, buf, slice);
	if (rc == 0)
		rc = column(rg, r, SP_H5_END, buf, slice);
	if (rc == 0 && r->lanes)
		rc = column(rg, r, SP_H5_LANE, buf, slice);
	sp_h5_attr_str(rg, "name", r->name);
	sp_h5_attr_str(rg, "source_file", r->file ? r->file : "");
	sp_h5_attr_i64(rg, "source_line", r->file ? r->line : -1);
	if (r->file && r->line >= 0) /* the published reader's name for it */
		sp_h5_attr_i64(rg, "source_lineno", r->line);
	H5Gclose(rg);
	return rc;
}

int sp_h5_write_threads(hid_t rank, size_t n, const int64_t *tid, const char *const *names)
{
	hid_t g = H5Gcreate2(rank, "threads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	int rc = dset_1d(g, "tid", H5T_STD_I64LE, H5T_NATIVE_INT64, n, tid);
	if (rc == 0)
		rc = sp_h5_dset_strings(g, "name", names, n);
	H5Gclose(g);
	return rc;
}

/* One 1-D dataset of a group: numbers, or strings (file_type STRINGS). */
struct h5_col {
	const char *name;
	hid_t file_type, mem_type;
	size_t n;
	const void *data;
};
#define STRINGS H5I_INVALID_HID

/* The columns in order (the order the datasets are created in). */
static int write_cols(hid_t g, const struct h5_col *c, size_t nr)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nr; i++)
		rc = c[i].file_type == STRINGS
			     ? sp_h5_dset_strings(g, c[i].name, (const char *const *)c[i].data,
						  c[i].n)
			     : dset_1d(g, c[i].name, c[i].file_type, c[i].mem_type, c[i].n,
				       c[i].data);
	return rc;
}

int sp_h5_write_samples(hid_t rank, const struct sp_h5_samples *s)
{
	hid_t g = H5Gcreate2(rank, "samples", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	sp_h5_attr_f64(g, "effective_hz", s->effective_hz);
	if (s->requested_hz >= 0)
		sp_h5_attr_i64(g, "requested_hz", s->requested_hz);
	sp_h5_attr_i64(g, "ticks", s->ticks);
	if (s->overhead >= 0)
		sp_h5_attr_f64(g, "overhead", s->overhead);
	size_t n = s->nr_samples;
	const struct h5_col cols[] = {
		{"region", H5T_STD_I32LE, H5T_NATIVE_INT32, n, s->region},
		{"module", H5T_STD_I32LE, H5T_NATIVE_INT32, n, s->module},
		{"address", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, s->address},
		{"weight", H5T_STD_I32LE, H5T_NATIVE_INT32, n, s->weight},
		{"region_names", STRINGS, STRINGS, s->nr_regions, s->region_names},
		{"module_paths", STRINGS, STRINGS, s->nr_modules, s->module_paths},
		{"module_bases", H5T_STD_U64LE, H5T_NATIVE_UINT64, s->nr_modules, s->module_bases},
	};
	int rc = write_cols(g, cols, sizeof(cols) / sizeof(cols[0]));
	H5Gclose(g);
	return rc;
}

int sp_h5_write_counters(hid_t rank, const struct sp_h5_counters *c)
{
	hid_t g = H5Gcreate2(rank, "perf_events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	sp_h5_attr_str(g, "backend", c->backend);
	sp_h5_attr_i64(g, "threads_without", c->threads_without);
	sp_h5_attr_i64(g, "dropped", c->dropped);
	size_t n = c->nr_events, rows = c->nr_rows;
	hsize_t d2[2] = {rows, c->nr_counted};
	const struct h5_col cols[] = {
		{"event_names", STRINGS, STRINGS, n, c->event_names},
		{"event_kinds", H5T_STD_I32LE, H5T_NATIVE_INT32, n, c->event_kinds},
		{"event_status", H5T_STD_I32LE, H5T_NATIVE_INT32, n, c->event_status},
		{"event_reasons", STRINGS, STRINGS, n, c->event_reasons},
		{"region", STRINGS, STRINGS, rows, c->region},
		{"lane", H5T_STD_I32LE, H5T_NATIVE_INT32, rows, c->lane},
		{"calls", H5T_STD_I64LE, H5T_NATIVE_INT64, rows, c->calls},
	};
	int rc = write_cols(g, cols, sizeof(cols) / sizeof(cols[0]));
	if (rc == 0)
		rc = sp_h5_dset(g, "inclusive", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, d2, c->inclusive);
	if (rc == 0)
		rc = sp_h5_dset(g, "exclusive", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, d2, c->exclusive);
	if (rc == 0 && c->counted)
		rc = sp_h5_dset(g, "counted", H5T_STD_I8LE, H5T_NATIVE_INT8, 2, d2, c->counted);
	H5Gclose(g);
	return rc;
}
