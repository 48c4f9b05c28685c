// SPDX-License-Identifier: BSD-3-Clause
/* --multi-pass (collect/passes.h): the passes, then their consistency. */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "collect/passes.h"
#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"

/* Why multi-pass cannot run here, or NULL. */
static const char *unavailable(const struct run_state *s)
{
	if (s->collect.collector != COLLECTOR_USE_PERF)
		return "--multi-pass needs perf sampling, which is unavailable here: one pass";
	if (!s->collect.plan)
		return "--multi-pass needs the counter groups of a known microarchitecture (Zen "
		       "2/3/4); this CPU has none: one pass, time only";
	return NULL;
}

static void announce(struct run_state *s)
{
	char labels[80] = "";
	for (int i = 0; i < s->collect.plan->nr; i++) {
		size_t l = strlen(labels);
		snprintf(labels + l, sizeof(labels) - l, "%s%s", i ? ", " : "", s->collect.plan->labels[i]);
	}
	console__info(s->con, "multi-pass: %d passes (%s), witness replicated in each",
		      s->collect.plan->nr, labels);
}

int collect_passes(struct run_state *s, struct err *e)
{
	struct pass_plan plan;
	if (passes_plan(s->collect.group, &plan) == 0) {
		s->collect.plan = xmalloc(sizeof(*s->collect.plan));
		if (!s->collect.plan)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		*s->collect.plan = plan;
		for (int k = 0; k < plan.nr; k++) /* the groups point into the plan itself */
			s->collect.plan->groups[k].events = s->collect.plan->events[k];
	}
	const char *why = unavailable(s);
	if (why) {
		run_state__degrade(s, DEG_MULTI_PASS_UNAVAILABLE, why,
				   DEG_MULTI_PASS_UNAVAILABLE_REMEDY);
		return 1;
	}
	announce(s);
	s->collect.coll = collector_passes__new(s->collect.plan, &s->collect.caps.perf, s->collect.stacks, s->collect.offcpu);
	return s->collect.coll ? 0 : err_set(e, -ENOMEM, ERR_OOM, "out of memory");
}

void passes_take(struct run_state *s)
{
	int n = collector_passes__nr(s->collect.coll);
	for (int i = 0; i < n; i++) {
		const struct pass_outcome *o = collector_passes__outcome(s->collect.coll, i);
		struct run_pass *rp = &s->collect.passes[s->collect.nr_passes++];
		*rp = (struct run_pass){.index = i, .skipped = o->skipped, .exit_code = -1};
		if (o->skipped)
			continue;
		rp->counters = o->counters;
		memcpy(rp->start, o->pass.start, sizeof(rp->start));
		memcpy(rp->end, o->pass.end, sizeof(rp->end));
		rp->duration_s = o->pass.duration_s;
		rp->sampled = o->pass.sampled;
		rp->script_ok = o->pass.script_ok;
		run_pass__take(rp, &o->res);
		s->collect.group = o->group; /* what the ladder kept, as of the last pass */
		s->collect.stacks = o->stacks;
	}
	s->exit_code = s->collect.passes[0].exit_code;
}

/* Per-pass totals of the witness counter (all Hotspots and Loci). */
static int witness_totals(const struct run_state *s, double *totals, bool *seen)
{
	for (int i = 0; i < s->collect.nr_passes; i++)
		totals[i] = 0, seen[i] = false;
	for (size_t k = 0; k < s->pivot.nr_measurements; k++) {
		const struct measurement *m = &s->pivot.measurements[k];
		if (m->hotspot < 0 || m->pass_index < 0 || m->pass_index >= s->collect.nr_passes ||
		    strcmp(m->counter, s->collect.plan->witness) != 0)
			continue;
		totals[m->pass_index] += m->value;
		seen[m->pass_index] = true;
	}
	int n = 0;
	for (int i = 0; i < s->collect.nr_passes; i++)
		n += seen[i];
	return n;
}

/* The Hotspot with the most time-base value (pass 0), or -1. */
static int64_t top_hotspot(const struct pivot *p, const char *counter, double *flops)
{
	int64_t best = -1;
	double bv = 0;
	for (size_t k = 0; k < p->nr_measurements; k++) {
		const struct measurement *m = &p->measurements[k];
		if (m->hotspot >= 0 && m->pass_index == 0 && !strcmp(m->counter, "task-clock") &&
		    m->value > bv) {
			bv = m->value;
			best = m->hotspot;
		}
	}
	*flops = 0;
	for (size_t k = 0; best >= 0 && k < p->nr_measurements; k++) {
		const struct measurement *m = &p->measurements[k];
		if (m->hotspot == best && m->pass_index == 0 && !strcmp(m->counter, counter))
			*flops += m->value;
	}
	return best;
}

/*
 * A pass that sampled the DRAM fills (its group accepted) and recorded no
 * sample at all moved fewer fills than one period: the bytes are below
 * period x 64, so the top Hotspot's DRAM intensity is above its FLOPs of
 * pass 0 over that bound. Unavailable as a value (never a zero), said as a
 * bound, estimated (demand fills only).
 */
