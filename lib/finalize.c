/* SPDX-License-Identifier: BSD-3-Clause */
#include "api.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "log.h"
#include "registry.h"
#include "site_read.h"
#include "sampler.h"
#include "sp_format.h"
#include "stream.h"
#include "scope_profiler.h"
#include "trace.h"
#include "writer.h"

/* Reported once each at finalize, as "misuse: <text>: <count> (<regions>)". */
static const char *const misuse_text[SP_MISUSE_NR] = {
	[SP_MISUSE_NULL_HANDLE] = "calls with a NULL handle (ignored)",
	[SP_MISUSE_END_UNOPENED] = "sp_end of a region that was not open (ignored)",
	[SP_MISUSE_END_NOT_INNER] = ("sp_end of a region that was not the innermost open one "
				     "(the inner ones were closed unrecorded)"),
	[SP_MISUSE_DISCARDED] = "inner regions discarded by an out-of-order sp_end (not recorded)",
	[SP_MISUSE_TOO_DEEP] = "regions opened deeper than 65536 levels (not recorded)",
	[SP_MISUSE_LEFT_OPEN] = "regions still open at finalize (not recorded)",
	[SP_MISUSE_AFTER_FINALIZE] = "calls after sp_finalize (ignored)",
	[SP_MISUSE_FINALIZE_AGAIN] = "extra sp_finalize calls (ignored)",
	[SP_MISUSE_BAD_HANDLE] = "handles that are not sp_site descriptors (their calls dropped)",
	[SP_MISUSE_NO_MEMORY] = "calls dropped: no memory, or the trace file could not be written",
	[SP_MISUSE_IN_HANDLER] = ("calls from a signal handler that interrupted the library on "
				  "its thread (dropped)"),
};

struct name_acc {
	struct sp_misuse_out *m;
};

static void add_name(struct sp_misuse_out *m, const struct sp_site *site, uint64_t count)
{
	struct sp_site copy;
	char *name = NULL, *file = NULL;
	if (!site || !sp_site__read(site, &copy, &name, &file))
		name = strdup("(not a region handle)");
	free(file);
	for (size_t i = 0; name && i < m->nr_names; i++) {
		if (strcmp(m->names[i], name) == 0) { /* two sites, one region name */
			m->counts[i] += count;
			free(name);
			return;
		}
	}
	if (!name || m->nr_names == sizeof(m->names) / sizeof(m->names[0])) {
		m->others += count;
		free(name);
		return;
	}
	m->names[m->nr_names] = name;
	m->counts[m->nr_names++] = count;
}

static void add_site(const struct sp_site *site, uint64_t count, void *ctx)
{
	add_name(((struct name_acc *)ctx)->m, site, count);
}

/* The regions a thread left open: its depth and stack slots, read while
 * another thread may still record (sp_finalize racing sp_begin, as
 * unit_lib_test_api.finalize_racing does; that thread's later calls are
 * dropped). The hot path stores them with plain writes, so this snapshot
 * may be a call stale: a benign race by design, the one read that
 * ThreadSanitizer is told to leave alone (it reported it intermittently). */
#if defined(__clang__)
__attribute__((no_sanitize("thread")))
#endif
static void collect_left_open(struct sp_misuse_out *open, const struct sp_thread *t)
{
	uint32_t d = t->depth;
	open->count += d;
	for (uint32_t i = 0; i < d && i < SP_STACK_MAX; i++)
		add_name(open, t->stack[i].site, 1);
	if (d > SP_STACK_MAX)
		open->others += d - SP_STACK_MAX;
}

/* Counts and region names of every kind of misuse, into tr->misuse. */
static void collect_misuse(struct sp_trace *tr, struct sp_thread **threads, size_t nr)
{
	for (int k = 0; k < SP_MISUSE_NR; k++) {
		struct sp_misuse_out *m = &tr->misuse[k];
		m->count = sp_registry__misuse_total((enum sp_misuse)k);
		struct name_acc acc = {m};
		uint64_t others = 0;
		sp_registry__misuse_sites((enum sp_misuse)k, add_site, &acc, &others);
		m->others += others;
	}
	struct sp_misuse_out *open = &tr->misuse[SP_MISUSE_LEFT_OPEN];
	for (size_t k = 0; k < nr; k++)
		collect_left_open(open, threads[k]);
	tr->misuse[SP_MISUSE_BAD_HANDLE].count += tr->bad_sites;
}

