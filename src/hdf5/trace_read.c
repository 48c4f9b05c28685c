// SPDX-License-Identifier: BSD-3-Clause
/* The reader half of hdf5/hdf5_trace.h (the writer is trace_write.c). */
#include "hdf5/hdf5_trace.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/safefs.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/trace_set.h"
#include "sp_format.h"

#include <hdf5.h>
#include <time.h>
#include <unistd.h>

static void quiet(void)
{
	/* HDF5 prints its error stack to stderr by default; the console owns it. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Parses "rank<digits>"; -1 otherwise. */
static int32_t rank_of(const char *name)
{
	if (strncmp(name, "rank", 4) != 0 || !name[4])
		return -1;
	char *end;
	long v = strtol(name + 4, &end, 10);
	return *end || v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
}

static char *link_name(hid_t g, hsize_t i)
{
	ssize_t n = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
	if (n < 0)
		return NULL;
	char *s = xmalloc((size_t)n + 1);
	if (s && H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, s, (size_t)n + 1,
				    H5P_DEFAULT) < 0)
		zfree(&s);
	return s;
}

int h5_read_list_ranks(const char *path, int32_t **ranks, size_t *nr, struct err *e)
{
	quiet();
	*ranks = NULL;
	*nr = 0;
	int reg = safefs_check_regular(path); /* HDF5 would wait on a FIFO */
	if (reg)
		return err_set(e, reg, ERR_TRACE_OPEN, "%s: cannot open: %s", path,
			       safefs_strerror(reg));
	if (H5Fis_hdf5(path) <= 0)
		return err_set(e, -EINVAL, ERR_TRACE_BAD_MAGIC,
			       "%s: byte 0: not an HDF5 file (expected the HDF5 signature)", path);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	H5G_info_t info;
	if (f < 0 || H5Gget_info(f, &info) < 0) {
		if (f >= 0)
			H5Fclose(f);
		return err_set(e, -EIO, ERR_TRACE_OPEN, "%s: cannot open as HDF5", path);
	}
	size_t cap = 0;
	int rc = 0;
	for (hsize_t i = 0; i < info.nlinks && rc == 0; i++) {
		char *nm = link_name(f, i);
		int32_t r = nm ? rank_of(nm) : -1;
		xfree(nm);
		if (r < 0)
			continue;
		if (xgrow((void **)ranks, &cap, *nr + 1, sizeof(**ranks)))
			rc = err_oom(e);
		else
			(*ranks)[(*nr)++] = r;
	}
	H5Fclose(f);
	if (rc == 0 && *nr == 0)
		rc = err_set(e, -EINVAL, ERR_TRACE_NO_RANKS,
			     "%s: expected groups /rank<N>/regions (a scope-profiler profile), "
			     "found none",
			     path);
	if (rc == 0)
		qsort(*ranks, *nr, sizeof(**ranks), cmp_i32);
	return rc;
}

static void *own(struct rank_data *rd, void *p)
{
	if (!p || xgrow((void **)&rd->owned, &rd->cap_owned, rd->nr_owned + 1,
			sizeof(*rd->owned))) {
		xfree(p);
		return NULL;
	}
	rd->owned[rd->nr_owned++] = p;
	return p;
}

/* A length read from the file is the file's word: it is believed only when
 * the dataset's storage can hold that many elements, allowing for the most a
 * compression filter can expand (deflate: about 1032 to 1). A lying header
 * must not make us allocate (or HDF5 fill) gigabytes. */
#define H5_MAX_EXPANSION 1100u

static bool backed_by_storage(hid_t d, hsize_t n, size_t elem)
{
	if (n == 0)
		return true;
	if (n > SIZE_MAX / 2 / elem)
		return false;
	hsize_t stored = H5Dget_storage_size(d);
	return stored > 0 && n * elem / H5_MAX_EXPANSION <= stored;
}

/* Reads a 1-D dataset as `type`; *n its length. NULL when absent, or (with
 * *lying set) when its length is not backed by the file. */
