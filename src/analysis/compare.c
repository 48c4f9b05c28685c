// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/compare.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/compare_gather.h"
#include "analysis/stats.h"
#include "common/alloc.h"

static double mean(const double *x, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

static bool all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return false;
	return true;
}

/* Poisson interval of the ratio of mean times per Run: the rate ratio of
 * the summed counts, times (na / nb) for the number of Runs, times the
 * ratio of the mean periods (value per sample). */
static bool poisson_interval(const struct compare_item *it, size_t na, size_t nb, double pa,
			     double pb, double conf, double *lo, double *hi)
{
	if (it->a_samples < 0 || it->b_samples < 0 || it->a_samples + it->b_samples == 0)
		return false;
	if (it->a_samples > 0)
		pa = it->a * (double)na / (double)it->a_samples;
	if (it->b_samples > 0)
		pb = it->b * (double)nb / (double)it->b_samples;
	if (!(pa > 0) || !(pb > 0) ||
	    stats_poisson_ratio(it->a_samples, it->b_samples, conf, lo, hi) < 0)
		return false;
	double k = pb / pa * (double)na / (double)nb;
	*lo *= k;
	*hi = isinf(*hi) ? INFINITY : *hi * k;
	return true;
}

static void verdict(struct compare_item *it, double threshold)
{
	it->direction = it->status == COMPARE_NEW ? 1 : it->status == COMPARE_VANISHED ? -1
			: it->ratio > 1 ? 1 : it->ratio < 1 ? -1 : 0;
	it->significant = it->low > 1 + threshold || it->high < 1 / (1 + threshold);
	it->score = 0;
	if (it->status != COMPARE_MATCHED)
		it->score = it->significant ? DBL_MAX : 0;
	else if (it->low > 0 && isfinite(it->high) && it->high > it->low)
		it->score = fabs(log(it->ratio)) / (0.5 * log(it->high / it->low));
}

void compare_item__judge(struct compare_item *it, const double *xa, size_t na,
			 const double *xb, size_t nb, double period_a, double period_b,
			 double confidence, double threshold)
{
	it->a = mean(xa, na);
	it->b = mean(xb, nb);
	if (!isfinite(it->a) || !isfinite(it->b)) { /* a value behind it is unavailable */
		it->status = COMPARE_MATCHED;
		it->ratio = it->low = it->high = it->df = NAN;
		it->basis = COMPARE_BASIS_NONE;
		it->interval_quality = it->ratio_quality = QUALITY_UNAVAILABLE;
		it->significant = false;
		it->direction = 0;
		it->score = 0;
		return;
	}
	it->status = !(it->a > 0) ? COMPARE_NEW : !(it->b > 0) ? COMPARE_VANISHED : COMPARE_MATCHED;
	it->ratio = it->a > 0 ? it->b / it->a : NAN;
	it->low = it->high = it->df = NAN;
	it->basis = COMPARE_BASIS_NONE;
	it->interval_quality = QUALITY_UNAVAILABLE;
	double plo = NAN, phi = NAN;
	bool have_p = poisson_interval(it, na, nb, period_a, period_b, confidence, &plo, &phi);
	struct stats_t_interval t;
	if ((na > 1 || nb > 1) && all_positive(xa, na) && all_positive(xb, nb) &&
	    stats_log_ratio_t(xa, na, xb, nb, confidence, &t) == 0) {
		it->low = t.lo;
		it->high = t.hi;
		it->df = t.df;
		it->basis = COMPARE_BASIS_SPREAD;
		it->interval_quality = QUALITY_MEASURED;
		if (have_p && (plo < t.lo || phi > t.hi)) {
			it->low = fmin(plo, t.lo);
			it->high = fmax(phi, t.hi);
			it->basis = COMPARE_BASIS_SPREAD_POISSON;
		}
	} else if (have_p) {
		it->low = plo;
		it->high = phi;
		it->basis = na > 1 || nb > 1 ? COMPARE_BASIS_POOLED_POISSON : COMPARE_BASIS_POISSON;
		it->interval_quality = QUALITY_ESTIMATED;
	}
	verdict(it, threshold);
}

/* ---- comparability ------------------------------------------------------ */