static json_t *dram_bound(struct run_state *s)
{
	for (int k = 0; k < s->collect.nr_passes; k++) {
		const struct counter_group *g = &s->collect.plan->groups[k];
		long period = 0;
		for (int i = 0; i < g->nr_events; i++)
			if (!strcmp(g->events[i].canonical, "dram_bytes"))
				period = g->events[i].period;
		if (!period || !s->collect.passes[k].sampled || !s->collect.passes[k].counters)
			continue;
		for (size_t i = 0; i < s->pivot.nr_measurements; i++)
			if (s->pivot.measurements[i].pass_index == k &&
			    !strcmp(s->pivot.measurements[i].counter, "dram_bytes"))
				return NULL; /* sampled: analysis has the value */
		double flops = 0, below = (double)period * 64;
		int64_t h = top_hotspot(&s->pivot, s->collect.plan->witness, &flops);
		char *name = h >= 0 ? hotspot__display_name(&s->pivot.hotspots[h]) : NULL;
		console__info(s->con, "multi-pass: pass %d sampled the DRAM fills and recorded none: "
				      "under %.3g MB of demand fills; %s's DRAM intensity is above %.3g "
				      "flop/byte (estimated: demand fills only)", k, below / 1e6,
			      name ? name : "?", flops / below);
		json_t *j = json_pack("{s:i, s:I, s:f, s:s?, s:{s:f, s:s, s:s, s:s, s:s}}", "pass", k,
				      "period", (json_int_t)period, "dram_bytes_below", below,
				      "hotspot", name, "dram_intensity_above", "value", flops / below,
				      "unit", "flop/byte", "quality", "estimated", "reason",
				      "demand fills only: hardware-prefetched traffic is not counted; "
				      "no fill sample in the pass: fewer than one period of fills",
				      "formula", "flops (pass 0) / (period x 64 bytes)");
		xfree(name);
		return j;
	}
	return NULL;
}

/* A module whose build-id differs between passes was rebuilt in between:
 * its Hotspots are different code, never fused (an invalidity). */
static void recompiled(struct run_state *s)
{
	for (size_t i = 0; i < s->pivot.nr_hotspots; i++) {
		const struct hotspot *a = &s->pivot.hotspots[i];
		for (size_t j = i + 1; a->build_id && j < s->pivot.nr_hotspots; j++) {
			const struct hotspot *b = &s->pivot.hotspots[j];
			if (!b->build_id || strcmp(a->module, b->module) != 0 ||
			    strcmp(a->build_id, b->build_id) == 0)
				continue;
			char msg[600];
			snprintf(msg, sizeof(msg),
				 "%.300s changed between passes (build-id %.16s..., then %.16s...): "
				 "its Hotspots of different passes are different code and are "
				 "never fused",
				 a->module, a->build_id, b->build_id);
			run_state__degrade(s, DEG_MODULE_RECOMPILED_BETWEEN_PASSES, msg,
					   DEG_MODULE_RECOMPILED_BETWEEN_PASSES_REMEDY);
			return;
		}
	}
}

static int passes_check(struct run_state *s)
{
	int ran = 0;
	while (ran < s->collect.nr_passes && !s->collect.passes[ran].skipped)
		ran++;
	if (!s->collect.plan || ran < 2) {
		if (s->collect.plan && s->collect.nr_passes > 1)
			console__info(s->con, "multi-pass: one pass ran: no witness spread");
		return 0;
	}
	int nr_passes = s->collect.nr_passes;
	s->collect.nr_passes = ran; /* the witness over the passes that ran */
	double totals[PASSES_MAX];
	bool seen[PASSES_MAX];
	int n = witness_totals(s, totals, seen);
	double vals[PASSES_MAX];
	int nv = 0;
	for (int i = 0; i < s->collect.nr_passes; i++)
		if (seen[i])
			vals[nv++] = totals[i];
	double spread = nv == s->collect.nr_passes ? passes_spread(vals, nv) : -1;
	double threshold = s->cfg ? s->cfg->passes_witness : 0.05;
	json_t *tot = json_array();
	for (int i = 0; i < s->collect.nr_passes; i++)
		json_array_append_new(tot, seen[i] ? json_real(totals[i]) : json_null());
	const char *reason = spread >= 0 ? NULL
			     : n < s->collect.nr_passes ? "the witness was not counted in every pass"
						: "the witness counted nothing";
	s->collect.multi_pass_json = json_pack(
		"{s:s, s:s, s:o, s:{s:o, s:s, s:s, s:o, s:s}, s:f}", "witness", s->collect.plan->witness,
		"witness_event", s->collect.plan->witness_event, "witness_totals", tot, "witness_spread",
		"value", spread >= 0 ? json_real(spread) : json_null(), "unit", "ratio", "quality",
		spread >= 0 ? "measured" : "unavailable", "reason",
		reason ? json_string(reason) : json_null(), "formula", "(max - min) / mean",
		"threshold", threshold);
	if (spread >= 0)
		console__info(s->con, "multi-pass: witness %s spread %.2f%% over %d passes "
				      "(threshold %.0f%%)", s->collect.plan->witness, 100 * spread,
			      s->collect.nr_passes, 100 * threshold);
	else
		console__info(s->con, "multi-pass: witness spread unavailable: %s", reason);
	if (spread > threshold) {
		char msg[200];
		snprintf(msg, sizeof(msg),
			 "the witness (%s) differs by %.1f%% between passes, above %.0f%%: the "
			 "passes did not run the same work; ratios across passes are doubtful",
			 s->collect.plan->witness, 100 * spread, 100 * threshold);
		run_state__degrade(s, DEG_PASSES_INCONSISTENT, msg,
				   DEG_PASSES_INCONSISTENT_REMEDY);
	}
	json_t *bound = s->collect.multi_pass_json ? dram_bound(s) : NULL;
	if (bound)
		json_object_set_new(s->collect.multi_pass_json, "dram_bound", bound);
	recompiled(s);
	s->collect.nr_passes = nr_passes;
	return s->collect.multi_pass_json ? 0 : -ENOMEM;
}

int stage_passes(struct run_state *s, struct err *e)
{
	return passes_check(s) < 0 ? err_set(e, -ENOMEM, ERR_OOM, "out of memory") : 0;
}
