// SPDX-License-Identifier: BSD-3-Clause
/* Region traces of a program linked with scope_profiler: where they go
 * (SCOPE_PROFILER_PREFIX, before launch) and what they give (region_stats
 * and samples per region, after attribution: regions/meet_run.h). */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/machine.h"
#include "regions/meet_run.h"

#define PREFIX_VAR "SCOPE_PROFILER_PREFIX"

int stage_regions_env(struct run_state *s, struct err *e)
{
	if (!s->collect_dir || !s->name)
		return 0;
	s->env.regions = xasprintf(PREFIX_VAR "=%s/regions/%s", s->collect_dir, s->name);
	if (!s->env.regions)
		return err_oom(e);
	s->env.set[0] = s->env.regions;
	/* Ours wins, so the Run holds the traces; the user's value is kept in
	 * the manifest's effective configuration. */
	const char *user = getenv(PREFIX_VAR);
	if (user && *user) {
		console__info(s->con, "%s=%s is overridden: region traces go to %s/regions/",
			      PREFIX_VAR, user, s->collect_dir);
		if (s->prov.effective_config)
			json_object_set_new(s->prov.effective_config, "env." PREFIX_VAR ".user",
					    json_string(user));
	}
	return run_ompt_env(s, e);
}

int stage_regions(struct run_state *s, struct err *e)
{
	if (!s->collect_dir || !s->launched || s->replay)
		return 0;
	char *dir = xasprintf("%s/regions", s->collect_dir);
	if (!dir)
		return err_oom(e);
	char host[256] = "localhost";
	if (s->machine && s->machine->hostname)
		snprintf(host, sizeof(host), "%s", s->machine->hostname);
	else
		gethostname(host, sizeof(host) - 1);
	struct meet_opts o = {.regions_dir = dir, .collect_dir = s->collect_dir,
			      .perf_data = s->collect.passes[0].sampled && !s->mpi && s->collect.collector == COLLECTOR_USE_PERF
					   ? s->collect.perf_data
					   : NULL,
			      .mpi = s->mpi, .node = host};
	struct degradations d = {0};
	struct meet_summary sum;
	int rc = regions_meet_run(&s->pivot, &o, &d, &sum, e);
	for (size_t i = 0; i < d.n; i++)
		run_state__degrade(s, d.v[i].name, d.v[i].message, d.v[i].remedy);
	degradations__release(&d);
	if (rc == 0 && sum.nr_traces)
		console__debug(s->con, 1,
			       "regions: %d trace(s), %lld calls; %lld of %lld samples inside a "
			       "region", sum.nr_traces, (long long)sum.nr_calls,
			       (long long)sum.nr_in_region, (long long)sum.nr_samples);
	xfree(dir);
	return rc;
}
