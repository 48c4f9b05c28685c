// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/analysis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/imbalance.h"
#include "analysis/threads.h"
#include "common/alloc.h"

#define R_NO_TIME_BASE "no time-base counter in this Run"
#define R_NO_FLOPS "no flops_dp raw counter in this Run"
#define R_NO_DRAM "no dram_bytes raw counter in this Run"
#define R_NO_CLOCK "no clock counter in this Run: flop/s needs a time base in seconds"
#define R_NO_CEILING "the Machine carries no flops_dp or dram_bandwidth Ceiling"
#define R_PRECISION                                                                       \
	"FLOPs not split by precision on this microarchitecture; compared against the " \
	"double-precision peak"
#define R_NO_DRAM_HERE "no DRAM fill was sampled in this Hotspot"
#define R_ONE_LOCUS_HERE "time on one Locus only: imbalance needs time on at least two"
#define R_APART "its Loci belong to ranks that ran as separate MPI worlds (launcher and MPI " \
		"library do not match: mpi-separate-worlds): separate jobs are not compared"

/* Counter names ever seen with their lowest pass: a counter sampled in
 * several passes counts only in its lowest one. */
struct counter_pass {
	const char *name;
	int pass;
};

struct sum {
	double value;
	int64_t samples;
	enum quality q;
	char *reason;
	bool present;
};

struct locus_acc {
	int64_t locus;
	double time, clock;
	int64_t samples; /* time-base samples */
};

struct hs_acc {
	struct sum time, flops, dram, clock;
	struct locus_acc *loci;
	size_t nr_loci, cap_loci;
};

/* True when the "; "-separated list `list` already holds the part p[0..n). */
static bool has_part(const char *list, const char *p, size_t n)
{
	for (const char *q = list; q && *q;) {
		const char *sep = strstr(q, "; ");
		size_t len = sep ? (size_t)(sep - q) : strlen(q);
		if (len == n && memcmp(q, p, n) == 0)
			return true;
		q = sep ? sep + 2 : NULL;
	}
	return false;
}

/* Appends the parts of src missing from *acc (a fresh string, or NULL). */
static int append_parts(char **acc, const char *src)
{
	for (const char *p = src; p && *p;) {
		const char *sep = strstr(p, "; ");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);
		if (n && !has_part(*acc, p, n)) {
			char *j = *acc ? xasprintf("%s; %.*s", *acc, (int)n, p)
				       : xstrndup(p, n);
			if (!j)
				return -ENOMEM;
			xfree(*acc);
			*acc = j;
		}
		p = sep ? sep + 2 : NULL;
	}
	return 0;
}

char *analysis_join_reasons(const char *a, const char *b)
{
	/* Reasons are lists joined with "; ": each part appears once, in the
	 * order first met, however many inputs carried it. */
	char *out = NULL;
	if (append_parts(&out, a) < 0 || append_parts(&out, b) < 0) {
		xfree(out);
		return NULL;
	}
	return out;
}

static void sum_add(struct sum *s, const struct measurement *m)
{
	s->present = true;
	s->value += m->value;
	s->samples += m->sample_count > 0 ? m->sample_count : 0;
	s->q = quality__worst(s->q, m->quality);
	if (m->reason) {
		char *r = analysis_join_reasons(s->reason, m->reason);
		xfree(s->reason);
		s->reason = r;
	}
}

static bool is_clock(const char *c)
{
	return c && (strcmp(c, "task-clock") == 0 || strcmp(c, "cpu-clock") == 0);
}

static int lowest_passes(const struct pivot *p, struct counter_pass **out, size_t *nr)
{
	size_t cap = 0;
	*out = NULL;
	*nr = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot == PIVOT_NONE || !m->counter)
			continue;
		size_t k = 0;
		while (k < *nr && strcmp((*out)[k].name, m->counter) != 0)
			k++;
		if (k < *nr) {
			if (m->pass_index < (*out)[k].pass)
				(*out)[k].pass = m->pass_index;
			continue;
		}
		if (xgrow((void **)out, &cap, *nr + 1, sizeof(**out)))
			return -ENOMEM;
		(*out)[(*nr)++] = (struct counter_pass){m->counter, m->pass_index};
	}
	return 0;
}

static bool counts(const struct counter_pass *cp, size_t nr, const struct measurement *m)
{
	for (size_t k = 0; k < nr; k++)
		if (strcmp(cp[k].name, m->counter) == 0)
			return m->pass_index == cp[k].pass;
	return false;
}

