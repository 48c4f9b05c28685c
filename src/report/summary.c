// SPDX-License-Identifier: BSD-3-Clause
#include "report/netceil_view.h"
#include "report/nodes_view.h"
#include "report/summary.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "analysis/rank_placement.h"
#include "attrib/views.h"
#include "common/alloc.h"
#include "model/model.h"
#include "report/payload_stacks.h"
#include "report/ranks_view.h"
#include "report/regions_view.h"
#include "report/time_view.h"
#include "report/unresolved_view.h"
#include "report/openmp_view.h"
#include "analysis/openmp.h"
#include "analysis/time_budget.h"

/* Below this share, the "others" admission is noise not worth a line. */
#define OTHERS_MENTION_SHARE 0.005

/* "12.3%", or "an unavailable share" for NaN: unavailable is never printed
 * as a number (nor as "nan"). buf holds at least 24 bytes. */
static const char *pct(char *buf, size_t n, double ratio)
{
	if (!isfinite(ratio))
		return "an unavailable share";
	snprintf(buf, n, "%.1f%%", 100.0 * ratio);
	return buf;
}

static void headline(const struct analysis *a, const struct pivot *p, struct text_lines *out)
{
	if (p->nr_hotspots == 0) {
		text_lines__add(out, "summary: no sample was collected: nothing to rank (see the "
				     "degradations below, or a run too short for the sampling "
				     "frequency)");
		return;
	}
	if (!a->time_base) {
		text_lines__add(out, "summary: no time-base counter in this Run: no Hotspot can be "
				     "ranked by time");
		return;
	}
	char secs[64] = "";
	if (!isnan(a->seconds))
		snprintf(secs, sizeof(secs), " over %.3g s of sampled CPU time", a->seconds);
	if (a->nr_diags == 0) {
		text_lines__add(out,
				"summary: no Hotspot above the statistical floor of %d samples "
				"(%lld sample%s of %s%s)",
				a->floor_samples, (long long)a->samples, a->samples == 1 ? "" : "s",
				a->time_base, secs);
		return;
	}
	double held = 0; /* NaN as soon as one share is unavailable: so is the sum */
	for (size_t i = 0; i < a->nr_diags; i++)
		held += a->diags[i].share.value;
	char hb[24];
	text_lines__add(out,
			"summary: %zu Hotspot%s above the statistical floor hold%s %s of the "
			"sampled time (%lld samples of %s%s)",
			a->nr_diags, a->nr_diags == 1 ? "" : "s", a->nr_diags == 1 ? "s" : "",
			pct(hb, sizeof(hb), held), (long long)a->samples, a->time_base, secs);
}

static const char *value_label(const struct derived *d)
{
	if (strcmp(d->name, "envelope_fraction") == 0)
		return "envelope fraction";
	return strcmp(d->name, "dram_intensity") == 0 ? "DRAM intensity" : d->name;
}

/* Says, for the values a finding shows that are estimated, why, one line per
 * reason naming the values it downgrades: a value that is not shown (say, an
 * imbalance below the classification threshold) has no line, so every
 * "downgraded to estimated" names a value beside it. */
static void downgrades(const struct derived *const *shown, size_t n, struct text_lines *out)
{
	bool done[8] = {false};
	for (size_t k = 0; k < n && k < 8; k++) {
		const struct derived *d = shown[k];
		if (done[k] || d->quality != QUALITY_ESTIMATED || !d->reason)
			continue;
		char names[160];
		size_t len = (size_t)snprintf(names, sizeof(names), "%s", value_label(d));
		for (size_t j = k + 1; j < n && j < 8; j++) {
			const struct derived *o = shown[j];
			if (done[j] || o->quality != QUALITY_ESTIMATED || !o->reason ||
			    strcmp(o->reason, d->reason) != 0)
				continue;
			done[j] = true;
			if (len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len, ", %s",
							value_label(o));
		}
		text_lines__add(out, "    %s downgraded to estimated: %s", names, d->reason);
	}
}

/* "rank 3 runs it at half the envelope of the others": the spread of the
 * envelope fraction over ranks, naming the lowest when it lags the median. */
static void rank_line(const struct rank_placement *rp, const struct diagnostic *g,
		      struct text_lines *out)
{
	double lo, hi, med;
	int lo_rank, hi_rank;
	if (!rp || rank_placement__spread(rp, g->hotspot, &lo, &lo_rank, &hi, &hi_rank, &med) < 2)
		return;
	char lag[96] = "";
	if (med > 0 && lo < 0.75 * med)
		snprintf(lag, sizeof(lag), ": rank %d at %.2fx the median", lo_rank, lo / med);
	text_lines__add(out, "    ranks: envelope %.0f%% (rank %d) to %.0f%% (rank %d), median %.0f%%%s",
			100 * lo, lo_rank, 100 * hi, hi_rank, 100 * med, lag);
}

