// SPDX-License-Identifier: BSD-3-Clause
// The helpers of struct run_state the stages share, apart from the driver
// (pipeline.c) that runs them, so no stage file depends on the driver's.
#include "run/pipeline.h"
#include "run/stages.h"

#include <jansson.h>
#include <string.h>

#include "attrib/attrib.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "exec/exec.h"
#include "model/machine.h"
#include "model/model.h"
#include "tools/caps.h"
#include "tools/locate.h"

int run_state__degrade(struct run_state *s, const char *name, const char *message,
		       const char *remedy)
{
	/* Announced once, as soon as known: before launch that is the point;
	 * after it, a job log still shows them in the order they happened. */
	int rc = degradations__add(&s->degradations, name, message, remedy);
	if (rc == 1)
		console__degraded(s->con, name, message, remedy);
	return rc < 0 ? rc : 0;
}

static int degrade(void *run, const char *name, const char *message, const char *remedy)
{
	return run_state__degrade(run, name, message, remedy);
}

void run_state__collect_env(struct run_state *s, struct collect_env *env)
{
	*env = (struct collect_env){.x = s->x, .con = s->con, .replay = s->replay,
				    .recording = s->req->record_entry != NULL, .freq = s->freq,
				    .app = s->launch.app, .env_set = s->env.set,
				    .collect_dir = s->rundir.collect_dir, .degrade = degrade, .run = s};
}

void run_pass__take(struct run_pass *p, const struct exec_result *res)
{
	p->exit_code = res->exit_code;
	p->term_signal = res->term_signal;
	p->interrupted_by = res->interrupted_by;
	p->abandoned = res->abandoned;
	p->cpu_user_s = res->have_rusage ? res->cpu_user_s : -1;
	p->cpu_sys_s = res->have_rusage ? res->cpu_sys_s : -1;
}

/* The first signal nunatak received while any pass ran, 0: none. */
int run_interrupted_by(const struct run_state *s)
{
	for (int i = 0; i < s->collect.nr_passes; i++)
		if (s->collect.passes[i].interrupted_by)
			return s->collect.passes[i].interrupted_by;
	return s->collect.passes[0].interrupted_by;
}

static void run_result__release(struct run_result *o)
{
	if (o->have_analysis)
		analysis__release(&o->analysis);
	run_ceilings__release(&o->run_ceilings);
	if (o->have_ranks)
		rank_imbalance__release(&o->ranks);
	manifest__release(&o->manifest);
	xfree(o->report_path);
}

void run_state__release(struct run_state *s)
{
	run_store_job_join(s->store_job, NULL); /* it reads the pivot */
	s->store_job = NULL;
	if (s->x)
		executor__free(s->x);
	json_decref(s->prov.effective_config);
	json_decref(s->prov.dependencies);
	xfree(s->prov.mpi_probe);
	xfree(s->netceil.nodes);
	json_decref(s->netceil.stored);
	xfree(s->netceil.source);
	json_decref(s->out.overhead);
	xfree(s->launch.prefix);
	xfree(s->launch.app);
	if (s->machine) {
		machine__release(s->machine);
		xfree(s->machine);
	}
	xfree(s->cpuinfo);
	if (s->tools) {
		attrib_tools__release(s->tools);
		xfree(s->tools);
	}
	attrib_kernel_prefetch_free(s->kprefetch); /* its thread joined before exiting */
	s->kprefetch = NULL;
	if (s->cfg) {
		config__release(s->cfg);
		xfree(s->cfg);
	}
	xfree(s->rundir.name);
	xfree(s->rundir.dir);
	xfree(s->rundir.collect_dir);
	caps__release(&s->collect.caps);
	collector__free(s->collect.coll);
	xfree(s->collect.perf_data);
	run_result__release(&s->out);
	xfree(s->env.regions);
	xfree(s->env.ompt_dir);
	xfree(s->env.ompt[0]);
	xfree(s->env.ompt[1]);
	xfree(s->collect.preload_lib);
	xfree(s->collect.plan);
	json_decref(s->collect.multi_pass_json);
	json_decref(s->out.nodes);
	pivot__release(&s->pivot);
	degradations__release(&s->degradations);
	memset(s, 0, sizeof(*s));
}