static int locus_add(struct hs_acc *h, int64_t locus, double time, double clock,
		     int64_t samples)
{
	for (size_t i = 0; i < h->nr_loci; i++)
		if (h->loci[i].locus == locus) {
			h->loci[i].time += time;
			h->loci[i].clock += clock;
			h->loci[i].samples += samples;
			return 0;
		}
	if (xgrow((void **)&h->loci, &h->cap_loci, h->nr_loci + 1, sizeof(*h->loci)))
		return -ENOMEM;
	h->loci[h->nr_loci++] = (struct locus_acc){locus, time, clock, samples};
	return 0;
}

/* The flop counter is the first of flops_dp, flops (REFERENCE.md §6). */
static int accumulate(const struct pivot *p, const char *tb, struct hs_acc *acc)
{
	struct counter_pass *cp = NULL;
	size_t ncp = 0;
	int rc = lowest_passes(p, &cp, &ncp);
	bool have_dp = false;
	for (size_t k = 0; k < ncp; k++)
		have_dp |= strcmp(cp[k].name, "flops_dp") == 0;
	const char *flop_counter = have_dp ? "flops_dp" : "flops";
	for (size_t i = 0; rc == 0 && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || (size_t)m->hotspot >= p->nr_hotspots || !m->counter ||
		    !counts(cp, ncp, m))
			continue;
		struct hs_acc *h = &acc[m->hotspot];
		bool usable = m->quality != QUALITY_UNAVAILABLE;
		double t = 0, c = 0;
		if (tb && strcmp(m->counter, tb) == 0) {
			sum_add(&h->time, m);
			t = usable ? m->value : 0;
		}
		if (is_clock(m->counter) && (!tb || strcmp(m->counter, tb) == 0 || !is_clock(tb))) {
			sum_add(&h->clock, m);
			c = usable ? m->value : 0;
		}
		if (strcmp(m->counter, flop_counter) == 0)
			sum_add(&h->flops, m);
		if (strcmp(m->counter, "dram_bytes") == 0)
			sum_add(&h->dram, m);
		if (t > 0 || c > 0)
			rc = locus_add(h, m->locus, t, c, t > 0 && m->sample_count > 0 ? m->sample_count : 0);
	}
	xfree(cp);
	return rc;
}

static void derived_set(struct derived *d, const char *name, const char *unit,
			const char *formula)
{
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->unit = unit;
	d->formula = formula;
	d->value = NAN;
	d->quality = QUALITY_UNAVAILABLE;
}

static void derived_unavailable(struct derived *d, const char *reason)
{
	d->value = NAN;
	d->quality = QUALITY_UNAVAILABLE;
	xfree(d->reason);
	d->reason = xstrdup(reason);
}

/* Sets value and quality; measured values carry no reason. */
static void derived_value(struct derived *d, double v, enum quality q, const char *r1,
			  const char *r2)
{
	d->value = v;
	d->quality = q;
	xfree(d->reason);
	d->reason = NULL;
	if (q != QUALITY_MEASURED)
		d->reason = analysis_join_reasons(r1, r2);
}

static void lineage(struct derived *d, const char *a, const char *b, const char *c)
{
	d->lineage[0] = a;
	d->lineage[1] = b;
	d->lineage[2] = c;
}

/* No DRAM fill sampled in a pass that sampled them: the bytes are below the
 * bound, so the intensity is above flops / bound, a value (issue 24). */
static void intensity_bound(struct derived *d, const struct hs_acc *h, double below)
{
	char why[200];
	d->formula = "flops / dram_bytes_below (no DRAM fill sampled: dram_bytes < period x 64)";
	d->bound = "lower";
	snprintf(why, sizeof(why), "a lower bound: the pass that sampled the DRAM fills recorded "
		 "none, so fewer than %.3g bytes moved; demand fills only", below);
	derived_value(d, h->flops.value / below, QUALITY_ESTIMATED, h->flops.reason, why);
}