static int add_note(struct compare_result *r, enum compare_note_kind kind, bool refusal,
		    size_t ra, size_t rb, char *va, char *vb)
{
	if (!va || !vb ||
	    xgrow((void **)&r->notes, &r->cap_notes, r->nr_notes + 1, sizeof(*r->notes))) {
		xfree(va);
		xfree(vb);
		return -ENOMEM;
	}
	r->notes[r->nr_notes++] = (struct compare_note){kind, refusal, false, ra, rb, va, vb};
	return 0;
}

static const struct compare_run *run_at(const struct compare_run *a, size_t na,
					const struct compare_run *b, size_t i)
{
	return i < na ? &a[i] : &b[i - na];
}

static int nr_ranks(const struct compare_run *r)
{
	if (r->world_size >= 0)
		return r->world_size;
	int max = -1;
	for (size_t i = 0; i < r->pivot->nr_loci; i++)
		if (r->pivot->loci[i].rank > max)
			max = r->pivot->loci[i].rank;
	return max + 1;
}

/* The first Run that differs from Run 0 in each respect gives one note. */
static int check_runs(const struct compare_run *a, size_t na, const struct compare_run *b,
		      size_t nb, bool force, struct compare_result *r)
{
	const struct compare_run *r0 = &a[0];
	char *c0 = compare_counter_set(r0->pivot);
	int rc = c0 ? 0 : -ENOMEM;
	bool seen[7] = {false};
	for (size_t i = 0; rc == 0 && i < na + nb; i++) {
		const struct compare_run *ri = run_at(a, na, b, i);
		const char *tb = compare_time_base(ri->pivot, NULL);
		const char *id0 = r0->machine_identity ? r0->machine_identity : "unknown";
		const char *idi = ri->machine_identity ? ri->machine_identity : "unknown";
		if (!tb && !seen[COMPARE_NOTE_NO_SAMPLES]) {
			seen[COMPARE_NOTE_NO_SAMPLES] = true;
			rc = add_note(r, COMPARE_NOTE_NO_SAMPLES, true, i, i, xstrdup(""), xstrdup(""));
		} else if (tb && r->time_base && strcmp(tb, r->time_base) &&
			   !seen[COMPARE_NOTE_TIME_BASE]) {
			seen[COMPARE_NOTE_TIME_BASE] = true;
			rc = add_note(r, COMPARE_NOTE_TIME_BASE, true, 0, i, xstrdup(r->time_base),
				      xstrdup(tb));
		}
		if (rc == 0 && strcmp(id0, idi) && !seen[COMPARE_NOTE_MACHINE]) {
			seen[COMPARE_NOTE_MACHINE] = true;
			rc = add_note(r, COMPARE_NOTE_MACHINE, true, 0, i, xstrdup(id0), xstrdup(idi));
		}
		int k0 = nr_ranks(r0), ki = nr_ranks(ri);
		if (rc == 0 && k0 != ki && !seen[COMPARE_NOTE_RANKS]) {
			seen[COMPARE_NOTE_RANKS] = true;
			rc = add_note(r, COMPARE_NOTE_RANKS, true, 0, i, xasprintf("%d", k0),
				      xasprintf("%d", ki));
		}
		double f0 = r0->frequency_hz, fi = ri->frequency_hz;
		if (rc == 0 && isfinite(f0) && isfinite(fi) && f0 != fi && !seen[COMPARE_NOTE_RATE]) {
			seen[COMPARE_NOTE_RATE] = true;
			rc = add_note(r, COMPARE_NOTE_RATE, false, 0, i, xasprintf("%g", f0),
				      xasprintf("%g", fi));
		}
		char *ci = rc == 0 ? compare_counter_set(ri->pivot) : NULL;
		if (rc == 0 && !ci)
			rc = -ENOMEM;
		if (rc == 0 && strcmp(c0, ci) && !seen[COMPARE_NOTE_COUNTERS]) {
			seen[COMPARE_NOTE_COUNTERS] = true;
			rc = add_note(r, COMPARE_NOTE_COUNTERS, false, 0, i, xstrdup(c0), ci);
			ci = NULL;
		}
		xfree(ci);
	}
	xfree(c0);
	for (size_t k = 0; k < r->nr_notes; k++) {
		struct compare_note *n = &r->notes[k];
		if (n->refusal && force &&
		    (n->kind == COMPARE_NOTE_MACHINE || n->kind == COMPARE_NOTE_RANKS))
			n->forced = true;
		if (n->refusal && !n->forced)
			r->refused = true;
	}
	return rc;
}