/* "called from `caller_a` 70 %, `caller_b` 30 %; inclusive 100 %" from the
 * payload's own stack views (report/payload_stacks.h), so the terminal and
 * the page say the same. Nothing without call stacks. */
static void callers_line(const struct pivot *p, const struct stack_index *si,
			 const char *time_base, int64_t hotspot, struct text_lines *out)
{
	json_t *callers = NULL, *incl = NULL;
	payload_stack_views(p, si, time_base, hotspot, &callers, &incl);
	char line[400] = "    called from";
	size_t n = json_array_size(callers), shown = n < 3 ? n : 3;
	for (size_t i = 0; i < shown; i++) {
		json_t *c = json_array_get(callers, i);
		size_t l = strlen(line);
		json_t *sv = json_object_get(json_object_get(c, "share"), "value");
		char sh[24] = "unavailable";
		if (json_is_number(sv))
			snprintf(sh, sizeof(sh), "%.0f %%", 100 * json_number_value(sv));
		snprintf(line + l, sizeof(line) - l, "%s `%.80s` %s", i ? "," : "",
			 json_string_value(json_object_get(c, "name")), sh);
	}
	if (n > shown) {
		size_t l = strlen(line);
		snprintf(line + l, sizeof(line) - l, ", %zu more", n - shown);
	}
	json_t *iv = json_object_get(incl, "value");
	if (shown && json_is_number(iv)) {
		size_t l = strlen(line);
		snprintf(line + l, sizeof(line) - l, "; inclusive %.0f %% of the stacked time",
			 100 * json_number_value(iv));
	}
	/* the Quality the payload gives the first caller's share (every
	 * caller's share has the same source: the sampled stacks) */
	const char *q = json_string_value(
		json_object_get(json_object_get(json_array_get(callers, 0), "share"), "quality"));
	if (shown)
		text_lines__add(out, "%s (%s, from sampled call stacks)", line, q ? q : "unavailable");
	json_decref(callers);
	json_decref(incl);
}

/* The reason no Hotspot is placed, when it is one and the same for every one
 * (say, no FLOP counter in the Run): said once, not on every finding. */
static const char *shared_reason(const struct analysis *a)
{
	const char *r = NULL;
	for (size_t i = 0; i < a->nr_diags; i++) {
		const struct diagnostic *g = &a->diags[i];
		if (g->classification || !g->classification_reason ||
		    (r && strcmp(r, g->classification_reason) != 0))
			return NULL;
		r = g->classification_reason;
	}
	return a->nr_diags > 1 ? r : NULL;
}

/* A finding is a Hotspot that carries much of the time (the largest ones,
 * until FINDINGS_COVER of the sampled time, each at least FINDINGS_MIN_SHARE)
 * or has a classification; the rest are in the report's inventory. */
#define FINDINGS_COVER 0.8
#define FINDINGS_MIN_SHARE 0.02

static bool is_finding(const struct diagnostic *g, double covered, size_t nth)
{
	if (g->classification || nth == 0)
		return true;
	return covered < FINDINGS_COVER && isfinite(g->share.value) &&
	       g->share.value >= FINDINGS_MIN_SHARE;
}

/* The evidence lines under a finding, then why any value shown is estimated. */
static void evidence(const struct diagnostic *g, const struct rank_placement *rp,
		     const struct stack_index *si, const struct pivot *p, const char *time_base,
		     struct text_lines *out)
{
	char a[48], b[48];
	const struct derived *shown[6] = {&g->share};
	size_t n = 1;
	if (g->envelope_fraction.quality != QUALITY_UNAVAILABLE) {
		text_lines__add(out, "    achieved %s of %s attainable: %.0f%% of the envelope",
				format_si(a, sizeof(a), g->achieved.value, "flop/s"),
				format_si(b, sizeof(b), g->attainable.value, "flop/s"),
				100.0 * g->envelope_fraction.value);
		shown[n++] = &g->achieved;
		shown[n++] = &g->attainable;
		shown[n++] = &g->envelope_fraction;
	} else if (g->achieved.quality != QUALITY_UNAVAILABLE) {
		text_lines__add(out, "    achieved %s (%s); attainable unavailable: %s",
				format_si(a, sizeof(a), g->achieved.value, "flop/s"),
				quality__name(g->achieved.quality),
				g->attainable.reason ? g->attainable.reason : "?");
		shown[n++] = &g->achieved;
	}
	if (g->dram_intensity.quality != QUALITY_UNAVAILABLE) {
		text_lines__add(out, "    DRAM intensity %s%.3g flop/byte (%s)",
				g->dram_intensity.bound ? "above " : "", g->dram_intensity.value,
				quality__name(g->dram_intensity.quality));
		shown[n++] = &g->dram_intensity;
	}
	rank_line(rp, g, out);
	if (g->classification && strcmp(g->classification, "imbalance") == 0) {
		text_lines__add(out, "    most-loaded Locus carries %.1fx the least-loaded",
				g->imbalance.value);
		shown[n++] = &g->imbalance;
	}
	if (si)
		callers_line(p, si, time_base, g->hotspot, out);
	downgrades(shown, n, out);
}

