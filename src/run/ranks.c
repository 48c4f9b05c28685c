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
#include "machine/calibrate.h"
#include "model/machine_identity.h"
#include "mpi/skip.h"

static size_t count(char *const *v)
{
	return argv_count((const char *const *)v);
}

struct collector *collector_for_ranks(struct run_state *s, struct err *e)
{
	/* With no application resolved, stage_launch put the whole command in
	 * both prefix and app: there is nothing to interpose the shim before. */
	if (!s->app || !s->app[0] ||
	    count(s->prefix) + count(s->app) != (size_t)s->req->cmd_argc) {
		run_state__degrade(s, DEG_RANK_COLLECTION_UNAVAILABLE,
				   "no application could be told apart from the launcher's options: "
				   "the ranks run uncollected",
				   DEG_RANK_COLLECTION_UNAVAILABLE_REMEDY);
		return collector_mpi_ranks__new(NULL, NULL, NULL, s->req->cmd, s->world_size, e);
	}
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
	/* a node of another Machine calibrates itself once, as this one did */
	char lid[MACHINE_ID_SIZE] = "";
	bool node_cal = s->machine && !s->replay && !run_calibration_skipped(s) &&
			machine_identity(s->machine, lid) == 0;
	double budget = s->cfg && s->cfg->calibration_budget_s > 0 ? s->cfg->calibration_budget_s
								   : CALIBRATION_DEFAULT_BUDGET_S;
	struct rank_shim_opts o = {.directory = s->collect_dir, .freq = s->freq,
				   .launch_machine = node_cal ? lid : NULL,
				   .node_calibration_s = node_cal ? (int)(budget + 0.5) : 0,
				   .cc = s->cfg ? config__tool(s->cfg, "cc") : NULL,
				   .rank_threshold = threshold, .mpi_profile = mpi_lib,
				   .mpi_skip = skip,
				   .perf = s->collect.caps.perf.present ? s->collect.caps.perf.path : NULL,
				   /* set in every rank: mpirun forwards its environment
				    * to its own node's ranks only */
				   .regions_name = s->env.regions ? s->name : NULL,
				   /* samples and region traces on one timeline */
				   .clock_monotonic = true, .sampler_lib = lib,
				   .offcpu = s->collect.offcpu,
				   /* the OMPT tool on every node, as the region prefix */
				   .ompt_lib = s->env.ompt[0] ? strchr(s->env.ompt[0], '=') + 1 : NULL,
				   .call_graph = s->collect.stacks ? stacks_mode__name(s->collect.stacks) : NULL,
				   .preload_only = s->req->collector == COLLECTOR_PRELOAD};
	struct collector *c = collector_mpi_ranks__new(&o, s->prefix, s->app, s->req->cmd,
						       s->world_size, e);
	xfree(lib);
	xfree(mpi_lib);
	return c;
}