/* One line per kind, shown at the default log level: misuse loses calls. */
static void report_misuse(const struct sp_trace *tr)
{
	for (int k = 0; k < SP_MISUSE_NR; k++) {
		const struct sp_misuse_out *m = &tr->misuse[k];
		if (!m->count)
			continue;
		char names[400];
		size_t n = 0;
		names[0] = 0;
		for (size_t i = 0; i < m->nr_names && n + 40 < sizeof(names); i++) {
			int w = snprintf(names + n, sizeof(names) - n, "%s'%.48s' x%llu",
					 i ? ", " : "", m->names[i], (unsigned long long)m->counts[i]);
			n += w > 0 ? (size_t)w : 0;
		}
		if (n >= sizeof(names))
			n = sizeof(names) - 1;
		if (m->others && n + 32 < sizeof(names))
			snprintf(names + n, sizeof(names) - n, "%s%llu more", n ? ", " : "",
				 (unsigned long long)m->others);
		sp_log__misuse("misuse: %s: %llu%s%s%s", misuse_text[k],
			       (unsigned long long)m->count, names[0] ? " (" : "", names,
			       names[0] ? ")" : "");
	}
}

static void collect_interned(const struct sp_site *s, void *ctx)
{
	struct { const struct sp_site **v; size_t n, cap; } *acc = ctx;
	if (acc->n == acc->cap) {
		size_t cap = acc->cap ? acc->cap * 2 : 64;
		const struct sp_site **v = realloc(acc->v, cap * sizeof(*v));
		if (!v)
			return;
		acc->v = v;
		acc->cap = cap;
	}
	acc->v[acc->n++] = s;
}

/* Ticks recorded in an existing .sps, or -1. */
static int64_t existing_ticks(const char *path)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return -1;
	unsigned char b[28];
	int64_t ticks = -1;
	if (fread(b, 1, sizeof(b), f) == sizeof(b) && memcmp(b, SP_SPS_MAGIC, SP_MAGIC_LEN) == 0)
		memcpy(&ticks, b + 20, 8);
	fclose(f);
	return ticks;
}

/*
 * Under LD_PRELOAD every process of the application's tree (a wrapper
 * script and what it runs) is sampled and names its file after the same
 * rank. With no region API in use, the file with the most ticks is kept,
 * so a shell that exits last does not replace the real work's samples.
 */
static bool keep_existing_sps(const struct sp_trace *tr, const char *path, bool want_spt)
{
	if (want_spt)
		return false;
	int64_t theirs = existing_ticks(path);
	if (theirs <= (int64_t)tr->stats.ticks)
		return false;
	sp_log(SP_LOG_INFO, "%s kept: another process of this rank wrote %lld ticks, "
	       "this one %llu", path, (long long)theirs, (unsigned long long)tr->stats.ticks);
	return true;
}

static int write_outputs(const struct sp_config *cfg, struct sp_trace *tr,
			 bool want_spt, bool *spt_written)
{
	char *spt_done = NULL; /* the HDF5 writer reads a streamed trace's calls there */
	int first_err = 0;
	const char *suffix[3] = {".spt", ".sps", ".h5"};
	if (cfg->prefix)
		sp_out__make_dirs(cfg->prefix);
	for (int k = 0; k < 3; k++) {
		if ((k == 0 && !want_spt) || (k == 1 && !tr->has_samples))
			continue;
		if (k == 2) {
			const char *h5 = getenv("SCOPE_PROFILER_HDF5");
			if (!want_spt || (h5 && strcmp(h5, "0") == 0))
				continue;
		}
		char *path = cfg->prefix ? sp_writer__path(cfg->prefix, tr->rank, suffix[k]) : NULL;
		if (k == 1 && path && keep_existing_sps(tr, path, want_spt)) {
			free(path);
			continue;
		}
		int rc = !path ? -ENOMEM
		       : k == 0 ? sp_writer__spt(tr, path)
		       : k == 1 ? sp_writer__sps(tr, path)
				: sp_writer__h5(tr, path, cfg->label);
		if (rc == -ENOTSUP) {
			free(path);
			continue;
		}
		if (rc < 0) {
			sp_log(SP_LOG_ERROR, "cannot write %s: %s", path ? path : suffix[k],
			       strerror(-rc));
			if (!first_err)
				first_err = rc;
		} else {
			sp_log(SP_LOG_INFO, "wrote %s", path);
			if (k == 0) {
				*spt_written = true;
				spt_done = path;
				tr->spt_path = path;
				path = NULL;
			}
		}
		free(path);
	}
	tr->spt_path = NULL;
	free(spt_done);
	return first_err;
}

static void log_sampler(const struct sp_trace *tr)
{
	const struct sp_sampler_stats *s = &tr->stats;
	sp_log(SP_LOG_INFO,
	       "sampling: requested %d Hz, effective %.1f Hz (%llu ticks over %.3f CPU s, "
	       "%d thread timers), handler overhead %.4f%% (%.0f ns/sample), %zu samples",
	       s->requested_hz, s->effective_hz, (unsigned long long)s->ticks, s->cpu_s,
	       s->nr_threads, s->overhead * 100,
	       s->ticks ? s->handler_s * 1e9 / (double)s->ticks : 0.0, tr->nr_samples);
	if (s->requested_hz > 0 && s->effective_hz < 0.8 * s->requested_hz && s->ticks >= 50)
		sp_log(SP_LOG_WARN, "sampling achieved %.1f Hz of %d Hz requested "
		       "(CPU time of threads without a timer, or expirations a thread "
		       "had not been signalled before it ended)",
		       s->effective_hz, s->requested_hz);
}

