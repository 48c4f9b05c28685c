// SPDX-License-Identifier: BSD-3-Clause
/* The rank shim's own command line, as the run pipeline rewrites the launch
 * (collect/rank_shim.h). */
#include "collect/rank_shim.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "doctor/offcpu.h"
#include "tools/perf.h"
#include "common/alloc.h"

char **rank_shim_argv(const char *self, const struct rank_shim_opts *o)
{
	char **v = xcalloc(48, sizeof(*v)); /* 36 words at most, and the NULL */
	if (!v)
		return NULL;
	size_t k = 0;
	bool ok = true;
#define ADD(s) ok = ok && (v[k++] = xstrdup(s)) != NULL
#define ADDF(...) ok = ok && (v[k++] = xasprintf(__VA_ARGS__)) != NULL
	ADD(self);
	ADD("rank-shim");
	ADD("--directory");
	ADD(o->directory);
	ADD("--frequency");
	ADDF("%d", o->freq > 0 ? o->freq : PERF_DEFAULT_FREQ);
	ADD("--rank-threshold");
	ADDF("%d", o->rank_threshold > 0 ? o->rank_threshold : RANK_SHIM_DEFAULT_THRESHOLD);
	if (o->perf) {
		ADD("--perf");
		ADD(o->perf);
	}
	if (o->call_graph) {
		ADD("--call-graph");
		ADD(o->call_graph);
	}
	if (o->preload) {
		ADD("--preload");
		ADD(o->preload);
	}
	if (o->sampler_lib) {
		ADD("--sampler-lib");
		ADD(o->sampler_lib);
	}
	if (o->preload_only)
		ADD("--preload-only");
	if (o->mpi_profile) {
		ADD("--mpi-profile");
		ADD(o->mpi_profile);
	}
	if (o->mpi_profile && o->mpi_skip) {
		ADD("--mpi-skip");
		ADD(o->mpi_skip);
	}
	if (o->regions_name) {
		ADD("--regions-name");
		ADD(o->regions_name);
	}
	if (o->clock_monotonic)
		ADD("--clock-monotonic");
	if (o->ompt_lib) {
		ADD("--ompt-lib");
		ADD(o->ompt_lib);
	}
	if (o->offcpu >= OFFCPU_SWITCHES) {
		ADD("--offcpu");
		ADD(o->offcpu >= OFFCPU_STACKS ? "stacks" : "switches");
	}
	if (o->perf_script)
		ADD("--perf-script");
	if (o->launch_machine && o->node_calibration_s > 0) {
		ADD("--launch-machine");
		ADD(o->launch_machine);
		ADD("--node-calibration");
		ADDF("%d", o->node_calibration_s);
	}
	if (o->launch_machine && o->node_calibration_s > 0 && o->cc) {
		ADD("--cc");
		ADD(o->cc);
	}
	ADD("--");
#undef ADD
#undef ADDF
	if (!ok) {
		rank_shim_argv__free(v);
		return NULL;
	}
	return v;
}

void rank_shim_argv__free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		xfree(argv[i]);
	xfree(argv);
}

char *rank_shim_self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}
