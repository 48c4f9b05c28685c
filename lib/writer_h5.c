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
#include "h5_layout.h"
#include "scope_profiler.h"
#include "sp_format.h"
#include "trace.h"
#include "tmpname.h"

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

static int write_metadata(hid_t f, const char *label, const struct sp_trace *tr)
{
	char stamp[64], host[256], platform[512], cwd[4096], pwbuf[1024];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	struct utsname u;
	bool has_uname = uname(&u) == 0;
	if (has_uname)
		snprintf(platform, sizeof(platform), "%s-%s-%s", u.sysname, u.release, u.machine);
	struct passwd pw, *res = NULL;
	getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res);
	struct sp_h5_metadata m = {
		.timestamp = stamp,
		.writer = "libscope_profiler " SP_VERSION_STRING,
		.versions = "libscope_profiler=" SP_VERSION_STRING,
		.hostname = host,
		.platform = has_uname ? platform : NULL,
		.working_directory = getcwd(cwd, sizeof(cwd)) ? cwd : "",
		.user = res ? res->pw_name : "",
		.label = label ? label : "",
		.omp_num_threads = tr->omp_threads,
		.mpi_size = tr->mpi_size, /* -1: the launcher did not say */
		.total_cores = sysconf(_SC_NPROCESSORS_ONLN),
		/* The published reader's run bounds (CLOCK_MONOTONIC ns, its
		 * recording clock): the run starts at the process start when
		 * known (the "earlier instant" its setup() accepts), else at
		 * sp_init; startup_time is the first region's start minus it. */
		.start_time_ns = tr->start_ns >= 0 ? tr->start_ns : tr->init_ns,
		.finalize_time_ns = tr->finalize_ns,
		.num_nodes = num_nodes(tr),
	};
	return sp_h5_write_metadata(f, &m);
}

/* Where a region's calls are: in memory, or (streamed) in the written .spt
 * at spt_off as starts, ends, lanes columns. */
struct region_src {
	const struct sp_region_out *reg;
	int fd; /* the written .spt, or -1: in memory */
};

static int fill(void *ctx, int col, size_t at, size_t m, void *buf)
{
	const struct region_src *x = ctx;
	const struct sp_region_out *reg = x->reg;
	if (x->fd >= 0) {
		size_t width = col == SP_H5_LANE ? 4 : 8;
		off_t off = (off_t)reg->spt_off + (off_t)(col * 8 * reg->nr_calls + at * width);
		return pread(x->fd, buf, m * width, off) == (ssize_t)(m * width) ? 0 : -EIO;
	}
	int64_t *v = buf;
	int32_t *lanes = buf;
	for (size_t i = 0; i < m; i++) {
		const struct sp_call_out *c = &reg->calls[at + i];
		if (col == SP_H5_LANE)
			lanes[i] = c->lane;
		else
			v[i] = col == SP_H5_START ? c->start_ns : c->end_ns;
	}
	return 0;
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
		struct region_src src = {reg, fd};
		struct sp_h5_region out = {
			.name = reg->name,
			.file = reg->file,
			.line = reg->line,
			.nr_calls = reg->nr_calls,
			.lanes = tr->nr_lanes > 1,
			.fill = fill,
			.ctx = &src,
		};
		rc = sp_h5_write_region(g, &out, buf, max);
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	H5Gclose(g);
	return rc;
}

static int write_threads(hid_t rank, const struct sp_trace *tr)
{
	int64_t *tid = malloc((tr->nr_lanes + 1) * sizeof(*tid));
	const char **names = malloc((tr->nr_lanes + 1) * sizeof(*names));
	int rc = tid && names ? 0 : -ENOMEM;
	for (size_t l = 0; rc == 0 && l < tr->nr_lanes; l++) {
		tid[l] = tr->lanes[l].tid;
		names[l] = tr->lanes[l].name;
	}
	if (rc == 0)
		rc = sp_h5_write_threads(rank, tr->nr_lanes, tid, names);
	free(tid);
	free(names);
	return rc;
}

static int write_samples(hid_t rank, const struct sp_trace *tr)
{
	size_t nm = tr->nr_modules;
	const char **names = malloc((tr->nr_regions + nm + 1) * sizeof(*names));
	uint64_t *base = malloc((nm + 1) * sizeof(*base));
	int rc = names && base ? 0 : -ENOMEM;
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++)
		names[r] = tr->regions[r].name;
	for (size_t m = 0; rc == 0 && m < nm; m++) {
		names[tr->nr_regions + m] = tr->modules[m].path;
		base[m] = tr->modules[m].base;
	}
	struct sp_h5_samples s = {
		.effective_hz = tr->stats.effective_hz,
		.requested_hz = tr->stats.requested_hz,
		.ticks = (int64_t)tr->stats.ticks,
		.overhead = tr->stats.overhead,
		.nr_samples = tr->nr_samples,
		.region = tr->sample_region,
		.module = tr->sample_module,
		.address = tr->sample_addr,
		.weight = tr->sample_weight,
		.nr_regions = tr->nr_regions,
		.nr_modules = nm,
		.region_names = names,
		.module_paths = names + tr->nr_regions,
		.module_bases = base,
	};
	if (rc == 0)
		rc = sp_h5_write_samples(rank, &s);
	free(names);
	free(base);
	return rc;
}

