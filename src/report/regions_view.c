// SPDX-License-Identifier: BSD-3-Clause
#include "report/regions_view.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/views.h"
#include "common/alloc.h"
#include "ingest/switches.h"
#include "model/model.h"
#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "common/text.h"
#include "report/derived_json.h"
#include "report/summary.h"

/* A region named under a finding must hold at least this share. */
#define FINDING_MIN_SHARE 0.01

static const struct pivot *sort_p; /* qsort has no context argument */

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return a == b ? 0 : (a ? 1 : -1); /* NULL first */
	return strcmp(a, b);
}

static int stat_cmp(const void *x, const void *y)
{
	const struct region_stat *a = &sort_p->region_stats[*(const size_t *)x];
	const struct region_stat *b = &sort_p->region_stats[*(const size_t *)y];
	int c = strcmp_null(a->path, b->path);
	if (c)
		return c;
	int ra = sort_p->loci[a->locus].rank, rb = sort_p->loci[b->locus].rank;
	return (ra > rb) - (ra < rb);
}

static int row_cmp(const void *x, const void *y)
{
	const struct region_row *a = x, *b = y;
	return (a->inclusive_ns < b->inclusive_ns) - (a->inclusive_ns > b->inclusive_ns);
}

/* One path's stats (idx[i..j), sorted by rank) into a row. */
static void fill_row(const struct pivot *p, const size_t *idx, size_t i, size_t j,
		     struct region_row *r)
{
	const struct region_stat *first = &p->region_stats[idx[i]];
	*r = (struct region_row){.path = first->path, .name = first->name};
	double rank_ns = 0;
	for (size_t k = i; k < j; k++) {
		const struct region_stat *s = &p->region_stats[idx[k]];
		r->calls += s->calls;
		r->nr_stats++;
		r->nr_flop += s->has_flop;
		r->nr_bytes += s->has_dram_bytes;
		r->flop += s->has_flop ? s->flop : 0;
		r->dram_bytes += s->has_dram_bytes ? s->dram_bytes : 0;
		r->nr_offcpu += s->has_offcpu;
		r->offcpu_ns += s->has_offcpu ? s->offcpu_ns : 0;
		if ((double)s->inclusive_ns > r->max_locus_ns)
			r->max_locus_ns = (double)s->inclusive_ns;
		r->inclusive_ns += (double)s->inclusive_ns;
		r->exclusive_ns += (double)s->exclusive_ns;
		rank_ns += (double)s->inclusive_ns;
		bool last = k + 1 == j || p->loci[p->region_stats[idx[k + 1]].locus].rank !=
						  p->loci[s->locus].rank;
		if (last) {
			r->nr_ranks++;
			if (rank_ns > r->max_rank_ns)
				r->max_rank_ns = rank_ns;
			rank_ns = 0;
		}
	}
	r->mean_rank_ns = r->nr_ranks ? r->inclusive_ns / r->nr_ranks : 0;
}

