// SPDX-License-Identifier: BSD-3-Clause
/*
 * The collector decision (`--collector`) and the preload sampler's side of
 * the pipeline: the launch under LD_PRELOAD and the ingestion of its .sps
 * files (collect/collector.h, ingest/sps_ingest.h).
 */
#include "run/stages.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collector.h"
#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/doctor.h"
#include "exec/exec.h"
#include "ingest/sps_ingest.h"
#include "tools/perf.h"

#define SAMPLE_HZ_VAR "SCOPE_PROFILER_SAMPLE_HZ"

static int announce_preload(struct run_state *s, const char *why)
{
	char msg[512];
	doctor_preload_message(why, s->freq, msg, sizeof(msg));
	return run_state__degrade(s, DEG_CPU_COLLECTION_PRELOAD, msg, DEG_CPU_COLLECTION_PRELOAD_REMEDY);
}

static int no_collector(struct run_state *s, const char *why)
{
	char msg[300];
	if (s->req->collector == COLLECTOR_PRELOAD) {
		return run_state__degrade(
			s, DEG_CPU_COLLECTION_UNAVAILABLE,
			"--collector preload: libscope_profiler.so not found beside nunatak: no "
			"CPU samples will be collected",
			"install nunatak completely (cmake --install) so lib/libscope_profiler.so "
			"sits beside bin/nunatak");
	}
	snprintf(msg, sizeof(msg), "%s: no CPU samples will be collected%s", why,
		 s->req->collector == COLLECTOR_PERF ? " (--collector perf)" : "");
	const char *remedy = s->caps.perf.present
				     ? "sudo sysctl kernel.perf_event_paranoid=2 (or 1), or "
				       "--collector preload"
				     : "install perf (linux-perf / linux-tools) or set tools.perf";
	return run_state__degrade(s, DEG_CPU_COLLECTION_UNAVAILABLE, msg, remedy);
}

int collector_decide(struct run_state *s, bool perf_can_sample, const char *why_not)
{
	/* A replay serves the recorded invocations: only what was recorded. */
	bool want_lib = !s->replay && (s->req->collector == COLLECTOR_PRELOAD ||
				       (s->req->collector == COLLECTOR_AUTO && !perf_can_sample));
	if (want_lib)
		s->preload_lib = doctor_preload_library();
	s->collector = collector_choose(s->req->collector, perf_can_sample, s->preload_lib);
	s->sampling_blocked = s->collector != COLLECTOR_USE_PERF;
	console__debug(s->con, 1, "collector: %s", collector_kind__name(s->collector));
	if (s->collector == COLLECTOR_USE_PRELOAD)
		return announce_preload(s, why_not ? why_not : "--collector preload");
	if (s->collector == COLLECTOR_NONE)
		return no_collector(s, why_not ? why_not : "perf cannot sample");
	return 0;
}

bool collector_fallback_preload(struct run_state *s, const char *why)
{
	if (s->req->collector != COLLECTOR_AUTO || s->replay)
		return false;
	s->preload_lib = doctor_preload_library();
	if (!s->preload_lib)
		return false;
	s->collector = COLLECTOR_USE_PRELOAD;
	s->sampling_blocked = true;
	announce_preload(s, why);
	return true;
}

/* The application's environment: the region prefix (where the .sps lands),
 * our library before the user's LD_PRELOAD, the requested rate. */
static int preload_env(struct run_state *s, struct err *e)
{
	s->preload_env[0] = collector_ld_preload(s->preload_lib, getenv("LD_PRELOAD"));
	s->preload_env[1] = xasprintf(SAMPLE_HZ_VAR "=%d", s->freq);
	if (!s->preload_env[0] || !s->preload_env[1])
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	size_t k = 0;
	if (s->regions_env)
		s->app_env_set[k++] = s->regions_env;
	s->app_env_set[k++] = s->preload_env[0];
	s->app_env_set[k++] = s->preload_env[1];
	s->app_env_set[k] = NULL;
	return 0;
}

