/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The optional HDF5 profile (built with SP_USE_HDF5 and HDF5 found). The
 * layout is the published Python scope-profiler's, so its read_h5 opens it,
 * plus extras beside it (docs/formats.md, "HDF5"):
 *   /metadata                       attributes: schema, timestamp, hostname,
 *                                   platform, versions, working_directory,
 *                                   omp_num_threads, mpi_size, total_cores,
 *                                   user, label, start_time_ns,
 *                                   finalize_time_ns, num_nodes (when known)
 *   /rank<r>/regions/<name>/start_times, end_times   int64 ns
 *   /rank<r>/regions/<name>         attributes source_file, source_line;
 *                                   dataset lanes (int32) with >1 thread
 *   /rank<r>/threads/tid, name      one row per lane
 *   /rank<r>/samples/...            when sampling ran
 *   /rank<r>/perf_events/...        counters per region, when events were
 *                                   asked (the .spt's CNTR section)
 * A '/' in a region name is written "%2F" and '%' "%25", never a subgroup
 * (sp_h5_escape, shared with nunatak's HDF5 writer and reader).
 *
 * This file is the plugin libscope_profiler_h5.so, loaded at finalize by
 * writer_h5_loader.c: the library itself never links HDF5, so preloading
 * it into an application that uses its own HDF5 cannot clash.
 */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "scope_profiler.h"
#include "sp_format.h"
#include "trace.h"
#include "tmpname.h"

static void attr_str(hid_t obj, const char *name, const char *value)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, value[0] ? strlen(value) : 1);
	H5Tset_cset(t, H5T_CSET_UTF8);
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, t, value[0] ? value : "");
		H5Aclose(a);
	}
	H5Sclose(s);
	H5Tclose(t);
}

static void attr_i64(hid_t obj, const char *name, int64_t v)
{
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, H5T_NATIVE_INT64, &v);
		H5Aclose(a);
	}
	H5Sclose(s);
}

static void attr_f64(hid_t obj, const char *name, double v)
{
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
		H5Aclose(a);
	}
	H5Sclose(s);
}

static int dset(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, size_t n,
		const void *data)
{
	hsize_t dims[1] = {n};
	hid_t s = H5Screate_simple(1, dims, NULL);
	hid_t d = H5Dcreate2(loc, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int rc = d < 0 ? -EIO : 0;
	if (d >= 0) {
		if (n && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
			rc = -EIO;
		H5Dclose(d);
	}
	H5Sclose(s);
	return rc;
}

static int dset_strings(hid_t loc, const char *name, const char *const *v, size_t n)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	int rc = dset(loc, name, t, t, n, v);
	H5Tclose(t);
	return rc;
}

/* Distinct hosts of the job: 1 for a single process, Slurm's count when
 * the launcher gives one, else unknown (0). */
static int64_t num_nodes(const struct sp_trace *tr)
{
	static const char *const vars[] = {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"};
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long n = v && *v ? strtol(v, &end, 10) : 0;
		if (n > 0 && *end == '\0')
			return n;
	}
	return tr->mpi_size == 1 ? 1 : 0;
}

static void write_metadata(hid_t f, const char *label, const struct sp_trace *tr)
{
	hid_t g = H5Gcreate2(f, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return;
	char buf[512];
	time_t now = time(NULL);
	struct tm tm;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
	attr_str(g, "timestamp", buf);
	attr_i64(g, "schema", 2);
	attr_str(g, "writer", "libscope_profiler " SP_VERSION_STRING);
	attr_str(g, "versions", "libscope_profiler=" SP_VERSION_STRING);
	if (gethostname(buf, sizeof(buf)) != 0)
		buf[0] = 0;
	buf[sizeof(buf) - 1] = 0;
	attr_str(g, "hostname", buf);
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(buf, sizeof(buf), "%s-%s-%s", u.sysname, u.release, u.machine);
		attr_str(g, "platform", buf);
	}
	attr_str(g, "working_directory", getcwd(buf, sizeof(buf)) ? buf : "");
	attr_i64(g, "omp_num_threads", tr->omp_threads);
	attr_i64(g, "mpi_size", tr->mpi_size); /* -1: the launcher did not say */
	attr_i64(g, "total_cores", sysconf(_SC_NPROCESSORS_ONLN));
	/* The published reader's run bounds (CLOCK_MONOTONIC ns, its recording
	 * clock): the run starts at the process start when known (the "earlier
	 * instant" its setup() accepts), else at sp_init; startup_time is the
	 * first region's start minus it. */
	attr_i64(g, "start_time_ns", tr->start_ns >= 0 ? tr->start_ns : tr->init_ns);
	attr_i64(g, "finalize_time_ns", tr->finalize_ns);
	int64_t nodes = num_nodes(tr);
	if (nodes > 0) /* unknown: absent, as the reader expects (None) */
		attr_i64(g, "num_nodes", nodes);
	struct passwd pw, *res = NULL;
	char pwbuf[1024];
	getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res);
	attr_str(g, "user", res ? res->pw_name : "");
	attr_str(g, "label", label ? label : "");
	H5Gclose(g);
}