static void derive_intensity(struct diagnostic *g, const struct hs_acc *h, bool have_flops,
			     bool have_dram, const char *flop_counter, double dram_below)
{
	struct derived *d = &g->dram_intensity;
	derived_set(d, "dram_intensity", "flop/byte", "flops / dram_bytes");
	lineage(d, flop_counter, "dram_bytes", NULL);
	if (!have_flops)
		return derived_unavailable(d, R_NO_FLOPS);
	if (!have_dram && dram_below > 0 && h->flops.value > 0 &&
	    h->flops.q != QUALITY_UNAVAILABLE)
		return intensity_bound(d, h, dram_below);
	if (!have_dram)
		return derived_unavailable(d, R_NO_DRAM);
	if (!(h->dram.value > 0) || h->dram.q == QUALITY_UNAVAILABLE ||
	    h->flops.q == QUALITY_UNAVAILABLE)
		return derived_unavailable(d, h->dram.present ? h->dram.reason : R_NO_DRAM_HERE);
	enum quality q = quality__worst(h->flops.q, h->dram.q);
	char *r = analysis_join_reasons(h->flops.reason, h->dram.reason);
	const char *prec = strcmp(flop_counter, "flops") == 0 ? R_PRECISION : NULL;
	if (prec)
		q = quality__worst(q, QUALITY_ESTIMATED);
	derived_value(d, h->flops.value / h->dram.value, q, r, prec);
	xfree(r);
}

static void derive_achieved(struct diagnostic *g, const struct hs_acc *h, bool have_flops,
			    bool have_clock, const char *flop_counter)
{
	struct derived *d = &g->achieved;
	derived_set(d, "achieved", "flop/s", "flops / (max over Loci of clock ns / 1e9)");
	lineage(d, flop_counter, "task-clock", NULL);
	if (!have_flops)
		return derived_unavailable(d, R_NO_FLOPS);
	if (!have_clock)
		return derived_unavailable(d, R_NO_CLOCK);
	/* Loci run concurrently: the wall time of a Hotspot is approximated by
	 * its most-loaded Locus. */
	double max_clock = 0;
	for (size_t i = 0; i < h->nr_loci; i++)
		if (h->loci[i].clock > max_clock)
			max_clock = h->loci[i].clock;
	if (!(max_clock > 0) || h->flops.q == QUALITY_UNAVAILABLE)
		return derived_unavailable(d, R_NO_CLOCK);
	enum quality q = quality__worst(h->flops.q, h->clock.q);
	const char *prec = strcmp(flop_counter, "flops") == 0 ? R_PRECISION : NULL;
	if (prec)
		q = quality__worst(q, QUALITY_ESTIMATED);
	char *r = analysis_join_reasons(h->flops.reason, h->clock.reason);
	derived_value(d, h->flops.value / (max_clock / 1e9), q, r, prec);
	xfree(r);
}

static void derive_envelope(struct diagnostic *g, const struct analysis *a)
{
	struct derived *d = &g->attainable, *f = &g->envelope_fraction;
	derived_set(d, "attainable", "flop/s", "min(flops_dp, dram_bandwidth * dram_intensity)");
	lineage(d, "flops_dp", "dram_bandwidth", "dram_intensity");
	derived_set(f, "envelope_fraction", "ratio", "achieved / attainable");
	lineage(f, "achieved", "attainable", NULL);
	if (!a->have_ceilings) {
		derived_unavailable(d, R_NO_CEILING);
		return derived_unavailable(f, R_NO_CEILING);
	}
	const struct derived *I = &g->dram_intensity;
	const struct ceiling *peak = a->flops_ceiling, *bw = a->bw_ceiling;
	double mem = bw->value * I->value;
	/* A lower bound of the intensity places a Hotspot only at or right of
	 * the ridge, where the roof is flat: below it, nothing is known. */
	if (I->quality != QUALITY_UNAVAILABLE && I->bound && mem < peak->value) {
		derived_unavailable(d, "the DRAM intensity is only a lower bound, left of the ridge");
		return derived_unavailable(f, d->reason);
	}
	if (I->quality == QUALITY_UNAVAILABLE) {
		derived_unavailable(d, I->reason);
		return derived_unavailable(f, I->reason);
	}
	enum quality q = quality__worst(I->quality, quality__worst(peak->quality, bw->quality));
	char *r = analysis_join_reasons(I->reason, peak->reason);
	char *r2 = analysis_join_reasons(r, bw->reason);
	derived_value(d, mem < peak->value ? mem : peak->value, q, r2, NULL);
	xfree(r);
	xfree(r2);
	const struct derived *A = &g->achieved;
	if (A->quality == QUALITY_UNAVAILABLE || !(d->value > 0))
		return derived_unavailable(f, A->reason ? A->reason : R_NO_CLOCK);
	char *r3 = analysis_join_reasons(A->reason, d->reason);
	derived_value(f, A->value / d->value, quality__worst(A->quality, d->quality), r3, NULL);
	xfree(r3);
}

