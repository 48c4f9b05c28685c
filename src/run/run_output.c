// SPDX-License-Identifier: BSD-3-Clause
/* The end of `nunatak run`: counts, overhead, the terminal summary, every
 * degradation again (the first announcements have scrolled away in a job
 * log), the --json document, and "Run: <dir>". */
#include "run/stages.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "run/pipeline.h"
#include "run/ranks_mpi.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/signame.h"
#include "collect/stacks.h"
#include "machine/sample_cost.h"
#include "model/node_machines.h"
#include "model/machine.h"
#include "report/summary.h"

static size_t nr_resolved(const struct pivot *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nr_hotspots; i++)
		n += p->hotspots[i].level != RESOLUTION_UNRESOLVED;
	return n;
}

/* The Machine's cost per sample for this Run's collector and call-stack
 * mode (machine/sample_cost.h), *exact false when the closest measured one
 * stands in (fp for a Run without stacks or with LBR: an upper bound, the
 * stack walk being the most of what differs). The preload sampler takes no
 * stacks: its own cost. NULL: none in the profile. */
static const struct ceiling *sample_cost(const struct run_state *s, bool *exact)
{
	*exact = true;
	if (!s->machine)
		return NULL;
	if (s->collect.collector == COLLECTOR_USE_PRELOAD)
		return machine__cost(s->machine, COST_PRELOAD);
	if (s->collect.stacks == STACKS_DWARF)
		return machine__cost(s->machine, COST_PERF_DWARF);
	*exact = s->collect.stacks == STACKS_FP;
	return machine__cost(s->machine, COST_PERF_FP);
}

static json_t *unmeasured(const struct run_state *s, const char *coll, const char *why)
{
	return json_pack("{s:n, s:s, s:s, s:s, s:I, s:n, s:s, s:s, s:s, s:s}", "value", "unit", "s",
			 "quality", "unavailable", "reason", why, "samples",
			 (json_int_t)s->counts.nr_samples, "cost_per_sample_s", "cost_quality",
			 "unavailable", "formula", "samples x cost_per_sample_s", "collector", coll,
			 "stacks", stacks_mode__name(s->collect.stacks));
}

bool run_sampled(const struct run_state *s)
{
	/* an MPI Run's ranks sample themselves: nothing samples around them */
	return s->launch.mpi ? s->counts.nr_sampled_ranks > 0 : s->collect.passes[0].sampled;
}

/* Under perf, a context switch of a recorded thread costs the kernel more
 * than a bare one: the sampling timer of each task's event is cancelled
 * and started again (on a VM an exit each, ~8 us per switch measured here
 * by bench/mpi/switch_cost.sh), and --switch-events writes its records.
 * The calibration's cost per sample leaves that out. Where the switches
 * outnumber the samples (MPI ranks that yield while they wait), that part
 * may be as large as the figure or larger: the reason says it is not in it,
 * with the count. "" when it does not apply. */
static const char *switches_left_out(const struct run_state *s, bool figure, char *buf,
				     size_t len)
{
	if (s->collect.collector == COLLECTOR_USE_PRELOAD ||
	    s->counts.nr_switches <= s->counts.nr_samples)
		return "";
	snprintf(buf, len, "; not counted: the %lld context switches perf recorded (more than "
		 "its samples), each costing the kernel more under perf (the sampling timer "
		 "re-armed, the switch records), which the calibration does not measure%s",
		 (long long)s->counts.nr_switches, figure ? ": the overhead is larger than this" : "");
	return buf;
}

static void add_switches(const struct run_state *s, json_t *o)
{
	if (o && s->counts.nr_switches > 0)
		json_object_set_new(o, "context_switches", json_integer(s->counts.nr_switches));
}

/* samples x the cost per sample measured on this Machine with the
 * calibration: always an estimate of the overhead, since the run without
 * sampling never happened (the application runs once). Without a measured
 * cost there is no overhead figure: a default cost from another machine
 * would be an invented number (issue 24 item 8). */
