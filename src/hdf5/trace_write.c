// SPDX-License-Identifier: BSD-3-Clause
/* The writer half of hdf5/hdf5_trace.h (the reader is trace_read.c). */
#include "hdf5/hdf5_trace.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "build_config.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/outfile.h"
#include "common/timefmt.h"
#include "ingest/sps_reader.h"
#include "hdf5/counters_h5.h"
#include "regions/region_counters.h"
#include "regions/trace_set.h"
#include "h5_layout.h"
#include "sp_format.h"

/* The .h5 a source's rank has (itself, or the library's .h5 beside its
 * .spt), or NULL; caller frees. */
static char *rank_h5(const struct trace_source *src)
{
	if (src->kind == TRACE_H5)
		return xstrdup(src->path);
	size_t n = strlen(src->path);
	if (n < 4 || strcmp(src->path + n - 4, ".spt") != 0)
		return NULL;
	char *p = xstrdup(src->path);
	if (p)
		memcpy(p + n - 4, ".h5\0", 4);
	if (p && access(p, R_OK) != 0)
		zfree(&p);
	return p;
}

/* Copies /metadata of the lowest rank's own .h5 (hostname, platform, label,
 * mpi_size... as the run wrote them). False when there is none. */
static bool copy_metadata(hid_t f, const struct trace_set *ts)
{
	char *src = ts->nr_src ? rank_h5(&ts->src[0]) : NULL;
	hid_t in = src ? H5Fopen(src, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
	bool ok = in >= 0 && H5Lexists(in, "metadata", H5P_DEFAULT) > 0 &&
		  H5Ocopy(in, "metadata", f, "metadata", H5P_DEFAULT, H5P_DEFAULT) >= 0;
	if (in >= 0)
		H5Fclose(in);
	xfree(src);
	if (!ok)
		return false;
	hid_t m = H5Gopen2(f, "metadata", H5P_DEFAULT);
	if (m >= 0) {
		if (H5Aexists(m, "converted_by") <= 0)
			sp_h5_attr_str(m, "converted_by", "nunatak " NUNATAK_VERSION " (regions convert)");
		H5Gclose(m);
	}
	return true;
}

/* /metadata when no rank's own .h5 gives it, in the layout of
 * docs/formats.md (lib/h5_layout.c). The traces do not record the run's
 * host or environment, so those fields say "unknown" (and -1 for the
 * numeric ones) rather than describing the converting machine; timestamp
 * is the conversion's. The published reader's run bounds come from the
 * ranks whose trace carries its timing (earliest start: the process start
 * when known, else sp_init; latest finalize), so this is written after the
 * ranks are loaded; unknown: absent. */
static int write_metadata(hid_t f, size_t nr_ranks, const char *label,
			  const struct trace_set *set)
{
	int64_t start = -1, fin = -1;
	for (size_t i = 0; set && i < set->notes.nr; i++) {
		const struct rank_note *r = &set->notes.v[i];
		if (!r->has_timing)
			continue;
		int64_t s0 = r->start_ns >= 0 ? r->start_ns : r->init_ns;
		start = start < 0 || s0 < start ? s0 : start;
		fin = r->finalize_ns > fin ? r->finalize_ns : fin;
	}
	char ts[ISO8601_SIZE];
	iso8601(time(NULL), ISO8601_LOCAL_NO_OFFSET, ts, sizeof(ts));
	struct sp_h5_metadata m = {
		.timestamp = ts,
		.writer = "nunatak " NUNATAK_VERSION " (regions convert)",
		.versions = "unknown",
		.hostname = "unknown",
		.platform = "unknown",
		.working_directory = "unknown",
		.user = "unknown",
		.label = label,
		.omp_num_threads = -1,
		.mpi_size = (int64_t)nr_ranks,
		.total_cores = -1,
		.start_time_ns = start,
		.finalize_time_ns = fin,
		.num_nodes = nr_ranks == 1 ? 1 : 0,
	};
	return sp_h5_write_metadata(f, &m);
}

/* One region's calls as loaded: fills the layout's columns (lanes shifted
 * by lane_offset; 0 on a trace without lanes). */
struct region_cols {
	const struct rank_data *rd;
	const struct rank_region *r;
	int32_t lane_offset;
};

static int fill(void *ctx, int col, size_t at, size_t m, void *buf)
{
	const struct region_cols *x = ctx;
	const struct rank_region *r = x->r;
	bool swap = x->rd->swap;
	int64_t *v = buf;
	int32_t *ln = buf;
	for (size_t i = at; i < at + m; i++) {
		if (col == SP_H5_START)
			v[i - at] = spt_load_i64(r->starts + 8 * i, swap);
		else if (col == SP_H5_END)
			v[i - at] = spt_load_i64(r->ends + 8 * i, swap);
		else
			ln[i - at] = (r->lanes ? spt_load_i32(r->lanes + 4 * i, swap) : 0) +
				     x->lane_offset;
	}
	return 0;
}

/* One region group. Lanes are shifted by lane_offset (merge), and written
 * even for a one-lane trace when force_lanes (the merged rank has several). */
static int write_region(hid_t rg, const struct trace_set *ts, const struct rank_data *rd,
			const struct rank_region *r, int32_t lane_offset, bool force_lanes)
{
	const struct region_info *ri = &ts->regions[r->id];
	size_t n = (size_t)r->nr_calls, slice = n < 65536 ? n + 1 : 65536;
	int64_t *buf = xmalloc(slice * 8);
	if (!buf)
		return -ENOMEM;
	struct region_cols cols = {rd, r, lane_offset};
	struct sp_h5_region out = {
		.name = ri->name,
		.file = ri->file,
		.line = ri->line,
		.nr_calls = n,
		.lanes = r->lanes || force_lanes,
		.fill = fill,
		.ctx = &cols,
	};
	int rc = sp_h5_write_region(rg, &out, buf, slice);
	xfree(buf);
	return rc;
}

/* /rank<r>/threads of one rank, or of the same rank of several runs with
 * their lanes one after the other (merge). */
static int write_threads_of(hid_t rk, const struct rank_data *const *rds, size_t nr)
{
	hsize_t n = 0;
	bool any = false;
	for (size_t k = 0; k < nr; k++) {
		n += (hsize_t)rds[k]->nr_lanes;
		any |= rds[k]->nr_lanes > 1 || rds[k]->lanes[0].tid >= 0;
	}
	if (!any && nr <= 1)
		return 0;
	int64_t *tid = xmalloc(n * 8 + 8);
	const char **nm = xmalloc(n * sizeof(char *) + 8);
	int rc = -ENOMEM;
	if (tid && nm) {
		hsize_t i = 0;
		for (size_t k = 0; k < nr; k++)
			for (int32_t l = 0; l < rds[k]->nr_lanes; l++, i++) {
				tid[i] = rds[k]->lanes[l].tid;
				nm[i] = rds[k]->lanes[l].name ? rds[k]->lanes[l].name : "";
			}
		rc = sp_h5_write_threads(rk, n, tid, nm);
	}
	xfree(tid);
	xfree(nm);
	return rc;
}

/* Copies /rank<rank>/<what> of the source's own .h5 (the library's, beside
 * its .spt) into rk. False when there is none. */
static bool copy_from_h5(hid_t rk, const struct trace_source *src, int32_t rank,
			 const char *what)
{
	char grp[64];
	snprintf(grp, sizeof(grp), "rank%" PRId32 "/%s", rank, what);
	char *h5 = rank_h5(src);
	hid_t in = h5 ? H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
	bool copied = in >= 0 && H5Lexists(in, grp, H5P_DEFAULT) > 0 &&
		      H5Ocopy(in, grp, rk, what, H5P_DEFAULT, H5P_DEFAULT) >= 0;
	if (in >= 0)
		H5Fclose(in);
	xfree(h5);
	return copied;
}

/* A one-thread .spt keeps no thread table: its thread's id and name are
 * copied from the library's .h5 beside it when there is one. */
static int write_threads(hid_t rk, const struct rank_data *rd, const struct trace_source *src)
{
	bool known = rd->nr_lanes > 1 || rd->lanes[0].tid >= 0;
	if (!known && copy_from_h5(rk, src, rd->rank, "threads"))
		return 0;
	return write_threads_of(rk, &rd, 1);
}

/* /rank<r>/samples in the library's layout from a parsed .sps. */
static int samples_from_sps(hid_t rk, const struct sps_file *sf)
{
	hsize_t n = (hsize_t)sf->nr_samples, nr = (hsize_t)sf->nr_regions,
		nm = (hsize_t)sf->nr_modules;
	int32_t *reg = xmalloc(n * 4 + 4), *mod = xmalloc(n * 4 + 4), *wgt = xmalloc(n * 4 + 4);
	uint64_t *adr = xmalloc(n * 8 + 8), *base = xmalloc(nm * 8 + 8);
	char **names = xcalloc(nr + nm + 1, sizeof(*names));
	int rc = -ENOMEM;
	if (!reg || !mod || !wgt || !adr || !base || !names)
		goto out;
	for (hsize_t i = 0; i < n; i++) {
		struct sps_sample x = sps_file__sample(sf, (int64_t)i);
		reg[i] = x.region;
		mod[i] = x.module;
		adr[i] = x.address;
		wgt[i] = x.weight;
	}
	for (hsize_t i = 0; i < nr; i++)
		if (!(names[i] = xstrndup(sf->regions[i].s, sf->regions[i].len)))
			goto out;
	for (hsize_t i = 0; i < nm; i++) {
		if (!(names[nr + i] = xstrndup(sf->modules[i].path, sf->modules[i].path_len)))
			goto out;
		base[i] = sf->modules[i].load_address;
	}
	/* The .sps keeps the rate rounded, and neither the rate asked nor the
	 * handler's overhead: those two attributes are left out. */
	struct sp_h5_samples s = {
		.effective_hz = (double)sf->hz,
		.requested_hz = -1,
		.ticks = sf->ticks,
		.overhead = -1,
		.nr_samples = n,
		.region = reg,
		.module = mod,
		.address = adr,
		.weight = wgt,
		.nr_regions = nr,
		.nr_modules = nm,
		.region_names = (const char *const *)names,
		.module_paths = (const char *const *)names + nr,
		.module_bases = base,
	};
	rc = sp_h5_write_samples(rk, &s);
out:
	for (hsize_t i = 0; names && i < nr + nm; i++)
		xfree(names[i]);
	xfree(names);
	xfree(reg);
	xfree(mod);
	xfree(wgt);
	xfree(adr);
	xfree(base);
	return rc;
}

/* The rank's samples: copied from its .h5 when it has them, else from the
 * .sps beside its .spt. Nothing (0) when the run did not sample. */
static int write_samples(hid_t rk, const struct trace_source *src, int32_t rank,
			 struct err *e)
{
	bool copied = copy_from_h5(rk, src, rank, "samples");
	size_t n = strlen(src->path);
	if (copied || src->kind != TRACE_SPT || n < 4)
		return 0;
	char *sps = xstrdup(src->path);
	if (!sps)
		return -ENOMEM;
	memcpy(sps + n - 4, ".sps", 4);
	void *map = NULL;
	size_t len = 0;
	struct sps_file sf;
	int rc = 0;
	if (access(sps, R_OK) == 0 && (rc = trace_map_file(sps, &map, &len, e)) == 0) {
		if ((rc = sps_parse(map, len, sps, &sf, e)) == 0) {
			rc = samples_from_sps(rk, &sf);
			if (rc)
				err_set(e, rc, ERR_OUTPUT_WRITE, "%s: writing its samples failed", sps);
			sps_file__release(&sf);
		}
		trace_unmap_file(map, len);
	}
	xfree(sps);
	return rc;
}

/* The counters per region of a source, as /rank<r>/perf_events (lanes
 * shifted by lane_off). *wrote: the source had a counter section. */
static int write_counters(hid_t rk, struct trace_set *ts, const struct trace_source *src,
			  int32_t lane_off, bool *wrote, struct err *e)
{
	struct region_counters rc;
	int r = h5_counters_of_source(&rc, ts, src, e);
	if (r)
		return r;
	*wrote = rc.ranks_with > 0;
	r = h5_counters_write(rk, &rc, ts, lane_off);
	region_counters__release(&rc);
	if (r)
		err_set(e, r, ERR_OUTPUT_WRITE, "%s: writing its counters per region failed",
			src->path);
	return r;
}

static int write_rank(hid_t f, struct trace_set *ts, size_t i, struct err *e)
{
	struct rank_data rd;
	int rc = trace_set__load(ts, i, &rd, e);
	if (rc)
		return rc;
	char name[64];
	snprintf(name, sizeof(name), "rank%" PRId32, rd.rank);
	hid_t rk = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	hid_t rg = rk >= 0 ? H5Gcreate2(rk, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	rc = rg < 0 ? -EIO : write_threads(rk, &rd, &ts->src[i]);
	for (size_t r = 0; r < rd.nr_regions && rc == 0; r++)
		rc = write_region(rg, ts, &rd, &rd.regions[r], 0, false);
	if (rc == 0 && rk >= 0 && (rc = write_samples(rk, &ts->src[i], rd.rank, e)) != 0)
		goto close; /* e names the samples file */
	bool wrote = false;
	if (rc == 0 && rk >= 0 && (rc = write_counters(rk, ts, &ts->src[i], 0, &wrote, e)) != 0)
		goto close;
	if (rc)
		err_set(e, rc, ERR_OUTPUT_WRITE, "writing /%s of the HDF5 file failed (%s)", name,
			rc == -ENOMEM ? "out of memory" : "HDF5 error");
close:
	if (rg >= 0)
		H5Gclose(rg);
	if (rk >= 0)
		H5Gclose(rk);
	rank_data__release(&rd);
	return rc;
}

int h5_write_convert(struct trace_set *ts, const char *out, struct console *con,
		     struct err *e)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	char *tmp = outfile_tmp_name(out);
	if (!tmp)
		return err_oom(e);
	hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	int rc = 0;
	if (f < 0) {
		rc = err_set(e, -EIO, ERR_OUTPUT_OPEN, "%s: cannot create the HDF5 file", out);
		goto out;
	}
	for (size_t i = 0; i < ts->nr_src && rc == 0; i++) {
		rc = write_rank(f, ts, i, e);
		if (con && con->terminal)
			console__progress(con, "converting ranks", i + 1, ts->nr_src);
	}
	if (rc == 0 && !copy_metadata(f, ts) && write_metadata(f, ts->nr_src, ts->label, ts))
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "%s: writing /metadata failed", out);
	if (con && con->terminal)
		console__progress_end(con, "converting ranks");
	if (H5Fclose(f) < 0 && rc == 0)
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "%s: closing the HDF5 file failed", out);
	if (rc == 0)
		rc = outfile_commit_path(tmp, out, e);