/* A ratio over Loci that hold a handful of samples is noise shown as a fact:
 * only application Loci (not MPI runtime helper threads, analysis/threads.h)
 * holding at least the statistical floor of samples in this Hotspot enter
 * it. Loci left out below the floor make it estimated: the least-loaded of
 * them may have done almost nothing here, which the ratio no longer says. */
static void derive_imbalance(struct diagnostic *g, const struct hs_acc *h, const char *tb,
			     int floor_samples, size_t run_loci, const struct locus_roles *roles,
			     bool apart)
{
	struct derived *d = &g->imbalance;
	derived_set(d, "imbalance", "ratio",
		    "max / min over application Loci above the floor of the time base");
	lineage(d, tb, NULL, NULL);
	double mx = 0, mn = INFINITY;
	size_t above = 0, below = 0;
	for (size_t i = 0; i < h->nr_loci; i++) {
		double t = h->loci[i].time;
		if (!(t > 0) || locus_roles__is_helper(roles, h->loci[i].locus))
			continue;
		if (h->loci[i].samples < floor_samples) {
			below++;
			continue;
		}
		above++;
		mx = t > mx ? t : mx;
		mn = t < mn ? t : mn;
	}
	if (!(h->time.value > 0))
		return derived_unavailable(d, R_NO_TIME_BASE);
	/* One Locus in the Run: max / min over one Locus is 1.0, measured, the
	 * reference's figure for a single-process Run (issue 24). */
	if (run_loci < 2)
		return derived_value(d, 1.0, h->time.q, h->time.reason, NULL);
	if (apart)
		return derived_unavailable(d, R_APART);
	char why[200];
	if (above + below < 2)
		return derived_unavailable(d, R_ONE_LOCUS_HERE);
	if (above < 2) {
		snprintf(why, sizeof(why),
			 "%zu of the %zu application Loci with time here hold%s the statistical "
			 "floor of %d samples: imbalance needs two",
			 above, above + below, above == 1 ? "s" : "", floor_samples);
		return derived_unavailable(d, why);
	}
	enum quality q = h->time.q;
	why[0] = '\0';
	if (below) {
		snprintf(why, sizeof(why),
			 "over the %zu Loci above the statistical floor of %d samples; %zu "
			 "below it left out",
			 above, floor_samples, below);
		q = quality__worst(q, QUALITY_ESTIMATED);
	}
	derived_value(d, mx / mn, q, h->time.reason, why[0] ? why : NULL);
}

/* Classification states a regime, never a cause (REFERENCE.md §6). */
static void classify(struct diagnostic *g, const struct analysis *a)
{
	if (g->imbalance.quality != QUALITY_UNAVAILABLE &&
	    g->imbalance.value >= ANALYSIS_IMBALANCE_RATIO) {
		g->classification = "imbalance";
		return;
	}
	const struct derived *I = &g->dram_intensity, *F = &g->envelope_fraction;
	if (I->quality == QUALITY_UNAVAILABLE || F->quality == QUALITY_UNAVAILABLE) {
		const char *r = I->quality == QUALITY_UNAVAILABLE ? I->reason : F->reason;
		g->classification_reason = xstrdup(r ? r : R_NO_CEILING);
		return;
	}
	if (F->value < ANALYSIS_LATENCY_FRACTION)
		g->classification = "latency-bound";
	else if (I->value < a->flops_ceiling->value / a->bw_ceiling->value)
		g->classification = "memory-bound";
	else
		g->classification = "compute-bound";
}

static void find_ceilings(struct analysis *a, const struct ceiling *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		if (!c[i].name || c[i].quality == QUALITY_UNAVAILABLE || !(c[i].value > 0))
			continue;
		if (strcmp(c[i].name, "flops_dp") == 0)
			a->flops_ceiling = &c[i];
		else if (strcmp(c[i].name, "dram_bandwidth") == 0)
			a->bw_ceiling = &c[i];
	}
	a->have_ceilings = a->flops_ceiling && a->bw_ceiling;
}

static int by_share_desc(const void *x, const void *y)
{
	const struct diagnostic *a = x, *b = y;
	if (a->time_value != b->time_value)
		return a->time_value < b->time_value ? 1 : -1;
	return a->hotspot < b->hotspot ? -1 : a->hotspot > b->hotspot;
}