/* One note per module whose build-id differs between two Runs; the
 * observations are sorted, so the same function's are adjacent. */
static int check_build_ids(const struct compare_obs *o, size_t n, struct compare_result *r)
{
	for (size_t i = 1; i < n; i++) {
		const struct compare_obs *p = &o[i - 1], *q = &o[i];
		if (q->kind != COMPARE_HOTSPOT || p->kind != COMPARE_HOTSPOT || !p->build_id ||
		    !q->build_id || strcmp(p->key, q->key) || !strcmp(p->build_id, q->build_id))
			continue;
		bool noted = false;
		for (size_t k = 0; k < r->nr_notes && !noted; k++)
			noted = r->notes[k].kind == COMPARE_NOTE_BUILD_ID &&
				!strcmp(r->notes[k].a_value, q->module);
		if (!noted && add_note(r, COMPARE_NOTE_BUILD_ID, false, p->run, q->run,
				       xstrdup(q->module), xasprintf("%.12s %.12s", p->build_id,
								    q->build_id)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- renamed modules ------------------------------------------------------ */

static const char *base_of(const char *f)
{
	const char *b = f ? strrchr(f, '/') : NULL;
	return b ? b + 1 : f;
}

/* A function of module mb (side B) has a twin in module ma (side A): same
 * name, and the same source file basename when both know it. */
static const struct compare_obs *twin(const struct compare_obs_set *s, size_t na,
				      const char *ma, const struct compare_obs *o)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct compare_obs *x = &s->v[i];
		if (x->run >= na || x->kind != COMPARE_HOTSPOT || !x->function ||
		    strcmp(x->module, ma) || strcmp(x->function, o->function))
			continue;
		if (x->file && o->file && strcmp(base_of(x->file), base_of(o->file)))
			continue;
		return x;
	}
	return NULL;
}

static bool side_has(const struct compare_obs_set *s, size_t na, bool side_b, const char *m)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].kind == COMPARE_HOTSPOT && (s->v[i].run >= na) == side_b &&
		    !strcmp(s->v[i].module, m))
			return true;
	return false;
}

/* Functions of B's module mb with a twin in A's ma, and without. */
static void count_twins(const struct compare_obs_set *s, size_t na, const char *ma,
			const char *mb, size_t *hit, size_t *miss)
{
	*hit = *miss = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct compare_obs *o = &s->v[i];
		if (o->run < na || o->kind != COMPARE_HOTSPOT || strcmp(o->module, mb))
			continue;
		if (o->function && twin(s, na, ma, o))
			(*hit)++;
		else
			(*miss)++;
	}
}

/* A module of B absent from A (`./solver` run as `./solver-new`): paired with
 * the A-only module sharing most functions, its functions re-keyed to it. */
static int match_renamed(struct compare_obs_set *s, size_t na, struct compare_result *r)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct compare_obs *o = &s->v[i];
		if (o->run < na || o->kind != COMPARE_HOTSPOT || side_has(s, na, false, o->module))
			continue;
		const char *mb = o->module, *best = NULL;
		size_t best_hit = 0, best_miss = 0;
		for (size_t k = 0; k < s->n; k++) {
			const struct compare_obs *x = &s->v[k];
			size_t hit, miss;
			if (x->run >= na || x->kind != COMPARE_HOTSPOT ||
			    side_has(s, na, true, x->module) || (best && !strcmp(best, x->module)))
				continue;
			count_twins(s, na, x->module, mb, &hit, &miss);
			if (hit > best_hit) {
				best = x->module;
				best_hit = hit;
				best_miss = miss;
			}
		}
		if (!best)
			continue;
		char *ma = xstrdup(best), *mbc = xstrdup(mb);
		for (size_t k = 0; ma && mbc && k < s->n; k++) {
			struct compare_obs *y = &s->v[k];
			if (y->run < na || y->kind != COMPARE_HOTSPOT || strcmp(y->module, mbc) ||
			    !y->function || !twin(s, na, ma, y))
				continue;
			char *key = xasprintf("%s\x1f%s", ma, y->function);
			char *mod = xstrdup(ma);
			if (!key || !mod) {
				xfree(key);
				xfree(mod);
				continue;
			}
			xfree(y->key);
			xfree(y->module);
			y->key = key;
			y->module = mod;
		}
		int rc = ma && mbc ? add_note(r, COMPARE_NOTE_RENAMED, false, 0, na,
					      xasprintf("%s -> %s", ma, mbc),
					      xasprintf("%zu function%s matched by name and source "
							"file, %zu not", best_hit,
							best_hit == 1 ? "" : "s", best_miss))
				   : -ENOMEM;
		xfree(ma);
		xfree(mbc);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- items --------------------------------------------------------------- */