static void finding(const struct diagnostic *g, const struct pivot *p, const char *time_base,
		    bool reason_said, const struct rank_placement *rp, const struct stack_index *si,
		    struct text_lines *out)
{
	const struct hotspot *h = &p->hotspots[g->hotspot];
	char *name = hotspot__display_name(h);
	char verdict[320];
	if (g->classification)
		snprintf(verdict, sizeof(verdict), " - %s", g->classification);
	else if (reason_said)
		verdict[0] = '\0';
	else
		snprintf(verdict, sizeof(verdict), " - no placement: %s",
			 g->classification_reason ? g->classification_reason : "unknown");
	/* The hottest line is attrib_hottest_line(), as the payload's hottest_line. */
	char where[160] = "";
	struct attrib_share sh;
	if (attrib_hottest_line(p, g->hotspot, time_base, &sh) == 0 && sh.line > 0) {
		const char *base = sh.file ? strrchr(sh.file, '/') : NULL;
		snprintf(where, sizeof(where), ", %s:%d",
			 base ? base + 1 : (sh.file ? sh.file : "?"), sh.line);
	}
	/* The error is relative (1/sqrt(samples)): said so, with its size in
	 * points of the share, so nobody reads "+-4.3%" as 4.3 points. */
	char sb[24], eb[96] = "relative error unavailable";
	if (isfinite(g->relative_error) && isfinite(g->share.value))
		snprintf(eb, sizeof(eb), "relative error +-%.1f%%, i.e. +-%.1f points",
			 100 * g->relative_error, 100 * g->relative_error * g->share.value);
	text_lines__add(out, "  %s (%s%s) - %s of the sampled time (%s, %s)%s",
			name ? name : "?", resolution__name(h->level), where,
			pct(sb, sizeof(sb), g->share.value), eb, quality__name(g->share.quality),
			verdict);
	xfree(name);
	evidence(g, rp, si, p, time_base, out);
	if (regions_render_finding(p, g->hotspot, time_base, out) < 0)
		out->failed = true;
}

/* Unresolved time said by module, the runtimes named, with the remedy. */
static void unresolved_line(const struct analysis *a, const struct pivot *p,
			    struct text_lines *out)
{
	struct unresolved_module v[4];
	size_t n = unresolved_by_module(p, a->time_base, a->time_value, v, 4);
	char mods[400] = "";
	size_t l = 0;
	bool runtime = false;
	for (size_t i = 0; i < n && i < 3 && l < sizeof(mods); i++) {
		const char *b = strrchr(v[i].module, '/');
		int w = snprintf(mods + l, sizeof(mods) - l, "%s%s %.1f%% (%zu address%s%s%s)",
				 i ? ", " : "", b ? b + 1 : v[i].module, 100 * v[i].share,
				 v[i].nr_addresses, v[i].nr_addresses == 1 ? "" : "es",
				 v[i].runtime ? ", " : "", v[i].runtime ? v[i].runtime : "");
		l = w > 0 ? l + (size_t)w : l;
		runtime |= v[i].runtime != NULL;
	}
	text_lines__add(out,
			"  - %.1f%% of the sampled time is in code left unresolved (module+offset, "
			"no function name)%s%s; %s", 100.0 * a->unresolved_share, n ? ": " : "", mods,
			unresolved_remedy(runtime));
}

/* Several unresolved addresses of one module are one finding (issue 24):
 * the first shown stands for the module, the others are not listed again
 * (they are in its "with N more" line). An address whose module's first
 * address was not shown is counted with the rest. */
