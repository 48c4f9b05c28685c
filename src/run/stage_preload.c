// SPDX-License-Identifier: BSD-3-Clause
/*
 * The collector decision (`--collector`): perf, the preload sampler standing
 * in for it (announced), or none; the preload collector itself is
 * collect/preload.c.
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
	const char *remedy = s->collect.caps.perf.present
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
		s->collect.preload_lib = doctor_preload_library();
	s->collect.collector = collector_choose(s->req->collector, perf_can_sample, s->collect.preload_lib);
	s->collect.sampling_blocked = s->collect.collector != COLLECTOR_USE_PERF;
	console__debug(s->con, 1, "collector: %s", collector_kind__name(s->collect.collector));
	if (s->collect.collector == COLLECTOR_USE_PRELOAD)
		return announce_preload(s, why_not ? why_not : "--collector preload");
	if (s->collect.collector == COLLECTOR_NONE)
		return no_collector(s, why_not ? why_not : "perf cannot sample");
	return 0;
}

bool collector_fallback_preload(struct run_state *s, const char *why)
{
	if (s->req->collector != COLLECTOR_AUTO || s->replay)
		return false;
	s->collect.preload_lib = doctor_preload_library();
	if (!s->collect.preload_lib)
		return false;
	s->collect.collector = COLLECTOR_USE_PRELOAD;
	s->collect.sampling_blocked = true;
	announce_preload(s, why);
	return true;
}