int region_rows(const struct pivot *p, struct region_row **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t ns = p->nr_region_stats;
	size_t *idx = xmalloc((ns + 1) * sizeof(*idx));
	struct region_row *rows = xcalloc(ns + 1, sizeof(*rows));
	if (!idx || !rows) {
		xfree(idx);
		xfree(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ns; i++)
		idx[i] = i;
	sort_p = p;
	qsort(idx, ns, sizeof(*idx), stat_cmp);
	for (size_t i = 0, j; i < ns; i = j) {
		for (j = i + 1; j < ns && strcmp_null(p->region_stats[idx[j]].path,
						     p->region_stats[idx[i]].path) == 0;)
			j++;
		fill_row(p, idx, i, j, &rows[(*n)++]);
	}
	xfree(idx);
	qsort(rows, *n, sizeof(*rows), row_cmp);
	*out = rows;
	return 0;
}

static int share_cmp(const void *x, const void *y)
{
	const struct region_share *a = x, *b = y;
	return (a->value < b->value) - (a->value > b->value);
}

int region_shares(const struct pivot *p, int64_t hotspot, const char *counter,
		  struct region_share **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	counter = counter ? counter : attrib_time_base(p);
	struct region_share *v = xcalloc(p->nr_region_samples + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	double total = 0;
	for (size_t i = 0; counter && i < p->nr_region_samples; i++) {
		const struct region_sample *s = &p->region_samples[i];
		if (s->hotspot != hotspot || !s->counter || strcmp(s->counter, counter) != 0)
			continue;
		size_t k = 0;
		while (k < *n && strcmp_null(v[k].path, s->region_path) != 0)
			k++;
		if (k == *n)
			v[(*n)++] = (struct region_share){.path = s->region_path};
		v[k].value += s->value;
		v[k].samples += s->sample_count;
		total += s->value;
	}
	for (size_t k = 0; k < *n; k++)
		v[k].share = total > 0 ? v[k].value / total : NAN;
	qsort(v, *n, sizeof(*v), share_cmp);
	*out = v;
	return 0;
}

/* "31.7 ms" */
static const char *fmt_ns(char *buf, size_t len, double ns)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	int k = 0;
	while (ns >= 1000.0 && k < 3) {
		ns /= 1000.0;
		k++;
	}
	snprintf(buf, len, "%.3g %s", ns, unit[k]);
	return buf;
}

static bool row_counted(const struct region_row *r)
{
	return r->nr_flop || r->nr_bytes;
}

/* The row's place on the roofline (release g with diagnostic__release).
 * Counts missing on some of the path's Loci make the sums short: the
 * values derived from them are then estimated, and said so. */
static void row_place(const struct analysis *a, const struct region_row *r,
		      struct diagnostic *g, char *why, size_t n)
{
	struct region_counts rc = {.have_flop = r->nr_flop > 0, .have_bytes = r->nr_bytes > 0,
				   .flop = r->flop, .dram_bytes = r->dram_bytes,
				   .max_locus_ns = r->max_locus_ns, .quality = QUALITY_MEASURED};
	if (r->nr_flop < r->nr_stats || r->nr_bytes < r->nr_stats) {
		snprintf(why, n, "counted on %d and %d of the path's %d Loci (flop, bytes): the "
			 "sums leave the others out", r->nr_flop, r->nr_bytes, r->nr_stats);
		rc.quality = QUALITY_ESTIMATED;
		rc.reason = why;
	}
	analysis_place_region(a, &rc, g);
}

static void render_place(const struct analysis *a, const struct region_row *r,
			 struct text_lines *out)
{
	struct diagnostic g;
	char why[160], x[32], y[32], f[48] = "";
	row_place(a, r, &g, why, sizeof(why));
	if (g.achieved.quality != QUALITY_UNAVAILABLE && g.dram_intensity.quality != QUALITY_UNAVAILABLE) {
		if (g.envelope_fraction.quality != QUALITY_UNAVAILABLE)
			snprintf(f, sizeof(f), ", %.0f%% of the envelope",
				 100 * g.envelope_fraction.value);
		snprintf(y, sizeof(y), "%.3g", g.dram_intensity.value);
		text_lines__add(out, "      on the roofline: %s at %s flop/byte%s, %s (%s, from "
				     "scope_profiler counters)",
				format_si(x, sizeof(x), g.achieved.value, "flop/s"), y, f,
				g.classification ? g.classification : "not classified",
				quality__name(quality__worst(g.achieved.quality,
							     g.dram_intensity.quality)));
	} else {
		const char *r2 = g.achieved.quality == QUALITY_UNAVAILABLE ? g.achieved.reason
									   : g.dram_intensity.reason;
		text_lines__add(out, "      not on the roofline: %s", r2 ? r2 : "no value");
	}
	diagnostic__release(&g);
}

/* the ranks ran as separate MPI worlds (analysis/imbalance.h) */
#define R_APART "the ranks ran as separate MPI worlds (launcher and MPI library do not " \
		"match: mpi-separate-worlds): separate jobs are not compared"

static void render_rank_places(const struct pivot *p, const struct analysis *a,
			       const struct region_row *r, struct text_lines *out);

int regions_render(const struct pivot *p, const struct analysis *an, struct text_lines *out)
{
	struct region_row *rows;
	size_t n;
	if (region_rows(p, &rows, &n) < 0)
		return -ENOMEM;
	if (n)
		text_lines__add(out, "regions: %zu call path%s from scope_profiler traces, by "
				     "inclusive wall-clock time (summed over threads and ranks; "
				     "not the sampled CPU time of the Hotspots):",
				n, n == 1 ? "" : "s");
	int apart = imbalance_own_world(p, -1, NULL); /* separate MPI worlds: not compared */
	for (size_t i = 0; i < n && i < REGIONS_SHOWN; i++) {
		const struct region_row *r = &rows[i];
		char a[32], b[32], imb[96] = "";
		if (r->nr_ranks > 1 && apart)
			snprintf(imb, sizeof(imb), "; its %d ranks not compared: separate %d-rank MPI "
				 "worlds", r->nr_ranks, apart);
		else if (r->nr_ranks > 1 && r->mean_rank_ns > 0)
			snprintf(imb, sizeof(imb), "; busiest of %d ranks at %.2fx the mean",
				 r->nr_ranks, r->max_rank_ns / r->mean_rank_ns);
		char off[96] = "", c[32];
		if (r->nr_stats && r->nr_offcpu == r->nr_stats)
			snprintf(off, sizeof(off), "; %s of the exclusive time off the CPU (blocked or preempted)",
				 fmt_ns(c, sizeof(c),
					r->offcpu_ns > r->exclusive_ns ? r->exclusive_ns : r->offcpu_ns));
		text_lines__add(out,
				"  %s - %s inclusive, %s exclusive (measured, wall clock), %lld "
				"call%s%s%s",
				r->path,
				fmt_ns(a, sizeof(a), r->inclusive_ns),
				fmt_ns(b, sizeof(b), r->exclusive_ns), (long long)r->calls,
				r->calls == 1 ? "" : "s", imb, off);
		if (an && row_counted(r))
			render_place(an, r, out);
		if (an && row_counted(r) && r->nr_ranks > 1)
			render_rank_places(p, an, r, out);
	}
	if (n > REGIONS_SHOWN)
		text_lines__add(out, "  ... and %zu more call path%s", n - REGIONS_SHOWN,
				n - REGIONS_SHOWN == 1 ? "" : "s");
	xfree(rows);
	return out->failed ? -ENOMEM : 0;
}

int regions_render_finding(const struct pivot *p, int64_t hotspot, const char *counter,
			   struct text_lines *out)
{
	struct region_share *v;
	size_t n;
	if (region_shares(p, hotspot, counter, &v, &n) < 0)
		return -ENOMEM;
	char line[512] = "";
	size_t at = 0, shown = 0;
	for (size_t i = 0; i < n && shown < REGIONS_PER_FINDING; i++) {
		if (!(v[i].share >= FINDING_MIN_SHARE))
			break;
		int w = snprintf(line + at, sizeof(line) - at, "%s%s %.0f%%", shown ? ", " : "",
				 v[i].path ? v[i].path : "no region", 100.0 * v[i].share);
		if (w < 0 || (size_t)w >= sizeof(line) - at)
			break;
		at += (size_t)w;
		shown++;
	}
	if (shown)
		text_lines__add(out, "    in %s (of its samples, measured)", line);
	xfree(v);
	return out->failed ? -ENOMEM : 0;
}

/* Region times come from scope_profiler's traces: wall clock, measured. */
static json_t *wall(double ns)
{
	return quality__json_clock(ns, "ns", QUALITY_MEASURED, NULL, CLOCK_WALL);
}

static void place_json(json_t *o, const struct analysis *a, const struct region_row *r)
{
	struct diagnostic g;
	char why[160];
	row_place(a, r, &g, why, sizeof(why));
	json_object_set_new(o, "share", derived_json(&g.share));
	json_object_set_new(o, "dram_intensity", derived_json(&g.dram_intensity));
	json_object_set_new(o, "achieved", derived_json(&g.achieved));
	json_object_set_new(o, "attainable", derived_json(&g.attainable));
	json_object_set_new(o, "envelope_fraction", derived_json(&g.envelope_fraction));
	json_object_set_new(o, "classification",
			    g.classification ? json_string(g.classification) : json_null());
	json_object_set_new(o, "classification_reason",
			    g.classification_reason ? json_string(g.classification_reason)
						    : json_null());
	json_object_set_new(o, "counts", json_pack("{s:o, s:o}", "flop",
			    r->nr_flop ? json_real(r->flop) : json_null(), "dram_bytes",
			    r->nr_bytes ? json_real(r->dram_bytes) : json_null()));
	diagnostic__release(&g);
}

#define R_NO_SWITCHES                                                                    \
	"the recording has no context switches on the traces' clock (perf with "          \
	"-k CLOCK_MONOTONIC and switch events; `nunatak doctor`: off-CPU)"

/* The path's exclusive time split on and off the CPU (issue 23 item 5):
 * the kernel's switches met with the calls on one clock. */
static void offcpu_json(json_t *o, const struct region_row *r)
{
	bool have = r->nr_stats && r->nr_offcpu == r->nr_stats;
	enum quality q = have ? QUALITY_MEASURED : QUALITY_UNAVAILABLE;
	const char *why = have ? NULL : R_NO_SWITCHES;
	double off = r->offcpu_ns > r->exclusive_ns ? r->exclusive_ns : r->offcpu_ns;
	json_object_set_new(o, "exclusive_offcpu_ns",
			    quality__json_clock(off, "ns", q, why, CLOCK_SWITCHES));
	json_object_set_new(o, "exclusive_cpu_ns",
			    quality__json_clock(r->exclusive_ns - off, "ns", q, why,
						CLOCK_SWITCHES));
}

/* The path of r per rank (traces are per rank): each rank's own counts and
 * longest Locus, in rank order; ranks[k] is rows[k]'s rank. 0 or -ENOMEM. */
static int rank_rows(const struct pivot *p, const struct region_row *r,
		     struct region_row **rows, int **ranks, size_t *n)
{
	size_t ns = p->nr_region_stats, m = 0;
	size_t *idx = xmalloc((ns + 1) * sizeof(*idx));
	*rows = xcalloc(ns + 1, sizeof(**rows));
	*ranks = xcalloc(ns + 1, sizeof(**ranks));
	*n = 0;
	if (!idx || !*rows || !*ranks) {
		xfree(idx);
		zfree(rows);
		zfree(ranks);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ns; i++)
		if (strcmp_null(p->region_stats[i].path, r->path) == 0)
			idx[m++] = i;
	sort_p = p;
	qsort(idx, m, sizeof(*idx), stat_cmp);
	for (size_t i = 0, j; i < m; i = j) {
		int rank = p->loci[p->region_stats[idx[i]].locus].rank;
		for (j = i + 1; j < m && p->loci[p->region_stats[idx[j]].locus].rank == rank;)
			j++;
		(*ranks)[*n] = rank;
		fill_row(p, idx, i, j, &(*rows)[(*n)++]);
	}
	xfree(idx);
	return 0;
}

/* "rank_points": the path placed per rank, as the path is (no share: the
 * Run's share of samples is not per rank). */
static void rank_points_json(json_t *o, const struct pivot *p, const struct analysis *a,
			     const struct region_row *r)
{
	struct region_row *rows;
	int *ranks;
	size_t n;
	json_t *arr = json_array();
	if (!arr || rank_rows(p, r, &rows, &ranks, &n)) {
		json_decref(arr);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		json_t *x = json_pack("{s:i, s:I, s:o}", "rank", ranks[k], "calls",
				      (json_int_t)rows[k].calls, "inclusive_ns",
				      wall(rows[k].inclusive_ns));
		if (x && row_counted(&rows[k]))
			place_json(x, a, &rows[k]);
		if (x)
			json_object_del(x, "share");
		json_array_append_new(arr, x);
	}
	xfree(rows);
	xfree(ranks);
	json_object_set_new(o, "rank_points", arr);
}

json_t *regions_json(const struct pivot *p, const struct analysis *an)
{
	struct region_row *rows;
	size_t n;
	if (region_rows(p, &rows, &n) < 0)
		return NULL;
	json_t *a = json_array();
	int apart = imbalance_own_world(p, -1, NULL);
	for (size_t i = 0; a && i < n; i++) {
		const struct region_row *r = &rows[i];
		json_t *rk = r->nr_ranks > 1 && r->mean_rank_ns > 0
				     ? json_pack("{s:i, s:o, s:o, s:o}", "count", r->nr_ranks,
						 "max_inclusive_ns", wall(r->max_rank_ns),
						 "mean_inclusive_ns", wall(r->mean_rank_ns),
						 "imbalance",
						 apart ? quality__json(NAN, "ratio", QUALITY_UNAVAILABLE,
								       R_APART)
						       : quality__json(r->max_rank_ns / r->mean_rank_ns,
								       "ratio", QUALITY_MEASURED, NULL))
				     : json_null();
		json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "path",
				      r->path ? r->path : "?", "name", r->name ? r->name : "?",
				      "calls", (json_int_t)r->calls, "inclusive_ns",
				      wall(r->inclusive_ns), "exclusive_ns", wall(r->exclusive_ns),
				      "ranks", rk);
		if (o)
			offcpu_json(o, r);
		if (o && an && row_counted(r))
			place_json(o, an, r);
		if (o && an && row_counted(r) && r->nr_ranks > 1)
			rank_points_json(o, p, an, r);
		json_array_append_new(a, o);
	}
	xfree(rows);
	return a;
}