/* The process's start on CLOCK_MONOTONIC (/proc/self/stat starttime is
 * on the boot clock, in clock ticks), or -1. */
static int64_t process_start_ns(void)
{
	FILE *f = fopen("/proc/self/stat", "re");
	if (!f)
		return -1;
	char buf[1024];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* comm may hold spaces */
	unsigned long long start = 0;
	int field = 2;
	for (; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (!p || sscanf(p, "%llu", &start) != 1)
		return -1;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec boot, mono;
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) || clock_gettime(CLOCK_MONOTONIC, &mono))
		return -1;
	int64_t gap = ((int64_t)boot.tv_sec - mono.tv_sec) * 1000000000 + boot.tv_nsec - mono.tv_nsec;
	return (int64_t)(start * (1000000000ull / (unsigned long long)hz)) - gap;
}

/* What an OpenMP parallel region would use: the runtime's answer when
 * the program has one loaded, else OMP_NUM_THREADS's first level, else
 * the CPUs this process may run on (the OpenMP default). */
static int32_t omp_threads(void)
{
	int (*get)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
	if (get)
		return get();
	const char *env = getenv("OMP_NUM_THREADS");
	if (env && atoi(env) > 0)
		return atoi(env);
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int32_t)sysconf(_SC_NPROCESSORS_ONLN);
}

int sp_finalize__locked(const struct sp_config *cfg)
{
	int64_t finalize_ns = (int64_t)sp_clock__mono_ns();
	atomic_store(&sp_fast, 0);
	atomic_store(&sp_state, SP_STATE_FINALIZED);
	if (sp_sampler__running())
		sp_sampler__stop();
	struct sp_thread **threads = NULL;
	size_t nr = sp_registry__threads(&threads);
	sp_stream__drain(threads, nr);
	struct { const struct sp_site **v; size_t n, cap; } interned = {0};
	sp_registry__each_interned(collect_interned, &interned);
	/* A trace of more than a chunk of calls is streamed into the finished
	 * file (writer_stream.c), its out-of-order regions sorted on disk
	 * beside it (spill.h): finalize's memory stays bounded. */
	char *near = cfg->prefix ? sp_writer__path(cfg->prefix, cfg->rank, ".spt") : NULL;
	struct sp_trace_input in = {
		.rank = cfg->rank, .threads = threads, .nr_threads = nr,
		.interned = interned.v, .nr_interned = interned.n,
		.samples = sp_sampler__chunks(), .with_modules = sp_sampler__ran(),
		.scratch_near = near,
	};
	if (cfg->prefix)
		sp_out__make_dirs(cfg->prefix);
	struct sp_clock_map map;
	struct sp_trace tr;
	bool spt_written = false;
	int rc = sp_clock_map__init(&map);
	if (rc == 0)
		rc = sp_trace__build(&tr, &in, &map);
	if (rc == 0) {
		double ns_per_stamp = sp_clock_map__span_ns(&map, 1000000) / 1e6;
		sp_sampler__stats(&tr.stats, ns_per_stamp);
		if (tr.has_samples)
			log_sampler(&tr);
		tr.init_ns = (int64_t)sp_clock_init_mono_ns;
		tr.init_real_ns = (int64_t)sp_clock_init_real_ns;
		tr.finalize_ns = finalize_ns;
		tr.start_ns = process_start_ns();
		tr.mpi_size = cfg->world_size;
		tr.omp_threads = omp_threads();
		collect_misuse(&tr, threads, nr);
		const char *ext = getenv("SCOPE_PROFILER_SPT_EXTENSION");
		tr.extension = !(ext && strcmp(ext, "0") == 0);
		bool want_spt = cfg->explicit_init || nr > 0 || interned.n > 0;
		rc = write_outputs(cfg, &tr, want_spt, &spt_written);
		report_misuse(&tr);
		sp_counters__report();
		sp_trace__free(&tr);
	} else {
		sp_log(SP_LOG_ERROR, "finalize: %s", strerror(-rc));
	}
	/* The finished trace replaced the unfinished one (or lives under a new
	 * prefix); if it could not be written, the unfinished one stays. */
	char *spt = cfg->prefix ? sp_writer__path(cfg->prefix, cfg->rank, ".spt") : NULL;
	if (!spt_written && sp_stream__path())
		sp_log(SP_LOG_ERROR, "the calls stay in the unfinished trace %s (readable by "
		       "`nunatak regions inspect`)", sp_stream__path());
	sp_stream__close(spt_written, spt);
	free(spt);
	sp_clock_map__exit(&map);
	free(near);
	free(threads);
	free(interned.v);
	return rc;
}
