// SPDX-License-Identifier: BSD-3-Clause
#include "report/payload.h"
#include "report/derived_json.h"
#include "report/flame.h"
#include "report/payload_stacks.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/rank_placement.h"
#include "analysis/imbalance.h"
#include "attrib/views.h"
#include "report/attrib_json.h"
#include "common/alloc.h"
#include "common/err.h"
#include "launch/split.h"
#include "model/model.h"
#include "report/netceil_view.h"
#include "report/nodes_view.h"
#include "report/ranks_view.h"
#include "report/regions_view.h"
#include "report/time_view.h"
#include "report/unresolved_view.h"
#include "report/openmp_view.h"
#include "analysis/openmp.h"
#include "analysis/time_budget.h"

#define R_NO_SOURCE "source text withheld by --no-source"

/* {value, unit, quality, reason}: the shape of every number in the payload. */
static json_t *number(double v, const char *unit, enum quality q, const char *reason)
{
	return quality__json(v, unit, q, reason);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *extracts_json(const struct pivot *p, int64_t h, bool no_source)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->nr_extracts; i++) {
		const struct extract *x = &p->extracts[i];
		if (x->hotspot != h)
			continue;
		json_array_append_new(
			arr, json_pack("{s:o, s:o, s:i, s:i, s:o, s:b, s:o}", "file",
				       str_or_null(x->file), "resolved_path",
				       str_or_null(x->resolved_path), "start_line", x->start_line,
				       "end_line", x->end_line, "text",
				       no_source ? json_null() : str_or_null(x->text), "truncated",
				       x->truncated, "reason",
				       str_or_null(no_source ? R_NO_SOURCE : x->reason)));
	}
	return arr;
}

/* {file, line, share} of the Hotspot's hottest line: attrib_hottest_line(), the
 * one the terminal summary names, or null without line-level detail. */
static json_t *hottest_json(const struct pivot *p, int64_t hotspot, const char *time_base)
{
	struct attrib_share sh;
	if (attrib_hottest_line(p, hotspot, time_base, &sh) != 0)
		return json_null();
	return json_pack("{s:o, s:o, s:o}", "file", str_or_null(sh.file), "line",
			 sh.line > 0 ? json_integer(sh.line) : json_null(), "share",
			 attrib_share_json(sh.share));
}

static json_t *hotspot_json(const struct pivot *p, const struct stack_index *si, const struct analysis *a,
			    const struct diagnostic *g, bool no_source)
{
	const struct hotspot *h = &p->hotspots[g->hotspot];
	char *name = hotspot__display_name(h);
	json_t *o = json_pack(
		"{s:s?, s:s?, s:o, s:s, s:o, s:o, s:o, s:I}", "name", name, "module", h->module,
		"source_file", str_or_null(h->source_file), "resolution_level",
		resolution__name(h->level), "classification", str_or_null(g->classification),
		"classification_reason", str_or_null(g->classification_reason),
		"relative_error",
		number(g->relative_error, "ratio", QUALITY_ESTIMATED,
		       "statistical: 1/sqrt(n) over the Hotspot's time-base samples"),
		"samples", (json_int_t)g->samples);
	xfree(name);
	if (!o)
		return NULL;
	json_object_set_new(o, "offset", h->has_offset ? json_integer((json_int_t)h->offset)
						       : json_null());
	json_object_set_new(o, "build_id", str_or_null(h->build_id));
	json_object_set_new(o, "share", derived_json(&g->share));
	json_object_set_new(o, "achieved", derived_json(&g->achieved));
	json_object_set_new(o, "attainable", derived_json(&g->attainable));
	json_object_set_new(o, "envelope_fraction", derived_json(&g->envelope_fraction));
	json_object_set_new(o, "dram_intensity", derived_json(&g->dram_intensity));
	json_object_set_new(o, "imbalance", derived_json(&g->imbalance));
	json_object_set_new(o, "source", extracts_json(p, g->hotspot, no_source));
	/* attrib: lines and ventilation by innermost inline frame, the same
	 * attrib_lines() the summary's hottest line comes from (docs/attribution.md) */
	json_t *views = attrib_hotspot_json(p, g->hotspot, a->time_base);
	json_t *lines = views ? json_object_get(views, "lines") : NULL;
	json_t *inl = views ? json_object_get(views, "inline_frames") : NULL;
	json_object_set_new(o, "lines", lines ? json_incref(lines) : json_array());
	json_object_set_new(o, "hottest_line", hottest_json(p, g->hotspot, a->time_base));
	json_object_set_new(o, "inline_frames", inl ? json_incref(inl) : json_array());
	json_decref(views);
	json_t *callers = NULL, *inclusive = NULL;
	payload_stack_views(p, si, a->time_base, g->hotspot, &callers, &inclusive);
	json_object_set_new(o, "callers", callers ? callers : json_array());
	json_object_set_new(o, "inclusive", inclusive ? inclusive : json_null());
	json_object_set_new(o, "loop", json_null());
	json_t *rg = regions_hotspot_json(p, g->hotspot, a->time_base);
	json_object_set_new(o, "regions", rg ? rg : json_array());
	return o;
}