out:
	if (rc)
		unlink(tmp);
	xfree(tmp);
	return rc;
}

/* The source of `rank` in ts, or -1. */
static ssize_t source_of(const struct trace_set *ts, int32_t rank)
{
	for (size_t i = 0; i < ts->nr_src; i++)
		if (ts->src[i].rank == rank)
			return (ssize_t)i;
	return -1;
}

/* Loads `rank` from every run that has it (rd[k] zeroed for the others)
 * and refuses two runs that both hold a region of the same name there. */
static int load_rank_of_runs(struct trace_set *runs, size_t nr, const char *const *names,
			     int32_t rank, struct rank_data *rd, bool *has, struct err *e)
{
	int rc = 0;
	for (size_t k = 0; k < nr && rc == 0; k++) {
		ssize_t i = source_of(&runs[k], rank);
		has[k] = i >= 0;
		memset(&rd[k], 0, sizeof(rd[k]));
		if (has[k])
			rc = trace_set__load(&runs[k], (size_t)i, &rd[k], e);
		if (rc)
			has[k] = false;
	}
	for (size_t k = 0; k < nr && rc == 0; k++)
		for (size_t j = 0; has[k] && j < k && rc == 0; j++)
			for (size_t a = 0; has[j] && a < rd[k].nr_regions && rc == 0; a++)
				for (size_t b = 0; b < rd[j].nr_regions; b++) {
					const char *x = runs[k].regions[rd[k].regions[a].id].name;
					if (strcmp(x, runs[j].regions[rd[j].regions[b].id].name))
						continue;
					rc = err_set(e, -EINVAL, ERR_REGIONS_COLLISION,
						     "rank %" PRId32 ": region '%s' is in both %s and "
						     "%s: merging would mix their calls; rename the "
						     "region in one of the runs", rank, x, names[j],
						     names[k]);
					break;
				}
	return rc;
}