static void *read_1d(struct rank_data *rd, hid_t g, const char *name, hid_t type, size_t elem,
		     hsize_t *n, bool *lying)
{
	*n = 0;
	if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
		return NULL;
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return NULL;
	hid_t sp = H5Dget_space(d);
	int nd = H5Sget_simple_extent_ndims(sp);
	hsize_t dims[1] = {0};
	void *buf = NULL;
	if (nd == 1 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1) {
		if (!backed_by_storage(d, dims[0], elem))
			*lying = true;
		else if ((buf = own(rd, xmalloc(dims[0] ? dims[0] * elem : 1))) && dims[0] &&
			 H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
			buf = NULL;
		*n = dims[0];
	}
	H5Sclose(sp);
	H5Dclose(d);
	return buf;
}

/* The length of a 1-D dataset, 0 when it is not one. */
static hsize_t length_1d(hid_t d)
{
	hid_t sp = H5Dget_space(d);
	hsize_t dims[1] = {0};
	if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1 ||
	    H5Sget_simple_extent_dims(sp, dims, NULL) != 1)
		dims[0] = 0;
	if (sp >= 0)
		H5Sclose(sp);
	return dims[0];
}

static char *read_str_attr(hid_t o, const char *name)
{
	if (H5Aexists(o, name) <= 0)
		return NULL;
	hid_t a = H5Aopen(o, name, H5P_DEFAULT), t = H5Aget_type(a);
	char *out = NULL;
	if (H5Tget_class(t) == H5T_STRING) {
		if (H5Tis_variable_str(t) > 0) {
			char *v = NULL;
			hid_t mt = H5Tcopy(H5T_C_S1);
			H5Tset_size(mt, H5T_VARIABLE);
			H5Tset_cset(mt, H5Tget_cset(t));
			if (H5Aread(a, mt, &v) >= 0 && v) {
				out = xstrdup(v);
				H5free_memory(v);
			}
			H5Tclose(mt);
		} else {
			size_t sz = H5Tget_size(t);
			/* an attribute lives in an object header (64 KiB at most) */
			out = sz && sz <= 65536 ? xcalloc(sz + 1, 1) : NULL;
			if (out && H5Aread(a, t, out) < 0)
				zfree(&out);
		}
	}
	H5Tclose(t);
	H5Aclose(a);
	return out;
}

static int32_t read_int_attr(hid_t o, const char *name, int32_t dflt)
{
	if (H5Aexists(o, name) <= 0)
		return dflt;
	hid_t a = H5Aopen(o, name, H5P_DEFAULT);
	int32_t v = dflt;
	if (H5Aread(a, H5T_NATIVE_INT32, &v) < 0)
		v = dflt;
	H5Aclose(a);
	return v;
}

/* The region name of a link written without a name attribute. */
static char *unescape(const char *s)
{
	char *o = xstrdup(s);
	if (o)
		sp_h5_unescape(o);
	return o;
}

static int load_threads(struct rank_data *rd, hid_t rg)
{
	if (H5Lexists(rg, "threads", H5P_DEFAULT) <= 0)
		return 0;
	hid_t tg = H5Gopen2(rg, "threads", H5P_DEFAULT);
	hsize_t n = 0;
	bool lying = false;
	int64_t *tid = tg >= 0 ? read_1d(rd, tg, "tid", H5T_NATIVE_INT64, 8, &n, &lying) : NULL;
	if (tid && n > 0 && n < INT32_MAX) {
		xfree(rd->lanes);
		rd->lanes = xcalloc(n, sizeof(*rd->lanes));
		rd->nr_lanes = rd->lanes ? (int32_t)n : 0;
		for (hsize_t i = 0; i < n && rd->lanes; i++)
			rd->lanes[i].tid = tid[i];
		hid_t d = H5Lexists(tg, "name", H5P_DEFAULT) > 0 ? H5Dopen2(tg, "name", H5P_DEFAULT)
								 : -1;
		/* one name per tid, or none: the read fills as many as the file says */
		char **names = d >= 0 && length_1d(d) == n ? xcalloc(n, sizeof(char *)) : NULL;
		hid_t mt = H5Tcopy(H5T_C_S1);
		H5Tset_size(mt, H5T_VARIABLE);
		H5Tset_cset(mt, H5T_CSET_UTF8); /* HDF5 does not convert between charsets */
		if (names && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0) {
			for (hsize_t i = 0; i < n && rd->lanes; i++)
				rd->lanes[i].name = names[i] ? xstrdup(names[i]) : NULL;
			hid_t sp = H5Dget_space(d);
			H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, names);
			H5Sclose(sp);
		}
		xfree(names);
		H5Tclose(mt);
		if (d >= 0)
			H5Dclose(d);
	}
	if (tg >= 0)
		H5Gclose(tg);
	return rd->lanes ? 0 : -ENOMEM;
}