/* A spilled trace's column of one region, copied from the written .spt in
 * slices (bounded memory): @p width bytes an element at byte @p at. */
static int dset_from_spt(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, int fd,
			 off_t at, size_t n, size_t width, void *buf, size_t slice)
{
	hsize_t dims[1] = {n};
	hid_t s = H5Screate_simple(1, dims, NULL);
	hid_t d = H5Dcreate2(loc, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int rc = d < 0 ? -EIO : 0;
	for (size_t done = 0; rc == 0 && done < n;) {
		size_t m = n - done < slice ? n - done : slice;
		if (pread(fd, buf, m * width, at + (off_t)(done * width)) != (ssize_t)(m * width)) {
			rc = -EIO;
			break;
		}
		hsize_t off[1] = {done}, cnt[1] = {m};
		hid_t ms = H5Screate_simple(1, cnt, NULL);
		H5Sselect_hyperslab(s, H5S_SELECT_SET, off, NULL, cnt, NULL);
		if (H5Dwrite(d, mem_type, ms, s, H5P_DEFAULT, buf) < 0)
			rc = -EIO;
		H5Sclose(ms);
		done += m;
	}
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(s);
	return rc;
}

static int region_from_spt(hid_t rg, const struct sp_trace *tr, const struct sp_region_out *reg,
			   int fd, int64_t *buf, size_t slice)
{
	off_t at = (off_t)reg->spt_off, n = (off_t)reg->nr_calls;
	int rc = dset_from_spt(rg, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, fd, at,
			       reg->nr_calls, 8, buf, slice);
	if (rc == 0)
		rc = dset_from_spt(rg, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, fd,
				   at + 8 * n, reg->nr_calls, 8, buf, slice);
	if (rc == 0 && tr->nr_lanes > 1)
		rc = dset_from_spt(rg, "lanes", H5T_STD_I32LE, H5T_NATIVE_INT32, fd, at + 16 * n,
				   reg->nr_calls, 4, buf, slice);
	return rc;
}

static int region_from_memory(hid_t rg, const struct sp_trace *tr,
			      const struct sp_region_out *reg, int64_t *buf)
{
	for (size_t i = 0; i < reg->nr_calls; i++)
		buf[i] = reg->calls[i].start_ns;
	int rc = dset(rg, "start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, reg->nr_calls, buf);
	for (size_t i = 0; i < reg->nr_calls; i++)
		buf[i] = reg->calls[i].end_ns;
	if (rc == 0)
		rc = dset(rg, "end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, reg->nr_calls, buf);
	int32_t *lanes = (int32_t *)buf; /* int32 fits in the int64 buffer */
	for (size_t i = 0; i < reg->nr_calls; i++)
		lanes[i] = reg->calls[i].lane;
	if (rc == 0 && tr->nr_lanes > 1)
		rc = dset(rg, "lanes", H5T_STD_I32LE, H5T_NATIVE_INT32, reg->nr_calls, lanes);
	return rc;
}

static int write_regions(hid_t rank, const struct sp_trace *tr)
{
	hid_t g = H5Gcreate2(rank, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	int rc = 0;
	size_t max = 1;
	for (size_t r = 0; r < tr->nr_regions; r++)
		max = tr->regions[r].nr_calls > max ? tr->regions[r].nr_calls : max;
	int fd = -1;
	if (tr->src) { /* the calls are in the written .spt only */
		/* slices of 64 Ki calls, or of finalize's chunk when the environment
		 * sets one (the tests' way to cross slice boundaries) */
		const char *env = getenv("SCOPE_PROFILER_FINALIZE_CHUNK");
		size_t slice = env && atol(env) >= 16 ? (size_t)atol(env) : 65536;
		max = max < slice ? max : slice;
		fd = tr->spt_path ? open(tr->spt_path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd < 0)
			rc = -EIO;
	}
	int64_t *buf = malloc(max * sizeof(int64_t));
	if (!buf)
		rc = -ENOMEM;
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++) {
		const struct sp_region_out *reg = &tr->regions[r];
		char *name = malloc(3 * strlen(reg->name) + 4);
		if (!name) {
			rc = -ENOMEM;
			break;
		}
		sp_h5_escape(reg->name, name);
		hid_t rg = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		free(name);
		if (rg < 0) {
			rc = -EIO;
			break;
		}
		if (fd >= 0)
			rc = region_from_spt(rg, tr, reg, fd, buf, max);
		else
			rc = region_from_memory(rg, tr, reg, buf);
		attr_str(rg, "name", reg->name);
		attr_str(rg, "source_file", reg->file ? reg->file : "");
		attr_i64(rg, "source_line", reg->file ? reg->line : -1);
		if (reg->file && reg->line >= 0) /* the published reader's name for it */
			attr_i64(rg, "source_lineno", reg->line);
		H5Gclose(rg);
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	H5Gclose(g);
	return rc;
}

static int write_threads(hid_t rank, const struct sp_trace *tr)
{
	hid_t g = H5Gcreate2(rank, "threads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	int64_t *tid = malloc((tr->nr_lanes + 1) * sizeof(*tid));
	const char **names = malloc((tr->nr_lanes + 1) * sizeof(*names));
	int rc = tid && names ? 0 : -ENOMEM;
	for (size_t l = 0; rc == 0 && l < tr->nr_lanes; l++) {
		tid[l] = tr->lanes[l].tid;
		names[l] = tr->lanes[l].name;
	}
	if (rc == 0)
		rc = dset(g, "tid", H5T_STD_I64LE, H5T_NATIVE_INT64, tr->nr_lanes, tid);
	if (rc == 0)
		rc = dset_strings(g, "name", names, tr->nr_lanes);
	free(tid);
	free(names);
	H5Gclose(g);
	return rc;
}

static int write_samples(hid_t rank, const struct sp_trace *tr)
{
	hid_t g = H5Gcreate2(rank, "samples", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	attr_f64(g, "effective_hz", tr->stats.effective_hz);
	attr_i64(g, "requested_hz", tr->stats.requested_hz);
	attr_i64(g, "ticks", (int64_t)tr->stats.ticks);
	attr_f64(g, "overhead", tr->stats.overhead);
	size_t n = tr->nr_samples, nm = tr->nr_modules;
	int rc = dset(g, "region", H5T_STD_I32LE, H5T_NATIVE_INT32, n, tr->sample_region);
	if (rc == 0)
		rc = dset(g, "module", H5T_STD_I32LE, H5T_NATIVE_INT32, n, tr->sample_module);
	if (rc == 0)
		rc = dset(g, "address", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, tr->sample_addr);
	const char **names = malloc((tr->nr_regions + nm + 1) * sizeof(*names));
	uint64_t *base = malloc((nm + 1) * sizeof(*base));
	if (!names || !base)
		rc = rc ? rc : -ENOMEM;
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++)
		names[r] = tr->regions[r].name;
	if (rc == 0)
		rc = dset_strings(g, "region_names", names, tr->nr_regions);
	for (size_t m = 0; rc == 0 && m < nm; m++) {
		names[m] = tr->modules[m].path;
		base[m] = tr->modules[m].base;
	}
	if (rc == 0)
		rc = dset_strings(g, "module_paths", names, nm);
	if (rc == 0)
		rc = dset(g, "module_bases", H5T_STD_U64LE, H5T_NATIVE_UINT64, nm, base);
	free(names);
	free(base);
	H5Gclose(g);
	return rc;
}

static void attr_vstr(hid_t obj, const char *name, const char *value)
{
	attr_str(obj, name, value ? value : "");
}

static int write_ctr_events(hid_t g, const struct sp_trace *tr)
{
	size_t n = (size_t)tr->nr_ctr_events;
	const char **names = malloc((n + 1) * sizeof(*names)),
		   **reasons = malloc((n + 1) * sizeof(*reasons));
	int32_t *kinds = malloc((n + 1) * sizeof(*kinds)), *status = malloc((n + 1) * 4);
	int rc = names && reasons && kinds && status ? 0 : -ENOMEM;
	for (size_t e = 0; rc == 0 && e < n; e++) {
		const struct sp_ctr_event *ev = &tr->ctr_events[e];
		names[e] = ev->name;
		reasons[e] = ev->counted ? "" : ev->reason;
		kinds[e] = ev->kind;
		status[e] = ev->counted ? 0 : 1;
	}
	if (rc == 0)
		rc = dset_strings(g, "event_names", names, n);
	if (rc == 0)
		rc = dset(g, "event_kinds", H5T_STD_I32LE, H5T_NATIVE_INT32, n, kinds);
	if (rc == 0)
		rc = dset(g, "event_status", H5T_STD_I32LE, H5T_NATIVE_INT32, n, status);
	if (rc == 0)
		rc = dset_strings(g, "event_reasons", reasons, n);
	free(names);
	free(reasons);
	free(kinds);
	free(status);
	return rc;
}

static int dset_2d(hid_t loc, const char *name, size_t n0, size_t n1, const uint64_t *v)
{
	hsize_t dims[2] = {n0, n1};
	hid_t s = H5Screate_simple(2, dims, NULL);
	hid_t d = H5Dcreate2(loc, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int rc = d < 0 ? -EIO : 0;
	if (d >= 0) {
		if (n0 && n1 && H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
			rc = -EIO;
		H5Dclose(d);
	}
	H5Sclose(s);
	return rc;
}

/* The same counts as the .spt's CNTR section, in the layout nunatak's
 * `regions convert` writes (docs/formats.md, /rank<r>/perf_events). */
static int write_counters(hid_t rank, const struct sp_trace *tr)
{
	hid_t g = H5Gcreate2(rank, "perf_events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -EIO;
	attr_vstr(g, "backend", tr->ctr_backend);
	attr_i64(g, "threads_without", (int64_t)tr->ctr_threads_without);
	attr_i64(g, "dropped", (int64_t)tr->ctr_dropped);
	size_t n = tr->nr_ctr_rows, k = (size_t)tr->nr_ctr_counted;
	const char **region = malloc((n + 1) * sizeof(*region));
	int32_t *lane = malloc((n + 1) * sizeof(*lane));
	uint64_t *calls = malloc((n + 1) * 8), *incl = malloc((n * k + 1) * 8),
		 *excl = malloc((n * k + 1) * 8);
	int rc = region && lane && calls && incl && excl ? write_ctr_events(g, tr) : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct sp_ctr_row_out *r = &tr->ctr_rows[i];
		region[i] = (size_t)r->region < tr->nr_regions ? tr->regions[r->region].name : "";
		lane[i] = r->lane;
		calls[i] = r->calls;
		memcpy(incl + i * k, r->incl, k * 8);
		memcpy(excl + i * k, r->excl, k * 8);
	}
	if (rc == 0)
		rc = dset_strings(g, "region", region, n);
	if (rc == 0)
		rc = dset(g, "lane", H5T_STD_I32LE, H5T_NATIVE_INT32, n, lane);
	if (rc == 0)
		rc = dset(g, "calls", H5T_STD_I64LE, H5T_NATIVE_UINT64, n, calls);
	if (rc == 0)
		rc = dset_2d(g, "inclusive", n, k, incl);
	if (rc == 0)
		rc = dset_2d(g, "exclusive", n, k, excl);
	free(region);
	free(lane);
	free(calls);
	free(incl);
	free(excl);
	H5Gclose(g);
	return rc;
}

__attribute__((visibility("default"))) long sp_h5_plugin_abi(void);
long sp_h5_plugin_abi(void)
{
	return SP_TRACE_ABI_KEY;
}

__attribute__((visibility("default"))) int sp_h5_plugin_write(const struct sp_trace *tr,
								 const char *path,
								 const char *label);

int sp_h5_plugin_write(const struct sp_trace *tr, const char *path, const char *label)
{
	size_t len = strlen(path) + SP_TMP_EXTRA;
	char *tmp = malloc(len);
	if (!tmp)
		return -ENOMEM;
	/* the name reserved exclusively (tmpname.h), then truncated by HDF5 */
	int rfd = sp_tmp_create(path, tmp, len, 0);
	if (rfd < 0) {
		free(tmp);
		return rfd;
	}
	close(rfd);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library stays silent */
	errno = 0;
	hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	int rc = f < 0 ? -(errno ? errno : EIO) : 0; /* the system's reason, when it gave one */
	if (f >= 0) {
		write_metadata(f, label, tr);
		char name[32];
		snprintf(name, sizeof(name), "rank%d", tr->rank);
		hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		rc = g < 0 ? -EIO : write_regions(g, tr);
		if (rc == 0 && tr->nr_lanes)
			rc = write_threads(g, tr);
		if (rc == 0 && tr->has_samples)
			rc = write_samples(g, tr);
		if (rc == 0 && tr->nr_ctr_events)
			rc = write_counters(g, tr);
		if (g >= 0)
			H5Gclose(g);
		if (H5Fclose(f) < 0 && rc == 0)
			rc = -EIO;
	}
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