struct group_acc {
	double *xa, *xb;        /* per Run of each side */
	int64_t sa, sb;         /* Σ samples per side, -1 once a value is not sampled */
	enum quality q;         /* worst Quality of the inputs */
};

/* Mean period (value per sample) of a side, from its TOTAL observations. */
static double side_period(const struct compare_obs_set *s, size_t from, size_t to)
{
	double v = 0;
	int64_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].kind == COMPARE_TOTAL && s->v[i].run >= from && s->v[i].run < to) {
			v += s->v[i].value;
			n += s->v[i].samples > 0 ? s->v[i].samples : 0;
		}
	return n > 0 ? v / (double)n : NAN;
}

static int push_item(struct compare_result *r, const struct compare_item *it)
{
	if (xgrow((void **)&r->items, &r->cap_items, r->nr_items + 1, sizeof(*r->items)) < 0)
		return -ENOMEM;
	r->items[r->nr_items++] = *it;
	return 0;
}

static void acc_add(struct group_acc *g, const struct compare_obs *o, size_t na)
{
	if (o->run < na)
		g->xa[o->run] += o->value;
	else
		g->xb[o->run - na] += o->value;
	g->q = quality__worst(g->q, o->quality);
	int64_t *s = o->run < na ? &g->sa : &g->sb;
	if (o->samples < 0 || *s < 0)
		*s = -1;
	else
		*s += o->samples;
}

struct items_ctx {
	struct compare_result *r;
	size_t na, nb;
	double pa, pb;           /* side periods */
	struct group_acc others; /* Hotspots below the floor on both sides */
	size_t nr_others;
};

static bool module_rebuilt(const struct compare_result *r, const char *module)
{
	for (size_t k = 0; module && k < r->nr_notes; k++)
		if (r->notes[k].kind == COMPARE_NOTE_BUILD_ID && !strcmp(r->notes[k].a_value, module))
			return true;
	return false;
}

static void pool_others(struct items_ctx *c, const struct group_acc *g)
{
	for (size_t i = 0; i < c->na; i++)
		c->others.xa[i] += g->xa[i];
	for (size_t i = 0; i < c->nb; i++)
		c->others.xb[i] += g->xb[i];
	c->others.sa += g->sa;
	c->others.sb += g->sb;
	c->others.q = quality__worst(c->others.q, g->q);
	c->nr_others++;
}

static int emit(struct items_ctx *c, const struct compare_obs *first, const struct compare_obs *end,
		struct group_acc *g)
{
	struct compare_result *r = c->r;
	struct compare_item it = {.kind = first->kind, .rank = first->rank, .unit = r->unit,
				  .a_samples = g->sa, .b_samples = g->sb,
				  .ratio_quality = g->q, .build_id_same = true,
				  .nr_members = 1};
	double ma = (double)g->sa / (double)c->na, mb = (double)g->sb / (double)c->nb;
	bool below = fmax(ma, mb) < r->floor_samples;
	if (first->kind == COMPARE_LINE && (below || module_rebuilt(r, first->module)))
		return 0;
	if (first->kind == COMPARE_HOTSPOT && below) {
		pool_others(c, g);
		return 0;
	}
	if (first->kind == COMPARE_HOTSPOT || first->kind == COMPARE_LINE) {
		for (const struct compare_obs *o = first; o < end; o++)
			if (!o->build_id || strcmp(o->build_id, first->build_id ? first->build_id : ""))
				it.build_id_same = false;
		it.build_id_same = it.build_id_same && (size_t)(end - first) == c->na + c->nb;
	} else {
		it.build_id_same = false;
	}
	if (first->kind == COMPARE_REGION || (first->kind == COMPARE_RANK && g->sa < 0))
		it.unit = "s";
	it.name = first->name ? xstrdup(first->name) : NULL;
	it.module = first->module ? xstrdup(first->module) : NULL;
	if ((first->name && !it.name) || (first->module && !it.module))
		goto oom;
	compare_item__judge(&it, g->xa, c->na, g->xb, c->nb, c->pa, c->pb, r->confidence,
			    r->threshold);
	if (push_item(r, &it) == 0)
		return 0;
oom:
	xfree(it.name);
	xfree(it.module);
	return -ENOMEM;
}