/* The same counts as the .spt's CNTR section (docs/formats.md,
 * /rank<r>/perf_events). */
static int write_counters(hid_t rank, const struct sp_trace *tr)
{
	size_t ne = (size_t)tr->nr_ctr_events, n = tr->nr_ctr_rows,
	       k = (size_t)tr->nr_ctr_counted;
	const char **names = malloc((ne + 1) * sizeof(*names)),
		   **reasons = malloc((ne + 1) * sizeof(*reasons)),
		   **region = malloc((n + 1) * sizeof(*region));
	int32_t *kinds = malloc((ne + 1) * 4), *status = malloc((ne + 1) * 4),
		*lane = malloc((n + 1) * 4);
	int64_t *calls = malloc((n + 1) * 8), *incl = malloc((n * k + 1) * 8),
		*excl = malloc((n * k + 1) * 8);
	int rc = names && reasons && region && kinds && status && lane && calls && incl && excl
			 ? 0
			 : -ENOMEM;
	for (size_t e = 0; rc == 0 && e < ne; e++) {
		const struct sp_ctr_event *ev = &tr->ctr_events[e];
		names[e] = ev->name;
		reasons[e] = ev->counted ? "" : ev->reason;
		kinds[e] = ev->kind;
		status[e] = ev->counted ? 0 : 1;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct sp_ctr_row_out *r = &tr->ctr_rows[i];
		region[i] = (size_t)r->region < tr->nr_regions ? tr->regions[r->region].name : "";
		lane[i] = r->lane;
		calls[i] = (int64_t)r->calls;
		memcpy(incl + i * k, r->incl, k * 8);
		memcpy(excl + i * k, r->excl, k * 8);
	}
	struct sp_h5_counters c = {
		.backend = tr->ctr_backend,
		.threads_without = (int64_t)tr->ctr_threads_without,
		.dropped = (int64_t)tr->ctr_dropped,
		.nr_events = ne,
		.event_names = names,
		.event_reasons = reasons,
		.event_kinds = kinds,
		.event_status = status,
		.nr_rows = n,
		.nr_counted = k,
		.region = region,
		.lane = lane,
		.calls = calls,
		.inclusive = incl,
		.exclusive = excl,
	};
	if (rc == 0)
		rc = sp_h5_write_counters(rank, &c);
	void *owned[] = {names, reasons, region, kinds, status, lane, calls, incl, excl};
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
		free(owned[i]);
	return rc;
}

__attribute__((visibility("default"))) long sp_h5_plugin_abi(void);
long sp_h5_plugin_abi(void)
{
	return SP_TRACE_ABI_KEY;
}

/* HDF5 only says that a call failed; its file driver's message says why
 * the system refused ("..., errno = 27, error message = 'File too large'"):
 * the first such errno of a write is what the error names, not EIO. */
static int h5_sys_errno;

static herr_t errno_of(unsigned n, const H5E_error2_t *e, void *ctx)
{
	(void)n;
	(void)ctx;
	const char *p = e && e->desc ? strstr(e->desc, "errno = ") : NULL;
	if (p && !h5_sys_errno) {
		long v = strtol(p + 8, NULL, 10);
		if (v > 0 && v < 4096)
			h5_sys_errno = (int)v;
	}
	return 0;
}

/* Called by HDF5 on each failed call, instead of printing its stack. */
static herr_t on_h5_error(hid_t stack, void *ctx)
{
	(void)ctx;
	H5Ewalk2(stack, H5E_WALK_DOWNWARD, errno_of, NULL);
	return 0;
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
	/* libhdf5 1.10's exit handler crashes (SIGSEGV in H5F__close_cb) after a
	 * file whose close failed (a full disk, a file size limit): the host
	 * program died at exit, its output unflushed. When this write is what
	 * starts HDF5 in the process, it registers no exit handler (our file is
	 * closed here either way); a program using HDF5 itself keeps its own. */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, on_h5_error, NULL); /* silent; keeps the errno */
	h5_sys_errno = 0;
	errno = 0;
	hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	int rc = f < 0 ? -(h5_sys_errno ? h5_sys_errno : errno ? errno : EIO) : 0;
	if (f >= 0) {
		(void)write_metadata(f, label, tr); /* a profile without it still reads */
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
	if (rc == -EIO && h5_sys_errno)
		rc = -h5_sys_errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
