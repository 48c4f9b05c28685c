// SPDX-License-Identifier: BSD-3-Clause
/* Stages before launch: configuration, launch split, machine, doctor light,
 * Run directory. Nothing here runs the application. */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"
#include "tools/locate.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/doctor.h"
#include "exec/exec.h"
#include "launch/launch.h"
#include "machine/snapshot.h"

int stage_config(struct run_state *s, struct err *e)
{
	s->cfg = xcalloc(1, sizeof(*s->cfg));
	if (!s->cfg)
		return err_oom(e);
	int rc = config__load(s->cfg, NULL, e);
	for (size_t i = 0; i < s->cfg->nr_warnings; i++)
		console__warn(s->con, "%s", s->cfg->warnings[i]);
	if (rc < 0)
		return rc;
	if (s->req->freq > 0) {
		char hz[32];
		snprintf(hz, sizeof(hz), "%d", s->req->freq);
		if ((rc = config__set(s->cfg, "sampling.frequency", hz, e)) < 0)
			return rc;
	}
	if (s->req->name && (rc = config__set(s->cfg, "name", s->req->name, e)) < 0)
		return rc;
	s->freq = s->cfg->sampling_frequency_hz > 0 ? s->cfg->sampling_frequency_hz
						    : PERF_DEFAULT_FREQ;
	s->prov.effective_config = config__effective_json(s->cfg);
	return s->prov.effective_config ? 0 : err_oom(e);
}

int stage_launch(struct run_state *s, struct err *e)
{
	struct launch_plan plan;
	int rc = launch_split(s->req->cmd, &plan, e);
	if (rc < 0)
		return rc;
	s->prefix = xcalloc(plan.nr_prefix + 1, sizeof(char *));
	s->app = xcalloc(plan.nr_app + 1 + (plan.nr_app ? 0 : (size_t)s->req->cmd_argc),
			 sizeof(char *));
	if (!s->prefix || !s->app)
		return err_oom(e);
	for (size_t i = 0; i < plan.nr_prefix; i++)
		s->prefix[i] = plan.prefix[i];
	if (plan.nr_app == 0) {
		/* Nothing resolved behind a launcher: say so, run the command as given. */
		if (plan.problem[0])
			console__warn(s->con, "%s", plan.problem);
		for (int i = 0; i < s->req->cmd_argc; i++)
			s->app[i] = s->req->cmd[i];
	} else {
		for (size_t i = 0; i < plan.nr_app; i++)
			s->app[i] = plan.app[i];
	}
	s->mpi = plan.mpi;
	s->launcher = plan.launcher;
	s->world_size = plan.world_size;
	s->target = plan.target ? plan.target : s->req->cmd[0];
	/* HOOK(mpi): an MPI launch is collected by the MPI ranks collector
	 * (collect/mpi_ranks.c, chosen by collector_for_ranks(), run/ranks.h):
	 * the launcher runs without perf, each rank samples or counts itself. */
	return 0;
}

int stage_machine(struct run_state *s, struct err *e)
{
	s->machine = xcalloc(1, sizeof(*s->machine));
	if (!s->machine)
		return err_oom(e);
	machine__init(s->machine);
	int rc = machine__snapshot(s->machine, s->x, e);
	if (rc < 0)
		return rc;
	if (s->machine->cpuinfo_text)
		s->cpuinfo = xstrdup(s->machine->cpuinfo_text);
	s->collect.group = s->collect.sampling_blocked ? NULL : perf_counter_group(s->cpuinfo);
	return 0;
}

/* Announces, before launch, what attribution will lack (llvm-missing) and
 * what the target binary allows (target-binary, target-attribution), and
 * keeps the located symbolizer for stage_attribute. */
int stage_doctor(struct run_state *s, struct err *e)
{
	s->tools = xcalloc(1, sizeof(*s->tools));
	if (!s->tools)
		return err_oom(e);
	struct degradations d = {0};
	int rc = doctor_light(s->x, s->cfg, (const char *const *)s->req->cmd, s->replay, s->tools,
			      &d, e);
	for (size_t i = 0; rc == 0 && i < d.n; i++)
		if (run_state__degrade(s, d.v[i].name, d.v[i].message, d.v[i].remedy) < 0)
			rc = err_oom(e);
	degradations__release(&d);
	return rc;
}
