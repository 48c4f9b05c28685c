// SPDX-License-Identifier: BSD-3-Clause
/*
 * The preload collector (collect/collector.h): libscope_profiler injected
 * into the unmodified application with LD_PRELOAD, its CPU-time timers
 * started by SCOPE_PROFILER_SAMPLE_HZ from the library's constructor; the
 * .sps files it writes beside the region traces go into the pivot
 * (task-clock, estimated).
 */
#include "collect/collector.h"
#include "collect/preload_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "ingest/sps_ingest.h"

#define SAMPLE_HZ_VAR "SCOPE_PROFILER_SAMPLE_HZ"
#define MAX_ENV 8

struct preload_collector {
	struct collector base;
	const char *lib;
	struct preload_path pp;       /* lib as LD_PRELOAD can name it */
	char *vars[2];                /* "LD_PRELOAD=...", "SCOPE_PROFILER_SAMPLE_HZ=..." */
	const char *env_set[MAX_ENV]; /* the Run's, then vars */
};

static struct preload_collector *of(const struct collector *c)
{
	return (struct preload_collector *)c;
}

/* The application's environment: the Run's (the region prefix, where the
 * .sps lands), our library before the user's LD_PRELOAD, the rate. */
static int preload_env(struct preload_collector *pc, const struct collect_env *env,
		       struct err *e)
{
	xfree(pc->vars[0]);
	xfree(pc->vars[1]);
	if (!pc->pp.path)
		preload_path__make(&pc->pp, pc->lib); /* on failure: lib as it is */
	pc->vars[0] = collector_ld_preload(pc->pp.path ? pc->pp.path : pc->lib,
					   getenv("LD_PRELOAD"));
	pc->vars[1] = xasprintf(SAMPLE_HZ_VAR "=%d", env->freq);
	if (!pc->vars[0] || !pc->vars[1])
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	size_t k = 0;
	for (size_t i = 0; env->env_set && env->env_set[i] && k < MAX_ENV - 3; i++)
		pc->env_set[k++] = env->env_set[i];
	pc->env_set[k++] = pc->vars[0];
	pc->env_set[k++] = pc->vars[1];
	pc->env_set[k] = NULL;
	return 0;
}

static int preload_launch(struct collector *c, const struct collect_env *env,
			  struct collect_pass *p, struct exec_result *res, struct err *e)
{
	struct preload_collector *pc = of(c);
	int rc = preload_env(pc, env, e);
	if (rc < 0)
		return rc;
	console__info(env->con, "collecting with the preload sampler (%s via LD_PRELOAD, %d Hz "
				"requested): %s", pc->lib, env->freq, env->app[0]);
	struct collect_env with = *env;
	with.env_set = pc->env_set;
	rc = collect_run_app(&with, p, env->app, NULL, res, e);
	p->sampled = rc == 0;
	return rc;
}

static bool is_sps(const char *name)
{
	size_t l = strlen(name);
	return l > 4 && strcmp(name + l - 4, ".sps") == 0;
}

/* The .sps files under <collect>/regions/, sorted (deterministic order). */
static char **sps_paths(const char *dir, int *n)
{
	struct dirent **list = NULL;
	int m = scandir(dir, &list, NULL, alphasort);
	*n = 0;
	if (m < 0)
		return NULL;
	char **v = xcalloc((size_t)m + 1, sizeof(*v));
	for (int i = 0; i < m; i++) {
		if (v && is_sps(list[i]->d_name))
			v[(*n)++] = xasprintf("%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return v;
}

static int preload_ingest(struct collector *c, const struct collect_env *env,
			  struct collect_pass *p, const struct ingest_opts *o, struct pivot *pivot,
			  struct collect_counts *out, struct err *e)
{
	(void)c;
	(void)p;
	char *dir = xasprintf("%s/regions", env->collect_dir);
	int n = 0;
	char **paths = dir ? sps_paths(dir, &n) : NULL;
	int rc = 0;
	struct sps_ingest_info info;
	memset(&info, 0, sizeof(info));
	if (n == 0) {
		env->degrade(env->run, DEG_PRELOAD_SAMPLER_SILENT,
			     "the preload sampler wrote no samples (a static or setuid "
			     "program ignores LD_PRELOAD; a program ending in _exit() or "
			     "killed by a signal skips the library's exit hook)",
			     "link the program dynamically, or use perf (--collector perf)");
	} else {
		rc = ingest_sps_files((const char *const *)paths, n, o, pivot, &info, e);
	}
	if (rc == 0 && n > 0) {
		out->nr_samples = info.samples;
		console__info(env->con, "preload sampler: %lld samples for %lld timer expirations at "
					"a measured %d Hz%s (%d Hz requested; the kernel signals "
					"CPU-time timers at its tick at most, a sample weighs the "
					"expirations it stood for), one per %.3g ms of CPU time on "
					"average (estimated)",
			      (long long)info.samples, (long long)info.ticks, info.hz_min,
			      info.hz_max != info.hz_min ? " and more" : "", env->freq,
			      info.samples > 0 ? 1e3 * info.cpu_s / (double)info.samples : 0.0);
	}
	for (int i = 0; paths && i < n; i++)
		xfree(paths[i]);
	xfree(paths);
	xfree(dir);
	return rc;
}

static void preload_describe(const struct collector *c, char *buf, size_t cap)
{
	snprintf(buf, cap, "preload sampler (%s)", of(c)->lib);
}

static void preload_free(struct collector *c)
{
	struct preload_collector *pc = of(c);
	xfree(pc->vars[0]);
	xfree(pc->vars[1]);
	preload_path__release(&pc->pp);
	xfree(pc);
}

static const struct collector_ops preload_ops = {
	.name = "preload",
	.launch = preload_launch,
	.ingest = preload_ingest,
	.describe = preload_describe,
	.free = preload_free,
};

struct collector *collector_preload__new(const char *lib)
{
	struct preload_collector *pc = xcalloc(1, sizeof(*pc));
	if (!pc)
		return NULL;
	pc->base.ops = &preload_ops;
	pc->lib = lib;
	return &pc->base;
}