static bool module_shown_before(const struct analysis *a, const struct pivot *p, size_t i,
				const bool *shown_at)
{
	const struct hotspot *h = &p->hotspots[a->diags[i].hotspot];
	if (h->level != RESOLUTION_UNRESOLVED || !h->module)
		return false;
	for (size_t k = 0; k < i; k++) {
		const struct hotspot *o = &p->hotspots[a->diags[k].hotspot];
		if (o->level == RESOLUTION_UNRESOLVED && o->module && !strcmp(o->module, h->module))
			return shown_at[k];
	}
	return false;
}

/* Under an unresolved finding: the rest of its module's addresses above
 * the floor, and whose code it is. */
static void module_group_line(const struct analysis *a, const struct pivot *p, size_t i,
			      struct text_lines *out)
{
	const struct hotspot *h = &p->hotspots[a->diags[i].hotspot];
	if (h->level != RESOLUTION_UNRESOLVED || !h->module)
		return;
	size_t more = 0;
	double share = a->diags[i].share.value;
	for (size_t k = i + 1; k < a->nr_diags; k++) {
		const struct hotspot *o = &p->hotspots[a->diags[k].hotspot];
		if (o->level == RESOLUTION_UNRESOLVED && o->module && !strcmp(o->module, h->module)) {
			more++;
			share += a->diags[k].share.value;
		}
	}
	const char *rt = runtime_of_module(h->module);
	char sb[24];
	if (more)
		text_lines__add(out, "    with %zu more unresolved address%s of this module above "
				"the floor: %s of the sampled time in all%s%s", more,
				more == 1 ? "" : "es", pct(sb, sizeof(sb), share), rt ? ", in " : "",
				rt ? rt : "");
	else if (rt)
		text_lines__add(out, "    code of %s", rt);
}

static bool has_counter(const struct pivot *p, const char *a, const char *b)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const char *c = p->measurements[i].counter;
		if (c && (strcmp(c, a) == 0 || (b && strcmp(c, b) == 0)))
			return true;
	}
	return false;
}

static void admissions(const struct analysis *a, const struct pivot *p,
		       const struct summary_ctx *ctx, struct text_lines *out)
{
	text_lines__add(out, "what this report does not say:");
	size_t before = out->n;
	if (a->others_count && a->others_share > OTHERS_MENTION_SHARE)
		text_lines__add(out,
				"  - %zu Hotspot%s below the statistical floor of %d samples hold%s "
				"%.1f%% of the sampled time, aggregated as \"others\"",
				a->others_count, a->others_count == 1 ? "" : "s", a->floor_samples,
				a->others_count == 1 ? "s" : "",
				100.0 * a->others_share);
	if (a->nr_unresolved && a->unresolved_share > 0)
		unresolved_line(a, p, out);
	bool flops = has_counter(p, "flops_dp", "flops"), dram = has_counter(p, "dram_bytes", NULL);
	if (a->nr_diags && (!flops || !dram))
		text_lines__add(out,
				"  - how many %s each Hotspot moves: this Run has no %s counter "
				"(none on this CPU or for its microarchitecture; `nunatak doctor` "
				"shows which counters the machine offers)",
				!flops && !dram ? "FLOPs and DRAM bytes" : !flops ? "FLOPs" : "DRAM bytes",
				!flops && !dram ? "FLOP or DRAM" : !flops ? "FLOP" : "DRAM");
	if (!a->have_ceilings)
		text_lines__add(out,
				"  - where Hotspots sit on the roofline: the Machine's Ceilings are "
				"unavailable (%s)",
				ctx && ctx->ceilings_reason ? ctx->ceilings_reason
							    : "no flops_dp or dram_bandwidth Ceiling");
	else if (a->flops_ceiling->quality == QUALITY_ESTIMATED)
		text_lines__add(out, "  - the flops_dp Ceiling is estimated: %s",
				a->flops_ceiling->reason ? a->flops_ceiling->reason : "?");
	int nr_ranks = ctx ? ctx->nr_ranks : -1, nr_sampled = ctx ? ctx->nr_sampled_ranks : 0;
	if (ctx && ctx->ranks && ctx->ranks->nr_rows) {
		nr_ranks = (int)ctx->ranks->nr_rows;
		nr_sampled = ctx->ranks->nr_sampled;
	}
	if (nr_ranks > 0 && nr_sampled < nr_ranks)
		text_lines__add(out, "  - what the %d unsampled rank%s did: never extrapolated",
				nr_ranks - nr_sampled, nr_ranks - nr_sampled == 1 ? "" : "s");
	if (out->n == before)
		text_lines__add(out, ctx && ctx->nr_degradations
					     ? "  - nothing beyond the degradations listed below"
					     : "  - nothing more: no measurement was degraded, and each "
					       "estimated figure above gives its reason");
}