static int build_items(struct items_ctx *c, const struct compare_obs_set *s)
{
	size_t n = c->na + c->nb;
	double *buf = xcalloc(4 * n + 1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	c->others = (struct group_acc){buf + 2 * n, buf + 2 * n + c->na, 0, 0, QUALITY_MEASURED};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < s->n;) {
		size_t j = i + 1;
		while (j < s->n && s->v[j].kind == s->v[i].kind && !strcmp(s->v[j].key, s->v[i].key))
			j++;
		struct group_acc g = {buf, buf + c->na, 0, 0, QUALITY_MEASURED};
		memset(buf, 0, 2 * n * sizeof(*buf));
		for (size_t k = i; k < j; k++)
			acc_add(&g, &s->v[k], c->na);
		rc = emit(c, &s->v[i], &s->v[j - 1] + 1, &g);
		i = j;
	}
	if (rc == 0 && c->nr_others) {
		struct compare_item it = {.kind = COMPARE_OTHERS, .rank = -1, .unit = c->r->unit,
					  .a_samples = c->others.sa, .b_samples = c->others.sb,
					  .ratio_quality = c->others.q,
					  .nr_members = c->nr_others};
		compare_item__judge(&it, c->others.xa, c->na, c->others.xb, c->nb, c->pa, c->pb,
				    c->r->confidence, c->r->threshold);
		rc = push_item(c->r, &it);
	}
	xfree(buf);
	return rc;
}

static int item_cmp(const void *x, const void *y)
{
	const struct compare_item *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->significant != b->significant)
		return a->significant ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	double ma = fmax(a->a, a->b), mb = fmax(b->a, b->b);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return a->rank - b->rank;
}

int compare_runs(const struct compare_run *a, size_t na, const struct compare_run *b,
		 size_t nb, bool force, struct compare_result *out)
{
	memset(out, 0, sizeof(*out));
	out->confidence = COMPARE_CONFIDENCE;
	out->threshold = COMPARE_THRESHOLD;
	out->floor_samples = ANALYSIS_FLOOR_SAMPLES;
	out->nr_a = na;
	out->nr_b = nb;
	if (!na || !nb)
		return -EINVAL;
	out->time_base = compare_time_base(a[0].pivot, NULL);
	out->unit = compare_is_clock(out->time_base) ? "s" : out->time_base;
	int rc = check_runs(a, na, b, nb, force, out);
	if (rc < 0 || out->refused)
		return rc;
	struct compare_obs_set s = {0};
	double scale = compare_is_clock(out->time_base) ? 1e-9 : 1.0;
	for (size_t i = 0; rc == 0 && i < na + nb; i++)
		rc = compare_gather_run(&s, run_at(a, na, b, i), i, out->time_base, scale);
	if (rc == 0)
		rc = match_renamed(&s, na, out);
	if (rc == 0) {
		compare_obs_set__sort(&s);
		rc = check_build_ids(s.v, s.n, out);
	}
	if (rc == 0) {
		struct items_ctx c = {out, na, nb, side_period(&s, 0, na),
				      side_period(&s, na, na + nb), {0}, 0};
		rc = build_items(&c, &s);
	}
	compare_obs_set__release(&s);
	if (rc == 0 && out->nr_items > 1)
		qsort(out->items, out->nr_items, sizeof(*out->items), item_cmp);
	return rc;
}

void compare_result__release(struct compare_result *r)
{
	for (size_t i = 0; i < r->nr_items; i++) {
		xfree(r->items[i].name);
		xfree(r->items[i].module);
	}
	for (size_t i = 0; i < r->nr_notes; i++) {
		xfree(r->notes[i].a_value);
		xfree(r->notes[i].b_value);
	}
	xfree(r->items);
	xfree(r->notes);
	memset(r, 0, sizeof(*r));
}

bool compare_item__regression(const struct compare_item *it, double pct)
{
	return (it->kind == COMPARE_TOTAL || it->kind == COMPARE_HOTSPOT) &&
	       it->status == COMPARE_MATCHED && it->significant && it->ratio > 1 + pct / 100;
}

size_t compare_regressions(const struct compare_result *r, double pct)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nr_items; i++)
		n += compare_item__regression(&r->items[i], pct);
	return n;
}