void run_overhead(struct run_state *s)
{
	char swbuf[320];
	if (!run_sampled(s) || s->counts.nr_samples <= 0 || s->out.overhead)
		return;
	bool exact, pre = s->collect.collector == COLLECTOR_USE_PRELOAD;
	const char *coll = pre ? "preload" : "perf";
	const struct ceiling *c = sample_cost(s, &exact);
	bool figure = c && c->quality != QUALITY_UNAVAILABLE && c->value > 0;
	const char *sw = switches_left_out(s, figure, swbuf, sizeof(swbuf));
	if (!figure) {
		char *why = !c ? xasprintf("no cost per sample in this Machine's profile (`nunatak "
					   "calibrate --force` measures it with the Ceilings)%s", sw)
				 : xasprintf("the calibration could not measure the cost per sample: "
					     "%s%s", c->reason ? c->reason : "?", sw);
		s->out.overhead = why ? unmeasured(s, coll, why) : NULL;
		add_switches(s, s->out.overhead);
		xfree(why);
		return;
	}
	enum quality q = exact ? c->quality : QUALITY_ESTIMATED;
	char *what = pre ? xstrdup("of the preload sampler (a SIGPROF and its handler)")
			 : xasprintf("with %s stacks",
				     exact ? stacks_mode__name(s->collect.stacks) : "fp");
	char *why = !what ? NULL
		    : xasprintf("the cost of one sample %s, measured on this Machine by "
			      "the calibration%s%s%s%s%s", what,
			      s->launch.mpi ? "; samples of every sampled rank, so CPU time summed over "
				       "those ranks"
				     : "",
			      exact ? "" : s->collect.stacks == STACKS_NONE ? "; this Run took no stacks: an "
								      "upper bound"
								    : "; this Run's stacks are LBR",
			      c->reason ? "; " : "", c->reason ? c->reason : "", sw);
	s->out.overhead = json_pack("{s:f, s:s, s:s, s:s?, s:I, s:f, s:s, s:s, s:s, s:s}", "value",
				(double)s->counts.nr_samples * c->value, "unit", "s", "quality",
				"estimated", "reason", why, "samples", (json_int_t)s->counts.nr_samples,
				"cost_per_sample_s", c->value, "cost_quality", quality__name(q),
				"formula", "samples x cost_per_sample_s", "collector", coll,
				"stacks", stacks_mode__name(s->collect.stacks));
	add_switches(s, s->out.overhead);
	xfree(why);
	xfree(what);
}

static void overhead(struct run_state *s)
{
	run_overhead(s);
	json_t *o = s->out.overhead;
	if (!o)
		return;
	if (!json_is_number(json_object_get(o, "value"))) {
		console__info(s->con, "overhead: unmeasured (%lld sample%s of %s sampling; %s)",
			      (long long)s->counts.nr_samples, s->counts.nr_samples == 1 ? "" : "s",
			      json_string_value(json_object_get(o, "collector")),
			      json_string_value(json_object_get(o, "reason")));
		return;
	}
	console__info(s->con, "overhead: about %.3g s of %s sampling (estimated: %lld sample%s x "
		      "%.3g us; cost per sample %s: %s)",
		      json_real_value(json_object_get(o, "value")),
		      json_string_value(json_object_get(o, "collector")), (long long)s->counts.nr_samples,
		      s->counts.nr_samples == 1 ? "" : "s",
		      json_real_value(json_object_get(o, "cost_per_sample_s")) * 1e6,
		      json_string_value(json_object_get(o, "cost_quality")),
		      json_string_value(json_object_get(o, "reason")));
}

static void summary(struct run_state *s)
{
	const struct analysis *a = &s->out.analysis;
	const struct run_pass *p = &s->collect.passes[0];
	struct summary_ctx ctx = {.ceilings_reason = NULL,
				  .nr_ranks = s->launch.mpi ? s->counts.nr_ranks : -1,
				  .nr_sampled_ranks = s->counts.nr_sampled_ranks,
				  .app_wall_s = p->duration_s,
				  .app_cpu_s = p->cpu_user_s >= 0 && p->cpu_sys_s >= 0
						   ? p->cpu_user_s + p->cpu_sys_s : -1,
				  .cpu_includes_collector = p->sampled &&
							    s->collect.collector == COLLECTOR_USE_PERF,
				  .nr_degradations = s->degradations.n};
	/* The reason is the Run's own degradation, never a fixed sentence. */
	for (size_t i = 0; !a->have_ceilings && i < s->degradations.n; i++)
		if (!strcmp(s->degradations.v[i].name, DEG_CEILINGS_UNAVAILABLE))
			ctx.ceilings_reason = s->degradations.v[i].message;
	/* the rank view (stage_analyse) is the summary's under MPI only */
	ctx.ranks = s->launch.mpi && s->out.have_ranks ? &s->out.ranks : NULL;
	struct node_machines nodes;
	memset(&nodes, 0, sizeof(nodes));
	struct err ne = {0};
	if (s->out.nodes && node_machines__from_json(&nodes, s->out.nodes, &ne) == 0)
		ctx.nodes = &nodes;
	/* where the network Ceilings came from, as the manifest's cost says it */
	json_t *doc = json_object();
	run_netceil_into(s, doc);
	ctx.machine = s->machine;
	ctx.cost = json_object_get(doc, "cost");
	struct text_lines lines = {0};
	summary_render(a, &s->pivot, &ctx, &lines);
	json_decref(doc);
	node_machines__release(&nodes);
	for (size_t i = 0; i < lines.n; i++)
		console__info(s->con, "%s", lines.v[i]);
	text_lines__release(&lines);
}

