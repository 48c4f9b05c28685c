// SPDX-License-Identifier: BSD-3-Clause
#include "run/ranks.h"

#include <errno.h>
#include <string.h>

#include "run/pipeline.h"
#include "collect/rank_shim.h"
#include "collect/stacks.h"

#include "run/ranks_mpi.h"
#include "run/stages.h"
#include "common/alloc.h"
#include "common/argv.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "doctor/doctor.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "launch/split.h"
#include "mpi/skip.h"

static size_t count(char *const *v)
{
	return argv_count((const char *const *)v);
}

static char *join(char *const *v)
{
	return argv_join((const char *const *)v);
}

static int launch(struct run_state *s, char **argv, struct err *e)
{
	struct collect_env env;
	run_state__collect_env(s, &env);
	struct collect_pass p = {0};
	struct exec_result res = {0};
	int rc = collect_run_app(&env, &p, argv, NULL, &res, e);
	s->launched = p.launched;
	memcpy(s->pass.start, p.start, sizeof(s->pass.start));
	memcpy(s->pass.end, p.end, sizeof(s->pass.end));
	s->pass.duration_s = p.duration_s;
	if (rc == 0) {
		run_pass__take(&s->pass, &res);
		s->exit_code = res.exit_code;
		run_announce_outcome(s);
	}
	exec_result__release(&res);
	return rc;
}

int collect_ranks(struct run_state *s, struct err *e)
{
	/* With no application resolved, stage_launch put the whole command in
	 * both prefix and app: there is nothing to interpose the shim before. */
	if (!s->app || !s->app[0] ||
	    count(s->prefix) + count(s->app) != (size_t)s->req->cmd_argc) {
		run_state__degrade(s, DEG_RANK_COLLECTION_UNAVAILABLE,
				   "no application could be told apart from the launcher's options: "
				   "the ranks run uncollected",
				   DEG_RANK_COLLECTION_UNAVAILABLE_REMEDY);
		char *shown = join(s->req->cmd);
		console__info(s->con, "launching: %s", shown ? shown : s->req->cmd[0]);
		xfree(shown);
		return launch(s, s->req->cmd, e);
	}
	char *self = rank_shim_self_exe();
	/* Each rank decides on its own node: perf there, else the stand-in. */
	char *lib = s->req->collector != COLLECTOR_PERF && !s->replay ? doctor_preload_library()
								     : NULL;
	char *mpi_lib = collect_mpi_prepare(s, e);
	int threshold = s->cfg ? s->cfg->rank_threshold : RANK_SHIM_DEFAULT_THRESHOLD;
	const char *skip = s->req->mpi_skip ? s->req->mpi_skip : s->cfg ? s->cfg->mpi_skip : NULL;
	if (skip && !mpi_skip_valid(skip)) {
		console__warn(s->con, "mpi.skip = \"%s\" ignored: expected MPI function names "
			      "separated by commas (MPI_Test,MPI_Iprobe)", skip);
		skip = NULL;
	}
	struct rank_shim_opts o = {.directory = s->collect_dir, .freq = s->freq,
				   .rank_threshold = threshold, .mpi_profile = mpi_lib,
				   .mpi_skip = skip,
				   .perf = s->caps.perf.present ? s->caps.perf.path : NULL,
				   /* set in every rank: mpirun forwards its environment
				    * to its own node's ranks only */
				   .regions_name = s->regions_env ? s->name : NULL,
				   /* samples and region traces on one timeline */
				   .clock_monotonic = true, .sampler_lib = lib,
				   .call_graph = s->stacks ? stacks_mode__name(s->stacks) : NULL,
				   .preload_only = s->req->collector == COLLECTOR_PRELOAD};
	char **shim = self ? rank_shim_argv(self, &o) : NULL;
	struct launch_plan plan = {.prefix = s->prefix, .nr_prefix = count(s->prefix),
				   .app = s->app, .nr_app = count(s->app)};
	char **argv = shim ? launch_plan__wrap(&plan, (const char *const *)shim) : NULL;
	int rc;
	if (!argv) {
		rc = err_set(e, -ENOMEM, ERR_OOM, "cannot build the rank launch (/proc/self/exe unreadable "
				 "or out of memory)");
		goto out;
	}
	char *shown = join(argv);
	if (s->world_size > threshold || s->world_size < 0)
		console__info(s->con, "launching ranks (rank 0 and one rank per node sample beyond %d "
				      "ranks, the others count): %s", threshold, shown ? shown : "");
	else
		console__info(s->con, "launching ranks (every rank samples up to %d ranks): %s",
			      threshold, shown ? shown : "");
	xfree(shown);
	rc = launch(s, argv, e);
out:
	xfree(argv);
	rank_shim_argv__free(shim);
	xfree(self);
	xfree(lib);
	xfree(mpi_lib);
	return rc;
}