static void totals(const struct pivot *p, const struct hs_acc *acc, const struct locus_roles *roles,
		   struct analysis *a)
{
	for (size_t i = 0; i < p->nr_hotspots; i++) {
		a->samples += acc[i].time.samples;
		a->time_value += acc[i].time.value;
	}
	bool *seen = xcalloc(p->nr_loci ? p->nr_loci : 1, sizeof(*seen));
	for (size_t h = 0; seen && h < p->nr_hotspots; h++)
		for (size_t k = 0; k < acc[h].nr_loci; k++) {
			int64_t l = acc[h].loci[k].locus;
			if (l >= 0 && (size_t)l < p->nr_loci && !seen[l]) {
				seen[l] = true;
				if (!locus_roles__is_helper(roles, l))
					a->nr_loci++;
			}
		}
	xfree(seen);
	/* every helper, sampled or not: the Ranks section and the time budget
	 * count the same threads (analysis/threads.h) */
	a->nr_helper_loci = roles ? roles->nr_helpers : 0;
	a->seconds = is_clock(a->time_base) ? a->time_value / 1e9 : NAN;
}

static void diagnose_one(struct diagnostic *g, const struct hs_acc *h, const struct analysis *a,
			 const bool have[3], const char *flop_counter, const struct locus_roles *roles)
{
	g->samples = h->time.samples;
	g->time_value = h->time.value;
	g->relative_error = g->samples > 0 ? 1.0 / sqrt((double)g->samples) : NAN;
	derived_set(&g->share, "share", "ratio", "time_base(H) / time_base(all sampled)");
	lineage(&g->share, a->time_base, NULL, NULL);
	derived_value(&g->share, a->time_value > 0 ? h->time.value / a->time_value : NAN,
		      h->time.q, h->time.reason, NULL);
	derive_intensity(g, h, have[0], have[1], flop_counter, a->dram_bytes_below);
	derive_achieved(g, h, have[0], have[2], flop_counter);
	derive_envelope(g, a);
	derive_imbalance(g, h, a->time_base, a->floor_samples, a->nr_loci, roles,
			 a->separate_worlds > 0);
	classify(g, a);
}

static bool pivot_has(const struct pivot *p, const char *counter)
{
	for (size_t i = 0; i < p->nr_measurements; i++)
		if (p->measurements[i].hotspot != PIVOT_NONE && p->measurements[i].counter &&
		    strcmp(p->measurements[i].counter, counter) == 0)
			return true;
	return false;
}

int analysis_run(const struct pivot *p, const struct ceiling *ceilings, size_t nr_ceilings,
		 int floor_samples, struct analysis *a)
{
	return analysis_run_bounded(p, ceilings, nr_ceilings, floor_samples, NAN, a);
}

int analysis_run_bounded(const struct pivot *p, const struct ceiling *ceilings,
			 size_t nr_ceilings, int floor_samples, double dram_bytes_below,
			 struct analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->dram_bytes_below = dram_bytes_below;
	a->floor_samples = floor_samples > 0 ? floor_samples : ANALYSIS_FLOOR_SAMPLES;
	a->time_base = pivot__time_base(p);
	a->time_unit = is_clock(a->time_base) ? "ns" : a->time_base;
	a->separate_worlds = imbalance_own_world(p, -1, NULL);
	find_ceilings(a, ceilings, nr_ceilings);
	struct hs_acc *acc = xcalloc(p->nr_hotspots ? p->nr_hotspots : 1, sizeof(*acc));
	struct locus_roles roles = {0};
	int rc = acc ? accumulate(p, a->time_base, acc) : -ENOMEM;
	if (rc == 0)
		rc = locus_roles(p, a->time_base, &roles);
	if (rc == 0) {
		totals(p, acc, &roles, a);
		a->helper_share = roles.all_time > 0 ? roles.helper_time / roles.all_time : NAN;
	}
	const char *flop_counter = pivot_has(p, "flops_dp") ? "flops_dp" : "flops";
	const bool have[3] = {pivot_has(p, flop_counter), pivot_has(p, "dram_bytes"),
			      pivot_has(p, "task-clock") || pivot_has(p, "cpu-clock")};
	size_t cap = 0;
	for (size_t i = 0; rc == 0 && i < p->nr_hotspots; i++) {
		const struct hs_acc *h = &acc[i];
		/* No usable total (every time value unavailable): the shares are
		 * unavailable too, never 0 (the payload writes null, the summary says so). */
		double share = a->time_value > 0 ? h->time.value / a->time_value : NAN;
		if (p->hotspots[i].level == RESOLUTION_UNRESOLVED && h->time.samples > 0) {
			a->unresolved_share += share;
			a->nr_unresolved++;
		}
		if (h->time.samples < a->floor_samples) {
			a->others_count += h->time.samples > 0;
			a->others_share += share;
			continue;
		}
		if (xgrow((void **)&a->diags, &cap, a->nr_diags + 1, sizeof(*a->diags))) {
			rc = -ENOMEM;
			break;
		}
		struct diagnostic *g = &a->diags[a->nr_diags++];
		memset(g, 0, sizeof(*g));
		g->hotspot = (int64_t)i;
		diagnose_one(g, h, a, have, flop_counter, &roles);
	}
	if (rc == 0 && a->nr_diags)
		qsort(a->diags, a->nr_diags, sizeof(*a->diags), by_share_desc);
	for (size_t i = 0; acc && i < p->nr_hotspots; i++) {
		xfree(acc[i].loci);
		xfree(acc[i].time.reason);
		xfree(acc[i].flops.reason);
		xfree(acc[i].dram.reason);
		xfree(acc[i].clock.reason);
	}
	xfree(acc);
	locus_roles__release(&roles);
	if (rc)
		analysis__release(a);
	return rc;
}