/* Per-rank placement of a top Hotspot: one row per rank that sampled it;
 * an empty array outside MPI or beyond the top RANK_PLACEMENT_TOP. */
static json_t *ranks_json(const struct rank_placement *rp, int64_t hotspot)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && rp && i < rp->nr_ranks; i++) {
		const struct diagnostic *d = rank_placement__get(rp, i, hotspot);
		if (!d)
			continue;
		const struct node_machine *n = rp->node ? rp->node[i] : NULL;
		json_t *row = json_pack(
			"{s:i, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "rank", rp->ranks[i],
			"node", n ? json_string(n->node) : json_null(), "ceilings",
			n ? nodes_view_ceilings_json(n) : json_null(),
			"samples", (json_int_t)d->samples, "share", derived_json(&d->share),
			"dram_intensity", derived_json(&d->dram_intensity), "achieved",
			derived_json(&d->achieved), "attainable", derived_json(&d->attainable),
			"envelope_fraction", derived_json(&d->envelope_fraction), "classification",
			str_or_null(d->classification), "classification_reason",
			str_or_null(d->classification_reason));
		json_array_append_new(arr, row);
	}
	return arr;
}

static void trunk(json_t *out, const json_t *manifest)
{
	static const char *const keys[] = {"run", "machine", "provenance", "passes",
					   "degradations"};
	for (size_t i = 0; i < 5; i++) {
		json_t *v = manifest ? json_object_get(manifest, keys[i]) : NULL;
		json_object_set_new(out, keys[i], v ? json_deep_copy(v)
						    : (i >= 3 ? json_array() : json_null()));
	}
}

/* run.app: the application's command, the launcher split off (`lmp -in
 * in.lj` out of `mpirun -n 2 lmp -in in.lj`), so the page's header names the
 * target even when the Run takes the git repository's name; null when the
 * command holds no application the launcher tables can find. */
static void run_app(json_t *out)
{
	json_t *run = json_object_get(out, "run");
	json_t *cmd = run ? json_object_get(run, "command") : NULL;
	if (!json_is_object(run))
		return;
	size_t n = json_array_size(cmd);
	char **argv = n ? xcalloc(n + 1, sizeof(char *)) : NULL;
	for (size_t i = 0; argv && i < n; i++)
		argv[i] = (char *)json_string_value(json_array_get(cmd, i));
	struct launch_plan plan;
	struct err e = {0};
	json_t *app = json_null();
	bool ok = argv;
	for (size_t i = 0; ok && i < n; i++)
		ok = argv[i] != NULL;
	if (ok && launch_split_with(argv, NULL, NULL, &plan, &e) == 0 && plan.nr_app) {
		app = json_array();
		for (size_t i = 0; i < plan.nr_app; i++)
			json_array_append_new(app, json_string(plan.app[i]));
	}
	json_object_set_new(run, "app", app);
	xfree(argv);
}

/* time_budget and offcpu_hotspots (report/time_view.h): where the wall time
 * went; the launch's duration stands in for the wall time without switches. */
static void time_json(json_t *out, const json_t *manifest, const struct pivot *p)
{
	json_t *passes = manifest ? json_object_get(manifest, "passes") : NULL;
	json_t *p0 = json_array_get(passes, 0);
	json_t *d = json_object_get(p0, "duration_s"), *cu = json_object_get(p0, "cpu_user_s"),
	       *cs = json_object_get(p0, "cpu_sys_s");
	struct launch_time lt = {
		.wall_s = json_is_number(d) ? json_number_value(d) : NAN,
		.cpu_s = json_is_number(cu) && json_is_number(cs)
				 ? json_number_value(cu) + json_number_value(cs) : -1,
		.cpu_includes_collector = json_is_true(json_object_get(p0, "cpu_includes_collector"))};
	struct time_budget tb;
	bool ok = time_budget_build(p, &tb) == 0;
	json_t *t = ok ? time_view_payload(&tb, p, &lt) : NULL;
	json_t *h = ok ? time_view_offcpu_payload(&tb) : NULL;
	json_object_set_new(out, "time_budget", t ? t : json_null());
	json_object_set_new(out, "offcpu_hotspots", h ? h : json_array());
	time_budget__release(&tb);
}