static int load_region(struct trace_set *ts, struct rank_data *rd, hid_t rg, const char *link,
		       const char *path, struct err *e)
{
	hid_t g = H5Gopen2(rg, link, H5P_DEFAULT);
	if (g < 0)
		return 0; /* not a group: not a region */
	char *name = read_str_attr(g, "name");
	if (!name)
		name = unescape(link);
	char *file = read_str_attr(g, "source_file");
	int32_t line = read_int_attr(g, "source_line", -1);
	hsize_t ns = 0, ne = 0, nl = 0;
	bool lying = false;
	const void *st = read_1d(rd, g, "start_times", H5T_NATIVE_INT64, 8, &ns, &lying);
	const void *en = read_1d(rd, g, "end_times", H5T_NATIVE_INT64, 8, &ne, &lying);
	const void *ln = read_1d(rd, g, "lanes", H5T_NATIVE_INT32, 4, &nl, &lying);
	int rc = 0;
	int64_t id = name ? trace_set__intern(ts, name, strlen(name), file, file ? strlen(file) : 0,
					      line)
			  : -ENOMEM;
	if (id < 0)
		rc = err_oom(e);
	else if (lying)
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			     "%s: /rank%" PRId32 "/regions/%s: a dataset's length is larger than "
			     "its storage in the file can hold (a corrupt or truncated file)",
			     path, rd->rank, link);
	else if (!st || !en || ns != ne || (ln && nl != ns))
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			     "%s: /rank%" PRId32 "/regions/%s: expected int64 datasets start_times "
			     "and end_times of one length (and lanes alike), found %s",
			     path, rd->rank, link, !st || !en ? "one missing" : "different lengths");
	else
		rd->regions[rd->nr_regions++] = (struct rank_region){
			(uint32_t)id, (int64_t)ns, st, en, rd->nr_lanes > 1 ? ln : NULL, 0, 0};
	xfree(name);
	xfree(file);
	H5Gclose(g);
	return rc;
}

int h5_read_load(struct trace_set *ts, const char *path, int32_t rank, struct rank_data *rd,
		  struct err *e)
{
	quiet();
	char grp[64];
	snprintf(grp, sizeof(grp), "rank%" PRId32, rank);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t rg = f >= 0 ? H5Gopen2(f, grp, H5P_DEFAULT) : -1;
	hid_t g = rg >= 0 && H5Lexists(rg, "regions", H5P_DEFAULT) > 0
			  ? H5Gopen2(rg, "regions", H5P_DEFAULT)
			  : -1;
	H5G_info_t info;
	hsize_t file_size = 0;
	int rc = 0;
	if (g < 0 || H5Gget_info(g, &info) < 0 || H5Fget_filesize(f, &file_size) < 0 ||
	    info.nlinks > file_size) { /* a link takes bytes of the file */
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT, "%s: expected a group /%s/regions", path,
			     grp);
		goto out;
	}
	rd->nr_lanes = 1;
	rd->lanes = xcalloc(1, sizeof(*rd->lanes));
	rd->regions = xcalloc(info.nlinks + 1, sizeof(*rd->regions));
	if (!rd->lanes || !rd->regions || load_threads(rd, rg)) {
		rc = err_oom(e);
		goto out;
	}
	for (hsize_t i = 0; i < info.nlinks && rc == 0; i++) {
		char *link = link_name(g, i);
		rc = link ? load_region(ts, rd, g, link, path, e)
			  : err_set(e, -EIO, ERR_TRACE_CORRUPT, "%s: unreadable link in /%s/regions",
				    path, grp);
		xfree(link);
	}
out:
	if (g >= 0)
		H5Gclose(g);
	if (rg >= 0)
		H5Gclose(rg);
	if (f >= 0)
		H5Fclose(f);
	return rc;
}
