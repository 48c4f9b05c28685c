/* SPDX-License-Identifier: BSD-3-Clause */
#include "api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "log.h"
#include "registry.h"
#include "sampler.h"
#include "scope_profiler.h"
#include "trace.h"
#include "writer.h"

/* Reported once each at finalize, as "misuse: <count> <text>". */
static const char *const misuse_text[SP_MISUSE_NR] = {
	[SP_MISUSE_NULL_HANDLE] = "calls with a NULL handle",
	[SP_MISUSE_END_UNOPENED] = "sp_end of a region that was not open (ignored)",
	[SP_MISUSE_END_NOT_INNER] = "sp_end of a region that was not the innermost open one",
	[SP_MISUSE_DISCARDED] = "inner regions discarded by such an sp_end",
	[SP_MISUSE_TOO_DEEP] = "regions opened deeper than 256 levels (not recorded)",
	[SP_MISUSE_LEFT_OPEN] = "regions still open at finalize (not recorded)",
	[SP_MISUSE_AFTER_FINALIZE] = "calls after sp_finalize (ignored)",
	[SP_MISUSE_FINALIZE_AGAIN] = "extra sp_finalize calls (ignored)",
	[SP_MISUSE_BAD_HANDLE] = "handles that are not sp_site descriptors (dropped)",
	[SP_MISUSE_NO_MEMORY] = "calls dropped for lack of memory",
};

static void report_misuse(struct sp_thread **threads, size_t nr, uint64_t bad_sites)
{
	uint64_t open = 0;
	for (size_t k = 0; k < nr; k++)
		open += threads[k]->depth;
	for (int m = 0; m < SP_MISUSE_NR; m++) {
		uint64_t n = sp_registry__misuse_total((enum sp_misuse)m);
		if (m == SP_MISUSE_LEFT_OPEN)
			n += open; /* counted here: the threads' stacks say it */
		if (m == SP_MISUSE_BAD_HANDLE)
			n += bad_sites;
		if (n)
			sp_log(SP_LOG_WARN, "misuse: %llu %s", (unsigned long long)n,
			       misuse_text[m]);
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

/* mkdir -p of the directory part of @p prefix, so SCOPE_PROFILER_PREFIX=
 * traces/run works without preparing traces/. Failures are left to the
 * write that follows, which reports them. */
static void make_parent_dirs(const char *prefix)
{
	char *p = strdup(prefix);
	if (!p)
		return;
	char *slash = strrchr(p, '/');
	if (slash && slash != p) {
		*slash = 0;
		for (char *c = p + 1; *c; c++) {
			if (*c != '/')
				continue;
			*c = 0;
			mkdir(p, 0755);
			*c = '/';
		}
		mkdir(p, 0755);
	}
	free(p);
}

/* Ticks recorded in an existing .sps, or -1. */
static int64_t existing_ticks(const char *path)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return -1;
	unsigned char b[28];
	int64_t ticks = -1;
	if (fread(b, 1, sizeof(b), f) == sizeof(b) && memcmp(b, "SCOPESMP", 8) == 0)
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

static int write_outputs(const struct sp_config *cfg, const struct sp_trace *tr,
			 bool want_spt)
{
	int first_err = 0;
	const char *suffix[3] = {".spt", ".sps", ".h5"};
	if (cfg->prefix)
		make_parent_dirs(cfg->prefix);
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
		}
		free(path);
	}
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
		       "(CPU-time timers fire at the kernel tick at most)",
		       s->effective_hz, s->requested_hz);
}

int sp_finalize__locked(const struct sp_config *cfg)
{
	atomic_store(&sp_fast, 0);
	atomic_store(&sp_state, SP_STATE_FINALIZED);
	if (sp_sampler__running())
		sp_sampler__stop();
	struct sp_thread **threads = NULL;
	size_t nr = sp_registry__threads(&threads);
	struct { const struct sp_site **v; size_t n, cap; } interned = {0};
	sp_registry__each_interned(collect_interned, &interned);
	struct sp_trace_input in = {
		.rank = cfg->rank, .threads = threads, .nr_threads = nr,
		.interned = interned.v, .nr_interned = interned.n,
		.samples = sp_sampler__chunks(), .with_modules = sp_sampler__ran(),
	};
	struct sp_clock_map map;
	struct sp_trace tr;
	int rc = sp_clock_map__init(&map);
	if (rc == 0)
		rc = sp_trace__build(&tr, &in, &map);
	if (rc == 0) {
		double ns_per_stamp = sp_clock_map__span_ns(&map, 1000000) / 1e6;
		sp_sampler__stats(&tr.stats, ns_per_stamp);
		if (tr.has_samples)
			log_sampler(&tr);
		bool want_spt = cfg->explicit_init || nr > 0 || interned.n > 0;
		rc = write_outputs(cfg, &tr, want_spt);
		report_misuse(threads, nr, tr.bad_sites);
		sp_trace__free(&tr);
	} else {
		sp_log(SP_LOG_ERROR, "finalize: %s", strerror(-rc));
	}
	sp_clock_map__exit(&map);
	free(threads);
	free(interned.v);
	return rc;
}

