// SPDX-License-Identifier: BSD-3-Clause
/* The manifest's "cost" (issue 27): where nunatak's own time went in this
 * Run, part by part, each a Value with its Quality:
 *   setup                before the application starts (configuration,
 *                        Machine, doctor, tool lookup, the MPI probes' build),
 *                        without the two parts below; measured
 *   calibration          calibrating the Machine (0: its cached profile
 *                        answered); measured
 *   network_probe        the ping-pong before an MPI application (0: not an
 *                        MPI Run, or the network Ceilings came from the
 *                        cache); measured
 *   collection_overhead  what sampling took from the application: samples x
 *                        the cost per sample the calibration measured
 *                        (run_output.c); estimated, or unavailable
 *   application          the application under the collector, perf's own
 *                        start and teardown included (not nunatak's cost;
 *                        the reference the other parts compare with)
 *   application_parts    MPI only, when the ranks said when they ran (rank.json
 *                        "clock", common/host_clock.h): the application split
 *                        into until_first_rank (the launcher until the first
 *                        rank's shim started: allocation, the scheduler's
 *                        queue, the daemons), ranks (first rank's start to
 *                        the last rank's end, perf's start and end in each
 *                        rank included) and after_last_rank (the launcher's
 *                        teardown); measured when every rank ran under this
 *                        kernel, else estimated (wall clocks compared)
 *   finish               from the application's end to the manifest
 *                        (perf script, ingestion, attribution, store,
 *                        report); measured
 * Wall times on the monotonic clock; a replay measured none of them.
 * network_ceilings says measured / cached / none, and network_ceilings_from
 * where they came from: how, the nodes the ping-pong ran on, when, and the
 * summary's sentence (run/ranks_netceil.c). */
#include "run/stages.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"
#include "common/console.h"
#include "run/ranks_mpi.h"
#include "model/model.h"
#include "store/manifest.h"

static json_t *part(const struct run_state *s, double v, const char *why)
{
	if (s->replay)
		return quality__json(NAN, "s", QUALITY_UNAVAILABLE,
				     "a replay measures no time of the recorded Run");
	return quality__json(v > 0 ? v : 0, "s", QUALITY_MEASURED, why);
}

static json_t *parts(const struct run_state *s, double launch, double stop)
{
	const struct collect_counts *n = &s->counts;
	if (!s->launch.mpi || n->nr_clocked <= 0 || s->replay)
		return NULL;
	char why[200] = "";
	if (n->clock_by_wall)
		snprintf(why, sizeof(why), "ranks on other nodes: their wall clocks compared with "
			 "this node's, as good as the nodes' clock agreement");
	if (n->nr_ranks > n->nr_clocked)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sonly %d of %d ranks said when they ran", why[0] ? "; " : "",
			 n->nr_clocked, n->nr_ranks);
	enum quality q = why[0] ? QUALITY_ESTIMATED : QUALITY_MEASURED;
	json_t *o = json_object();
	double v[3] = {n->ranks_started - launch, n->ranks_ended - n->ranks_started,
		       stop - n->ranks_ended};
	const char *names[3] = {"until_first_rank", "ranks", "after_last_rank"};
	for (int i = 0; o && i < 3; i++)
		json_object_set_new(o, names[i], quality__json(v[i] > 0 ? v[i] : 0, "s", q,
							       why[0] ? why : NULL));
	console__debug(s->con, 1, "application %.3f s: until the first rank %.3f s, the ranks "
		       "%.3f s, after the last rank %.3f s (%s%s%s)", stop - launch, v[0], v[1], v[2],
		       quality__name(q), why[0] ? ": " : "", why);
	return o;
}

void run_cost(struct run_state *s, double now)
{
	struct manifest *m = &s->out.manifest;
	if (!s->rundir.dir || !s->out.have_manifest || !s->launched)
		return;
	double cal = s->cost.calibrate_s > 0 ? s->cost.calibrate_s : 0;
	double net = s->cost.netprobe_s > 0 && !s->cost.netprobe_cached ? s->cost.netprobe_s : 0;
	json_t *c = json_object();
	if (!c)
		return;
	double launch = s->cost.app_launch > 0 ? s->cost.app_launch : s->cost.launch;
	double stop = s->cost.app_stop > 0 ? s->cost.app_stop : s->cost.app_end;
	json_object_set_new(c, "setup", part(s, launch - s->cost.start - cal - net, NULL));
	json_object_set_new(c, "calibration", part(s, cal, NULL));
	json_object_set_new(c, "network_probe", part(s, net, NULL));
	json_object_set_new(c, "network_ceilings",
			    json_string(!s->launch.mpi ? "none" : s->cost.netprobe_cached ? "cached"
							 : s->cost.netprobe_s >= 0 ? "measured"
									      : "none"));
	json_t *from = run_netceil_json(s); /* where they came from, which nodes, when */
	if (from)
		json_object_set_new(c, "network_ceilings_from", from);
	const json_t *o = s->out.overhead;
	json_t *ov = o ? json_pack("{s:O, s:s, s:O, s:O}", "value", json_object_get(o, "value"),
				   "unit", "s", "quality", json_object_get(o, "quality"), "reason",
				   json_object_get(o, "reason"))
		       : quality__json(NAN, "s", QUALITY_UNAVAILABLE,
				       run_sampled(s) ? "no sample was ingested"
						       : "nothing was sampled in this Run");
	json_object_set_new(c, "collection_overhead", ov);
	json_object_set_new(c, "application", part(s, stop - launch, NULL));
	json_t *ap = parts(s, launch, stop);
	if (ap)
		json_object_set_new(c, "application_parts", ap);
	json_object_set_new(c, "finish", part(s, now - stop, NULL));
	json_decref(m->cost);
	m->cost = c;
}