void run_announce_outcome(struct run_state *s)
{
	char a[16], b[16];
	const struct run_pass *p = &s->collect.passes[0];
	if (p->interrupted_by && p->term_signal)
		console__warn(s->con, "interrupted by %s: the application ended by %s (exit %d); "
			      "writing the Run of what was collected until then",
			      sig_name(p->interrupted_by, a, sizeof(a)),
			      sig_name(p->term_signal, b, sizeof(b)), p->exit_code);
	else if (p->interrupted_by)
		console__warn(s->con, "interrupted by %s: the application exited with %d; writing "
			      "the Run of what was collected until then",
			      sig_name(p->interrupted_by, a, sizeof(a)), p->exit_code);
	else if (p->term_signal)
		console__warn(s->con, "the application was ended by %s (exit %d); writing the Run "
			      "of what was collected", sig_name(p->term_signal, a, sizeof(a)),
			      p->exit_code);
}

/* The outcome keys of the --json document (signal, interrupted_by, status). */
static void outcome_json(const struct run_state *s, json_t *doc, const char *status)
{
	char b[16];
	int intr = run_interrupted_by(s);
	if (!doc)
		return;
	if (s->launched && s->collect.passes[0].term_signal)
		json_object_set_new(doc, "signal",
				    json_string(sig_name(s->collect.passes[0].term_signal, b, sizeof(b))));
	if (s->launched && intr)
		json_object_set_new(doc, "interrupted_by", json_string(sig_name(intr, b, sizeof(b))));
	json_object_set_new(doc, "status", json_string(status));
}

json_t *run_json_document(const struct run_state *s, int exit_code, const char *collector,
			  const char *status)
{
	const struct run_result *o = &s->out;
	json_t *doc = json_pack(
		"{s:s?, s:s?, s:i, s:I, s:I, s:I, s:o, s:o}", "run", s->rundir.dir, "name", s->rundir.name,
		"exit_code", exit_code, "measurements", (json_int_t)s->pivot.nr_measurements,
		"hotspots", (json_int_t)s->pivot.nr_hotspots, "resolved_hotspots",
		(json_int_t)nr_resolved(&s->pivot), "report",
		o->report_path ? json_string(o->report_path) : json_null(), "degradations",
		degradations__to_json(&s->degradations));
	if (doc && collector)
		json_object_set_new(doc, "collector", json_string(collector));
	if (status)
		outcome_json(s, doc, status);
	return doc;
}

int run_finish(struct run_state *s, json_t **json_out)
{
	console__info(s->con, "%zu measurement%s across %zu hotspot%s (%zu resolved)",
		      s->pivot.nr_measurements, s->pivot.nr_measurements == 1 ? "" : "s",
		      s->pivot.nr_hotspots, s->pivot.nr_hotspots == 1 ? "" : "s",
		      nr_resolved(&s->pivot));
	overhead(s);
	if (s->out.have_analysis)
		summary(s);
	for (size_t i = 0; i < s->degradations.n; i++)
		console__degraded(s->con, s->degradations.v[i].name, s->degradations.v[i].message,
				  s->degradations.v[i].remedy);
	/* How the application ended, last, beside the Run: a job log's tail
	 * says whether this Run is the whole execution. */
	char sa[16], sb[16];
	int intr = run_interrupted_by(s);
	if (s->launched && intr)
		console__info(s->con, "application: interrupted by %s (exit %d%s%s): the Run holds "
			      "what was collected until then", sig_name(intr, sa, sizeof(sa)),
			      s->collect.passes[0].exit_code, s->collect.passes[0].term_signal ? ", ended by " : "",
			      s->collect.passes[0].term_signal ? sig_name(s->collect.passes[0].term_signal, sb, sizeof(sb)) : "");
	else if (s->launched && s->collect.passes[0].term_signal)
		console__info(s->con, "application: ended by %s (exit %d)",
			      sig_name(s->collect.passes[0].term_signal, sa, sizeof(sa)), s->collect.passes[0].exit_code);
	if (s->rundir.dir)
		console__info(s->con, "Run: %s", s->rundir.dir);
	if (s->out.report_path)
		console__info(s->con, "Report: %s", s->out.report_path);
	if (s->req->json) /* which collector sampled: "perf", "preload" (the stand-in), "none" */
		*json_out = run_json_document(s, s->exit_code,
					      s->collect.passes[0].sampled ? collector_kind__name(s->collect.collector)
							      : "none",
					      s->out.pivot_unwritten ? "incomplete" : "complete");
	return 0;
}