json_t *regions_hotspot_json(const struct pivot *p, int64_t hotspot, const char *counter)
{
	struct region_share *v;
	size_t n;
	if (region_shares(p, hotspot, counter, &v, &n) < 0)
		return NULL;
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:o, s:I}", "path",
						   v[i].path ? json_string(v[i].path) : json_null(),
						   "share",
						   quality__json(v[i].share, "ratio", QUALITY_MEASURED,
								 "the Hotspot's samples carry no value"),
						   "samples",
						   (json_int_t)v[i].samples));
	xfree(v);
	return a;
}

/* "      per rank: 13.2 Gflop/s (rank 0) to 24.1 Gflop/s (rank 1) at 0.25 to
 * 0.5 flop/byte": the spread of the ranks' own points, when placed. */
static void render_rank_places(const struct pivot *p, const struct analysis *a,
			       const struct region_row *r, struct text_lines *out)
{
	struct region_row *rows;
	int *ranks;
	size_t n, placed = 0;
	if (rank_rows(p, r, &rows, &ranks, &n))
		return;
	double lo = 0, hi = 0, ilo = 0, ihi = 0;
	int rlo = -1, rhi = -1;
	for (size_t k = 0; k < n; k++) {
		struct diagnostic g;
		char why[160];
		row_place(a, &rows[k], &g, why, sizeof(why));
		if (g.achieved.quality != QUALITY_UNAVAILABLE &&
		    g.dram_intensity.quality != QUALITY_UNAVAILABLE) {
			double v = g.achieved.value, i = g.dram_intensity.value;
			if (!placed || v < lo)
				lo = v, rlo = ranks[k];
			if (!placed || v > hi)
				hi = v, rhi = ranks[k];
			ilo = !placed || i < ilo ? i : ilo;
			ihi = !placed || i > ihi ? i : ihi;
			placed++;
		}
		diagnostic__release(&g);
	}
	char x[32], y[32];
	if (placed > 1)
		text_lines__add(out, "      per rank (%zu placed): %s (rank %d) to %s (rank %d), "
				     "at %.3g to %.3g flop/byte",
				placed, format_si(x, sizeof(x), lo, "flop/s"), rlo,
				format_si(y, sizeof(y), hi, "flop/s"), rhi, ilo, ihi);
	xfree(rows);
	xfree(ranks);
}