/* The findings, each with its module line, then how many Hotspots above
 * the floor were left out and their share: those neither shown nor named in
 * a shown finding's module line (issue 22: "3 more ... holding 0.0%" counted
 * the grouped addresses again). */
static int findings_lines(const struct analysis *a, const struct pivot *p,
			  const struct summary_ctx *ctx, const char *reason, struct text_lines *out)
{
	size_t shown = 0, nrest = 0;
	double covered = 0, rest = 0;
	bool *shown_at = xcalloc(a->nr_diags ? a->nr_diags : 1, sizeof(bool));
	struct stack_index si;
	bool have_si = p->nr_stacks > 0 && stack_index__build(&si, p) == 0;
	struct rank_placement rp;
	bool have_rp = rank_placement_run(p, a, ctx ? ctx->nodes : NULL, &rp) == 0;
	for (size_t i = 0; shown_at && i < a->nr_diags; i++) {
		const struct diagnostic *g = &a->diags[i];
		if (module_shown_before(a, p, i, shown_at)) {
			covered += isfinite(g->share.value) ? g->share.value : 0;
			continue; /* in its module's line */
		}
		if (shown < SUMMARY_MAX_FINDINGS && is_finding(g, covered, shown)) {
			finding(g, p, a->time_base, reason != NULL,
				have_rp && i < RANK_PLACEMENT_TOP ? &rp : NULL, have_si ? &si : NULL,
				out);
			module_group_line(a, p, i, out);
			shown_at[i] = true;
			shown++;
		} else {
			rest += g->share.value;
			nrest++;
		}
		covered += isfinite(g->share.value) ? g->share.value : 0;
	}
	if (have_si)
		stack_index__release(&si);
	if (have_rp)
		rank_placement__release(&rp);
	char rb[24]; /* an unavailable share among the rest: their sum is unavailable */
	if (nrest)
		text_lines__add(out, "  ... and %zu more Hotspot%s above the floor, holding %s "
				     "(every one in the report's inventory)",
				nrest, nrest == 1 ? "" : "s", pct(rb, sizeof(rb), rest));
	int rc = shown_at && have_rp ? 0 : -ENOMEM;
	xfree(shown_at);
	return rc;
}

int summary_render(const struct analysis *a, const struct pivot *p,
		   const struct summary_ctx *ctx, struct text_lines *out)
{
	/* first: where the wall time went, on the CPU and off it */
	struct time_budget tb;
	if (time_budget_build(p, &tb) == 0)
	{
		struct launch_time lt = {.wall_s = ctx ? ctx->app_wall_s : NAN,
					 .cpu_s = ctx && ctx->app_cpu_s > 0 ? ctx->app_cpu_s : -1,
					 .cpu_includes_collector = ctx && ctx->cpu_includes_collector};
		time_view_lines(&tb, &lt, p, out);
	}
	else
		out->failed = true;
	time_budget__release(&tb);
	struct omp_view ov;
	if (omp_view_build(p, a->time_base, &ov) == 0)
		openmp_view_lines(&ov, out);
	omp_view__release(&ov);
	headline(a, p, out);
	if (ctx && ctx->ranks && ranks_view_lines(ctx->ranks, out) < 0)
		out->failed = true;
	if (ctx && netceil_view_lines(ctx->machine, ctx->cost, out) < 0)
		out->failed = true;
	if (ctx && ctx->nodes && (nodes_view_lines(ctx->nodes, out) < 0 ||
				  nodes_view_roofline_line(ctx->nodes, out) < 0))
		out->failed = true;
	const char *reason = shared_reason(a);
	if (reason)
		text_lines__add(out, "  no roofline placement for any Hotspot: %s", reason);
	if (findings_lines(a, p, ctx, reason, out) < 0)
		out->failed = true;
	if (a->others_count) {
		char ob[24];
		text_lines__add(out, "  others: %zu Hotspot%s below the floor - %s of the sampled time",
				a->others_count, a->others_count == 1 ? "" : "s",
				pct(ob, sizeof(ob), a->others_share));
	}
	if (regions_render(p, a, out) < 0)
		out->failed = true;
	admissions(a, p, ctx, out);
	return out->failed ? -ENOMEM : 0;
}