json_t *payload_build(const json_t *manifest, const struct pivot *p, const struct analysis *a,
		      const struct rank_imbalance *ranks, bool no_source)
{
	json_t *out = json_pack("{s:s, s:i}", "name", PAYLOAD_NAME, "schema", PAYLOAD_SCHEMA);
	if (!out)
		return NULL;
	trunk(out, manifest);
	/* --multi-pass: witness totals and spread, a DRAM bound (additive). */
	json_t *mp = manifest ? json_object_get(manifest, "multi_pass") : NULL;
	if (mp)
		json_object_set_new(out, "multi_pass", json_deep_copy(mp));
	run_app(out);
	const char *tb_reason = a->time_base ? NULL : "no time-base counter in this Run";
	enum quality tbq = a->time_base ? QUALITY_MEASURED : QUALITY_UNAVAILABLE;
	json_object_set_new(
		out, "coverage",
		json_pack("{s:o, s:o, s:o, s:o, s:o}", "time_base", str_or_null(a->time_base),
			  "samples", number((double)a->samples, "sample", tbq, tb_reason),
			  "seconds",
			  number(a->seconds, "s", isnan(a->seconds) ? QUALITY_UNAVAILABLE : tbq,
				 tb_reason ? tb_reason : "the time base is not a clock"),
			  "loci", number((double)a->nr_loci, "locus", QUALITY_MEASURED, NULL),
			  /* MPI runtime helper threads (analysis/threads.h): counted apart */
			  "helper_threads",
			  number((double)a->nr_helper_loci, "thread", QUALITY_MEASURED, NULL)));
	json_object_set_new(out, "floor_samples", json_integer(a->floor_samples));
	json_t *hs = json_array();
	struct stack_index si;
	bool have_si = stack_index__build(&si, p) == 0;
	struct node_machines nodes;
	nodes_view_load(manifest, &nodes);
	struct rank_placement rp;
	bool have_rp = rank_placement_run(p, a, &nodes, &rp) == 0;
	for (size_t i = 0; have_si && i < a->nr_diags; i++) {
		json_t *h = hotspot_json(p, &si, a, &a->diags[i], no_source);
		if (h)
			json_object_set_new(h, "ranks", ranks_json(have_rp && i < RANK_PLACEMENT_TOP
									  ? &rp : NULL,
								  a->diags[i].hotspot));
		json_array_append_new(hs, h);
	}
	if (have_rp)
		rank_placement__release(&rp);
	if (have_si)
		stack_index__release(&si);
	json_object_set_new(out, "hotspots", hs);
	json_object_set_new(
		out, "others",
		json_pack("{s:I, s:o}", "count", (json_int_t)a->others_count, "share",
			  number(a->others_share, "ratio", tbq, tb_reason)));
	json_object_set_new(out, "unresolved",
			    json_pack("{s:I, s:o, s:o}", "count", (json_int_t)a->nr_unresolved, "share",
				      number(a->unresolved_share, "ratio", tbq, tb_reason),
				      "modules",
				      unresolved_modules_json(p, a->time_base, a->time_value)));
	json_t *rk = ranks ? ranks_view_payload(ranks) : NULL;
	if (rk)
		nodes_view_augment(rk, &nodes);
	json_object_set_new(out, "roofline", nodes_view_roofline_json(&nodes)); /* NULL: absent */
	node_machines__release(&nodes);
	json_object_set_new(out, "ranks", rk ? rk : json_null());
	/* the network Ceilings' Quality and where they came from (null: none) */
	json_object_set_new(out, "network_ceilings", netceil_view_payload(manifest));
	json_t *rg = regions_json(p, a);
	json_object_set_new(out, "regions", rg ? rg : json_array());
	struct flame fl;
	json_t *fj = flame_build(&fl, p) == 0 ? flame_payload(&fl) : NULL;
	flame_release(&fl);
	json_object_set_new(out, "flame", fj ? fj : json_null());
	time_json(out, manifest, p);
	struct omp_view ov;
	json_t *omp = omp_view_build(p, a->time_base, &ov) == 0 ? openmp_view_payload(&ov, p) : NULL;
	omp_view__release(&ov);
	json_object_set_new(out, "openmp", omp ? omp : json_null());
	json_t *iv = attrib_inline_view_json(p, a->time_base); /* attrib: transverse view */
	json_object_set_new(out, "inline_view", iv ? iv : json_array());
	return out;
}