/* Counters per region of every run that has them on the rank, lanes
 * shifted as the regions' are (counters_h5.h, struct ctr_merged). */
static int merge_counters(hid_t rk, struct trace_set *runs, size_t nr,
			  const struct rank_data *rd, const bool *has, int32_t rank,
			  struct err *e)
{
	struct ctr_merged m;
	memset(&m, 0, sizeof(m));
	int32_t off = 0;
	int rc = 0;
	for (size_t k = 0; k < nr && rc == 0; k++) {
		ssize_t i = source_of(&runs[k], rank);
		if (!has[k] || i < 0)
			continue;
		struct region_counters one;
		rc = h5_counters_of_source(&one, &runs[k], &runs[k].src[i], e);
		if (rc)
			break;
		rc = h5_counters_absorb(&m, &one, &runs[k], rank, off);
		region_counters__release(&one);
		if (rc)
			err_oom(e);
		off += rd[k].nr_lanes;
	}
	if (rc == 0 && (rc = h5_counters_write_merged(rk, &m)) != 0)
		err_set(e, rc, ERR_OUTPUT_WRITE, "rank %" PRId32 ": writing its merged counters "
			"per region failed", rank);
	h5_counters_merged_release(&m);
	return rc;
}

static int merge_rank(hid_t f, struct trace_set *runs, size_t nr, const char *const *names,
		      int32_t rank, struct err *e)
{
	struct rank_data *rd = xcalloc(nr, sizeof(*rd));
	const struct rank_data **have = xcalloc(nr, sizeof(*have));
	bool *has = xcalloc(nr, sizeof(*has));
	if (!rd || !have || !has) {
		xfree(rd);
		xfree(have);
		xfree(has);
		return err_oom(e);
	}
	int rc = load_rank_of_runs(runs, nr, names, rank, rd, has, e);
	size_t nh = 0;
	for (size_t k = 0; k < nr; k++)
		if (has[k])
			have[nh++] = &rd[k];
	char name[64];
	snprintf(name, sizeof(name), "rank%" PRId32, rank);
	hid_t rk = rc ? -1 : H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	hid_t rg = rk >= 0 ? H5Gcreate2(rk, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	if (rc == 0) {
		rc = rg < 0 ? -EIO : write_threads_of(rk, have, nh);
		int32_t off = 0;
		for (size_t k = 0; k < nr && rc == 0; k++) {
			if (!has[k])
				continue;
			for (size_t r = 0; r < rd[k].nr_regions && rc == 0; r++)
				rc = write_region(rg, &runs[k], &rd[k], &rd[k].regions[r], off, nh > 1);
			off += rd[k].nr_lanes;
		}
		/* Samples are per process: those of the first run that has them. */
		for (size_t k = 0; k < nr && rc == 0; k++) {
			ssize_t i = source_of(&runs[k], rank);
			if (!has[k] || i < 0)
				continue;
			rc = write_samples(rk, &runs[k].src[i], rank, e);
			if (rc == 0 && H5Lexists(rk, "samples", H5P_DEFAULT) > 0)
				break;
		}
		rc = rc ? rc : merge_counters(rk, runs, nr, rd, has, rank, e);
		if (rc && !e->code[0])
			err_set(e, rc, ERR_OUTPUT_WRITE, "writing /%s of the HDF5 file failed", name);
	}
	if (rg >= 0)
		H5Gclose(rg);
	if (rk >= 0)
		H5Gclose(rk);
	for (size_t k = 0; k < nr; k++)
		if (has[k])
			rank_data__release(&rd[k]);
	xfree(rd);
	xfree(have);
	xfree(has);
	return rc;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

int h5_write_merge(struct trace_set *runs, size_t nr, const char *const *names, const char *out,
		   struct console *con, struct err *e)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	size_t total = 0, nranks = 0;
	for (size_t k = 0; k < nr; k++)
		total += runs[k].nr_src;
	int32_t *ranks = xmalloc((total + 1) * sizeof(*ranks));
	char *tmp = outfile_tmp_name(out);
	if (!ranks || !tmp) {
		xfree(ranks);
		xfree(tmp);
		return err_oom(e);
	}
	for (size_t k = 0; k < nr; k++)
		for (size_t i = 0; i < runs[k].nr_src; i++)
			ranks[nranks++] = runs[k].src[i].rank;
	qsort(ranks, nranks, sizeof(*ranks), cmp_i32);
	size_t w = 0;
	for (size_t i = 0; i < nranks; i++)
		if (!w || ranks[w - 1] != ranks[i])
			ranks[w++] = ranks[i];
	nranks = w;
	hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	int rc = f < 0 ? err_set(e, -EIO, ERR_OUTPUT_OPEN, "%s: cannot create the HDF5 file", out) : 0;
	for (size_t i = 0; i < nranks && rc == 0; i++) {
		rc = merge_rank(f, runs, nr, names, ranks[i], e);
		if (con && con->terminal)
			console__progress(con, "merging ranks", i + 1, nranks);
	}
	if (rc == 0 && !copy_metadata(f, &runs[0]) &&
	    write_metadata(f, nranks, runs[0].label, nr == 1 ? &runs[0] : NULL))
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "%s: writing /metadata failed", out);
	if (con && con->terminal)
		console__progress_end(con, "merging ranks");
	if (f >= 0 && H5Fclose(f) < 0 && rc == 0)
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "%s: closing the HDF5 file failed", out);
	if (rc == 0 && rename(tmp, out) != 0)
		rc = err_set(e, -errno, ERR_OUTPUT_WRITE, "%s: cannot rename into place: %s", out,
			     strerror(errno));
	if (rc)
		unlink(tmp);
	xfree(tmp);
	xfree(ranks);
	return rc;
}