void diagnostic__release(struct diagnostic *g)
{
	struct derived *all[] = {&g->share,	 &g->dram_intensity,    &g->achieved,
				 &g->attainable, &g->envelope_fraction, &g->imbalance};
	for (size_t k = 0; k < 6; k++)
		xfree(all[k]->reason);
	xfree(g->classification_reason);
	memset(g, 0, sizeof(*g));
}

#define R_REGION_NO_FLOP "no floating-point operation count for this region (scope_profiler's " \
			 "SCOPE_PROFILER_EVENTS named no flop event, or the region ran on several " \
			 "call paths of a thread)"
#define R_REGION_NO_BYTES "no memory-traffic (bytes) count for this region (scope_profiler's " \
			  "SCOPE_PROFILER_EVENTS named no bytes event, or the region ran on several " \
			  "call paths of a thread)"

void analysis_place_region(const struct analysis *a, const struct region_counts *rc,
			   struct diagnostic *g)
{
	memset(g, 0, sizeof(*g));
	g->hotspot = -1;
	derived_set(&g->share, "share", "ratio", NULL);
	derived_unavailable(&g->share, "a region is timed, not sampled: it has no share of the "
				       "sampled time");
	derived_set(&g->imbalance, "imbalance", "ratio", NULL);
	derived_unavailable(&g->imbalance, "not computed for regions");
	struct derived *I = &g->dram_intensity, *A = &g->achieved;
	derived_set(I, "dram_intensity", "flop/byte", "region flop / region dram_bytes");
	lineage(I, "region flop", "region dram_bytes", NULL);
	derived_set(A, "achieved", "flop/s",
		    "region flop / (max over Loci of the region's inclusive ns / 1e9)");
	lineage(A, "region flop", "region inclusive_ns", NULL);
	if (!rc->have_flop) {
		derived_unavailable(I, R_REGION_NO_FLOP);
		derived_unavailable(A, R_REGION_NO_FLOP);
	} else {
		if (!rc->have_bytes)
			derived_unavailable(I, R_REGION_NO_BYTES);
		else if (!(rc->dram_bytes > 0))
			derived_unavailable(I, "the region moved no counted byte: its intensity "
					       "is unbounded");
		else
			derived_value(I, rc->flop / rc->dram_bytes, rc->quality, rc->reason, NULL);
		if (!(rc->max_locus_ns > 0))
			derived_unavailable(A, "the region has no measured time");
		else
			derived_value(A, rc->flop / (rc->max_locus_ns / 1e9), rc->quality,
				      rc->reason, NULL);
	}
	derive_envelope(g, a);
	classify(g, a);
}

void analysis__release(struct analysis *a)
{
	for (size_t i = 0; a && i < a->nr_diags; i++)
		diagnostic__release(&a->diags[i]);
	if (a) {
		xfree(a->diags);
		memset(a, 0, sizeof(*a));
	}
}