int collect_preload(struct run_state *s, char *const *argv, struct exec_result *res,
		    struct err *e)
{
	int rc = preload_env(s, e);
	if (rc < 0)
		return rc;
	console__info(s->con, "collecting with the preload sampler (%s via LD_PRELOAD, %d Hz "
			      "requested): %s", s->preload_lib, s->freq, argv[0]);
	struct exec_request rq = {.argv = (const char *const *)argv, .forward_signals = true,
				  .application = true, .env_set = s->app_env_set};
	iso_now(s->pass.start);
	s->launched = true;
	rc = executor__run(s->x, &rq, res, e);
	iso_now(s->pass.end);
	s->pass.duration_s = res->duration_s;
	s->pass.sampled = rc == 0;
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

int ingest_preload(struct run_state *s, const struct ingest_opts *o, struct err *e)
{
	char *dir = xasprintf("%s/regions", s->collect_dir);
	int n = 0;
	char **paths = dir ? sps_paths(dir, &n) : NULL;
	int rc = 0;
	struct sps_ingest_info info;
	memset(&info, 0, sizeof(info));
	if (n == 0) {
		run_state__degrade(s, DEG_PRELOAD_SAMPLER_SILENT,
				   "the preload sampler wrote no samples (a static or setuid "
				   "program ignores LD_PRELOAD; a program ending in _exit() or "
				   "killed by a signal skips the library's exit hook)",
				   "link the program dynamically, or use perf (--collector perf)");
	} else {
		rc = ingest_sps_files((const char *const *)paths, n, o, &s->pivot, &info, e);
	}
	if (rc == 0 && n > 0) {
		s->nr_samples = info.samples;
		s->sps_hz_min = info.hz_min;
		s->sps_hz_max = info.hz_max;
		s->sps_cpu_s = info.cpu_s;
		console__info(s->con, "preload sampler: %lld samples at a measured %d Hz%s (%d Hz "
				      "requested; CPU-time timers tick at the kernel's HZ), each worth "
				      "%.3g ms of CPU time (estimated)",
			      (long long)info.samples, info.hz_min,
			      info.hz_max != info.hz_min ? " and more" : "", s->freq,
			      info.hz_min > 0 ? 1e3 / info.hz_min : 0.0);
	}
	for (int i = 0; paths && i < n; i++)
		xfree(paths[i]);
	xfree(paths);
	xfree(dir);
	return rc;
}

/* perf record refused the full options: does it record at all? A minimal
 * `perf record -e task-clock -- true` tells a refusal of perf itself
 * (perf_event_paranoid, a container without perf_event_open) from a
 * refusal of one option, so the ladder does not blame the counter group
 * for a permission. Its stderr is ours to read: the application is `true`. */
bool perf_records_at_all(struct run_state *s, char *why, size_t cap)
{
	char *out = xasprintf("%s/.perf-probe.data", s->collect_dir);
	char **argv = out ? perf_argv_record_probe(s->caps.perf.path, out) : NULL;
	struct exec_request rq = {.argv = (const char *const *)argv, .capture_stdout = true,
				  .capture_stderr = true, .timeout_s = 60};
	struct exec_result res = {0};
	struct err e = {0};
	bool ok = true;
	if (argv && executor__run(s->x, &rq, &res, &e) == 0 && res.exit_code != 0) {
		ok = false;
		const char *err = res.err ? res.err : "";
		bool perm = strstr(err, "paranoid") || strstr(err, "Permission denied") ||
			    strstr(err, "Access to performance monitoring");
		snprintf(why, cap, "perf record cannot sample here (exit %d%s)", res.exit_code,
			 perm ? ": perf_event_paranoid or missing CAP_PERFMON" : "");
	}
	exec_result__release(&res);
	perf_argv__free(argv);
	if (out)
		unlink(out);
	xfree(out);
	return ok;
}
