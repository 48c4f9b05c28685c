// SPDX-License-Identifier: BSD-3-Clause
/* Ceilings per node (model/node_machines.h, machine/node_profile.h): after the
 * ranks' ingestion, each node's Machine and the Ceilings its ranks are placed
 * against go to the manifest's "nodes"; a node that has none of its own
 * borrows the launch node's, estimated, and the Run says so with the remedy:
 * calibrate once on that node. */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/ranks.h"
#include "machine/node_profile.h"

static int degrade_borrowed(struct run_state *s, const struct node_machines *nm)
{
	for (size_t i = 0; i < nm->n; i++) {
		const struct node_machine *n = &nm->v[i];
		if (n->source != NODE_CEILINGS_BORROWED)
			continue;
		char ranks[128];
		ranks_format_list(n->ranks, (int)n->nr_ranks, ranks, sizeof(ranks));
		char *msg = xasprintf("rank%s %s placed on the roofline against estimated "
				      "Ceilings: %s",
				      n->nr_ranks == 1 ? "" : "s", ranks, n->reason);
		char *remedy = xasprintf(
			"run `nunatak calibrate` once on %s (under Slurm: `srun -N 1 -n 1 -w %s "
			"nunatak calibrate`, with the job's CPU binding); later Runs read its "
			"cached Ceilings, and identical nodes share them",
			n->node, n->node);
		int rc = msg && remedy ? run_state__degrade(s, DEG_NODE_CEILINGS_BORROWED, msg, remedy)
				       : -ENOMEM;
		xfree(msg);
		xfree(remedy);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int run_node_machines(struct run_state *s, struct err *e)
{
	if (!s->launch.mpi || !s->rundir.collect_dir || !s->machine || s->out.nodes)
		return 0;
	struct node_machines nm;
	int rc = node_machines_gather(s->rundir.collect_dir, s->machine, &nm, e);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < nm.n; i++) /* why the job took longer this once */
		if (nm.v[i].calibrated && nm.v[i].source == NODE_CEILINGS_OWN)
			console__info(s->con, "calibration: node %s, another Machine than this one, "
				      "calibrated itself after its ranks (first Run on it) and "
				      "cached its Ceilings there for later Runs", nm.v[i].node);
	if (nm.n) {
		s->out.nodes = node_machines__to_json(&nm);
		rc = s->out.nodes ? degrade_borrowed(s, &nm) : -ENOMEM;
		if (rc < 0)
			err_oom(e);
	}
	node_machines__release(&nm);
	return rc;
}
