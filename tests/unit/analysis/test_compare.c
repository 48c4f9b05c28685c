// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak compare`'s matching, intervals and refusals on pivots built by
 * hand: logical identity across rebuilds, new and vanished Hotspots, the
 * floor, sampling rates normalised, Machines and rank counts refused. */
#include <math.h>

#include "harness.h"

#include "analysis/compare.h"
#include "analysis/stats.h"

#define PERIOD_NS 1000000.0 /* 1 kHz */

static int64_t hotspot(struct pivot *p, const char *module, const char *build_id, const char *name)
{
	struct hotspot h = {.module = (char *)module, .build_id = (char *)build_id,
			    .name = (char *)name, .level = RESOLUTION_FUNCTION, .has_offset = true,
			    .offset = 0x1000};
	return pivot__add_hotspot(p, &h);
}

static void samples(struct pivot *p, int64_t h, int64_t n, double period_ns)
{
	int64_t l = pivot__intern_locus(p, "node", -1, 42);
	struct measurement m = {.hotspot = h, .locus = l, .counter = (char *)"task-clock",
				.value = (double)n * period_ns, .unit = (char *)"ns",
				.sample_count = n, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* A build of "app" in dir with `work` samples in kernel() and `other` in
 * other(); `extra` names a function only this build has (60 samples). */
static void build(struct pivot *p, const char *module, const char *build_id, int64_t work,
		  int64_t other, const char *extra, double period_ns)
{
	pivot__init(p);
	samples(p, hotspot(p, module, build_id, "kernel"), work, period_ns);
	samples(p, hotspot(p, module, build_id, "other"), other, period_ns);
	samples(p, hotspot(p, "/usr/lib/libc.so.6", "c0ffee", "memcpy"), 3, period_ns);
	if (extra)
		samples(p, hotspot(p, module, build_id, extra), 60, period_ns);
}

static const struct compare_item *find(const struct compare_result *r, enum compare_kind k,
				       const char *name)
{
	for (size_t i = 0; i < r->nr_items; i++)
		if (r->items[i].kind == k && (!name || (r->items[i].name &&
							!strcmp(r->items[i].name, name))))
			return &r->items[i];
	return NULL;
}

static struct compare_run run_of(const struct pivot *p, const char *id, int world, double hz)
{
	return (struct compare_run){id, world, hz, p};
}

static void t_rebuild_doubles(void)
{
	struct pivot pa, pb;
	build(&pa, "/tmp/a/app", "aaaa", 700, 300, "gone", PERIOD_NS);
	build(&pb, "/tmp/b/app", "bbbb", 1400, 300, "fresh", PERIOD_NS);
	struct compare_run a = run_of(&pa, "0123456789abcdef", -1, 1000);
	struct compare_run b = run_of(&pb, "0123456789abcdef", -1, 1000);
	struct compare_result r;
	CHECK_INT(compare_runs(&a, 1, &b, 1, false, &r), 0);
	CHECK(!r.refused);
	CHECK_STR(r.unit, "s");
	const struct compare_item *k = find(&r, COMPARE_HOTSPOT, "kernel");
	CHECK(k && k->status == COMPARE_MATCHED && !k->build_id_same);
	CHECK_NEAR(k->a, 0.7, 1e-12);
	CHECK_NEAR(k->b, 1.4, 1e-12);
	CHECK_NEAR(k->ratio, 2.0, 1e-12);
	double lo, hi;
	CHECK_INT(stats_poisson_ratio(700, 1400, 0.95, &lo, &hi), 0);
	CHECK_NEAR(k->low, lo, 1e-12);
	CHECK_NEAR(k->high, hi, 1e-12);
	CHECK(k->significant && k->direction == 1 && k->basis == COMPARE_BASIS_POISSON);
	CHECK_INT(k->interval_quality, QUALITY_ESTIMATED);
	const struct compare_item *o = find(&r, COMPARE_HOTSPOT, "other");
	CHECK(o && !o->significant && o->low < 1 && o->high > 1);
	/* Sorted: the significant change first. */
	CHECK(find(&r, COMPARE_HOTSPOT, NULL) == k || find(&r, COMPARE_HOTSPOT, NULL)->significant);
	const struct compare_item *g = find(&r, COMPARE_HOTSPOT, "gone");
	const struct compare_item *f = find(&r, COMPARE_HOTSPOT, "fresh");
	CHECK(g && g->status == COMPARE_VANISHED && f && f->status == COMPARE_NEW);
	CHECK(isnan(f->ratio) && isinf(f->high) && f->low > 1.05 && f->significant);
	/* memcpy (3 samples) is below the floor on both sides: pooled. */
	CHECK(!find(&r, COMPARE_HOTSPOT, "memcpy"));
	const struct compare_item *oth = find(&r, COMPARE_OTHERS, NULL);
	CHECK(oth && oth->nr_members == 1 && oth->a_samples == 3);
	const struct compare_item *t = find(&r, COMPARE_TOTAL, NULL);
	CHECK(t && t->a_samples == 1063 && t->b_samples == 1763);
	/* The rebuild is flagged once, for app; the libc build is the same. */
	size_t nb = 0;
	for (size_t i = 0; i < r.nr_notes; i++)
		if (r.notes[i].kind == COMPARE_NOTE_BUILD_ID) {
			nb++;
			CHECK_STR(r.notes[i].a_value, "app");
			CHECK(!r.notes[i].refusal);
		}
	CHECK_INT(nb, 1);
	/* The gate counts kernel and the total, not the new function. */
	CHECK_INT(compare_regressions(&r, 10), 2);
	CHECK_INT(compare_regressions(&r, 150), 0);
	compare_result__release(&r);
	pivot__release(&pa);
	pivot__release(&pb);
}

/* B sampled at 4 kHz: 4x the samples for the same time; compared in seconds. */
static void t_rates_normalised(void)
{
	struct pivot pa, pb;
	build(&pa, "/x/app", "aa", 500, 200, NULL, PERIOD_NS);
	build(&pb, "/x/app", "aa", 2000, 800, NULL, PERIOD_NS / 4);
	struct compare_run a = run_of(&pa, "0123456789abcdef", -1, 1000);
	struct compare_run b = run_of(&pb, "0123456789abcdef", -1, 4000);
	struct compare_result r;
	CHECK_INT(compare_runs(&a, 1, &b, 1, false, &r), 0);
	const struct compare_item *k = find(&r, COMPARE_HOTSPOT, "kernel");
	CHECK(k && k->build_id_same);
	CHECK_NEAR(k->ratio, 1.0, 1e-12);
	CHECK(!k->significant && k->low < 1 && k->high > 1);
	bool rate = false;
	for (size_t i = 0; i < r.nr_notes; i++)
		rate |= r.notes[i].kind == COMPARE_NOTE_RATE && !r.notes[i].refusal &&
			!strcmp(r.notes[i].b_value, "4000");
	CHECK(rate);
	compare_result__release(&r);
	pivot__release(&pa);
	pivot__release(&pb);
}

static void t_refusals(void)
{
	struct pivot pa, pb;
	build(&pa, "/x/app", "aa", 500, 200, NULL, PERIOD_NS);
	build(&pb, "/x/app", "aa", 500, 200, NULL, PERIOD_NS);
	struct compare_run a = run_of(&pa, "0123456789abcdef", -1, 1000);
	struct compare_run b = run_of(&pb, "fedcba9876543210", -1, 1000);
	struct compare_result r;
	CHECK_INT(compare_runs(&a, 1, &b, 1, false, &r), 0);
	CHECK(r.refused && r.nr_items == 0 && r.nr_notes == 1);
	CHECK_INT(r.notes[0].kind, COMPARE_NOTE_MACHINE);
	CHECK_STR(r.notes[0].b_value, "fedcba9876543210");
	compare_result__release(&r);
	CHECK_INT(compare_runs(&a, 1, &b, 1, true, &r), 0);
	CHECK(!r.refused && r.nr_items > 0 && r.notes[0].forced);
	compare_result__release(&r);
	b = run_of(&pb, "0123456789abcdef", 4, 1000);
	CHECK_INT(compare_runs(&a, 1, &b, 1, false, &r), 0);
	CHECK(r.refused && r.notes[0].kind == COMPARE_NOTE_RANKS);
	CHECK_STR(r.notes[0].a_value, "0");
	CHECK_STR(r.notes[0].b_value, "4");
	compare_result__release(&r);
	pivot__release(&pa);
	pivot__release(&pb);
}

/* Three Runs per side: the t interval on the log times, widened to the
 * Poisson interval of the summed counts when that is wider. */
static void t_repeated(void)
{
	struct pivot pa[3], pb[3];
	struct compare_run a[3], b[3];
	const int64_t wa[] = {700, 720, 690}, wb[] = {1390, 1410, 1405};
	for (int i = 0; i < 3; i++) {
		build(&pa[i], "/x/app", "aa", wa[i], 300, NULL, PERIOD_NS);
		build(&pb[i], "/x/app", "bb", wb[i], 300, NULL, PERIOD_NS);
		a[i] = run_of(&pa[i], "0123456789abcdef", -1, 1000);
		b[i] = run_of(&pb[i], "0123456789abcdef", -1, 1000);
	}
	struct compare_result r;
	CHECK_INT(compare_runs(a, 3, b, 3, false, &r), 0);
	const struct compare_item *k = find(&r, COMPARE_HOTSPOT, "kernel");
	CHECK(k && k->significant && k->interval_quality == QUALITY_MEASURED);
	CHECK(k->basis == COMPARE_BASIS_SPREAD || k->basis == COMPARE_BASIS_SPREAD_POISSON);
	double xa[3], xb[3];
	for (int i = 0; i < 3; i++) {
		xa[i] = (double)wa[i] * 1e-3;
		xb[i] = (double)wb[i] * 1e-3;
	}
	struct stats_t_interval t;
	CHECK_INT(stats_log_ratio_t(xa, 3, xb, 3, 0.95, &t), 0);
	double plo, phi;
	CHECK_INT(stats_poisson_ratio(2110, 4205, 0.95, &plo, &phi), 0);
	CHECK_NEAR(k->low, fmin(t.lo, plo), 1e-9);
	CHECK_NEAR(k->high, fmax(t.hi, phi), 1e-9);
	CHECK(k->low < 2 && k->high > 2);
	compare_result__release(&r);
	for (int i = 0; i < 3; i++) {
		pivot__release(&pa[i]);
		pivot__release(&pb[i]);
	}
}

/* Two ranks with counted task-clock and a traced region: single Runs have
 * no interval for them (no sampling error, no spread); two Runs per side
 * give the region a t interval. */
static void mpi_run(struct pivot *p, double rank1_ms, double region_ms)
{
	pivot__init(p);
	int64_t h = hotspot(p, "/x/solver", "aa", "solve");
	for (int r = 0; r < 2; r++) {
		int64_t l = pivot__intern_locus(p, "n1", r, -1);
		double ms = r ? rank1_ms : 500;
		struct measurement c = {.hotspot = PIVOT_NONE, .locus = l, .counter = (char *)"task-clock",
					.value = ms * 1e6, .unit = (char *)"ns", .sample_count = -1,
					.coverage = 1};
		CHECK(pivot__add_measurement(p, &c) >= 0);
		struct measurement m = c;
		m.hotspot = h;
		m.sample_count = (int64_t)ms;
		m.coverage = -1;
		CHECK(pivot__add_measurement(p, &m) >= 0);
		struct region_stat rs = {.locus = l, .path = (char *)"main > step", .name = (char *)"step",
					 .calls = 10, .inclusive_ns = (int64_t)(region_ms * 1e6),
					 .exclusive_ns = (int64_t)(region_ms * 1e6)};
		CHECK(pivot__add_region_stat(p, &rs) >= 0);
	}
}

static void t_regions_ranks(void)
{
	struct pivot pa[2], pb[2];
	struct compare_run a[2], b[2];
	for (int i = 0; i < 2; i++) {
		mpi_run(&pa[i], 500, 100 + i);
		mpi_run(&pb[i], 1000, 200 + i);
		a[i] = run_of(&pa[i], "0123456789abcdef", 2, 1000);
		b[i] = run_of(&pb[i], "0123456789abcdef", 2, 1000);
	}
	struct compare_result r;
	CHECK_INT(compare_runs(a, 1, b, 1, false, &r), 0);
	CHECK(!r.refused);
	const struct compare_item *k = find(&r, COMPARE_RANK, "rank 1");
	CHECK(k && k->rank == 1 && k->a_samples == -1);
	CHECK_STR(k->unit, "s");
	CHECK_NEAR(k->ratio, 2.0, 1e-12);
	CHECK(k->basis == COMPARE_BASIS_NONE && k->interval_quality == QUALITY_UNAVAILABLE);
	CHECK(isnan(k->low) && !k->significant);
	const struct compare_item *g = find(&r, COMPARE_REGION, "main > step");
	CHECK(g && g->basis == COMPARE_BASIS_NONE);
	CHECK_NEAR(g->a, 0.2, 1e-9); /* summed over the two ranks */
	compare_result__release(&r);
	CHECK_INT(compare_runs(a, 2, b, 2, false, &r), 0);
	g = find(&r, COMPARE_REGION, "main > step");
	CHECK(g && g->basis == COMPARE_BASIS_SPREAD && g->interval_quality == QUALITY_MEASURED);
	CHECK(g->significant && g->low > 1.05 && g->low < 2 && g->high > 2);
	compare_result__release(&r);
	for (int i = 0; i < 2; i++) {
		pivot__release(&pa[i]);
		pivot__release(&pb[i]);
	}
}

/* Per-address detail: 3/4 of kernel()'s samples on line 12, 1/4 on 13. */
static void add_lines(struct pivot *p, int64_t h, int64_t n)
{
	for (int k = 0; k < 2; k++) {
		struct address a = {.hotspot = h, .offset = 0x1000 + 4 * (uint64_t)k,
				    .counter = (char *)"task-clock",
				    .value = (double)(k ? n / 4 : n - n / 4) * PERIOD_NS,
				    .sample_count = k ? n / 4 : n - n / 4};
		struct frame f = {.hotspot = h, .offset = a.offset, .function = (char *)"kernel",
				  .file = (char *)"/src/app/kernel.c", .line = 12 + k};
		CHECK(pivot__add_address(p, &a) >= 0 && pivot__add_frame(p, &f) >= 0);
	}
}

static void t_lines(void)
{
	struct pivot pa, pb, pc;
	build(&pa, "/x/app", "aa", 400, 100, NULL, PERIOD_NS);
	build(&pb, "/y/app", "aa", 800, 100, NULL, PERIOD_NS);
	build(&pc, "/y/app", "cc", 800, 100, NULL, PERIOD_NS);
	add_lines(&pa, 0, 400);
	add_lines(&pb, 0, 800);
	add_lines(&pc, 0, 800);
	struct compare_run a = run_of(&pa, "0123456789abcdef", -1, 1000);
	struct compare_run b = run_of(&pb, "0123456789abcdef", -1, 1000);
	struct compare_result r;
	CHECK_INT(compare_runs(&a, 1, &b, 1, false, &r), 0);
	const struct compare_item *l12 = find(&r, COMPARE_LINE, "kernel at kernel.c:12");
	const struct compare_item *l13 = find(&r, COMPARE_LINE, "kernel at kernel.c:13");
	CHECK(l12 && l12->a_samples == 300 && l12->b_samples == 600 && l12->significant);
	CHECK(l13 && l13->a_samples == 100 && l13->b_samples == 200);
	CHECK_NEAR(l12->ratio, 2.0, 1e-12);
	compare_result__release(&r);
	/* Rebuilt (another build-id): lines are other code, not compared. */
	b = run_of(&pc, "0123456789abcdef", -1, 1000);
	CHECK_INT(compare_runs(&a, 1, &b, 1, false, &r), 0);
	CHECK(!find(&r, COMPARE_LINE, NULL));
	CHECK(find(&r, COMPARE_HOTSPOT, "kernel")->significant);
	compare_result__release(&r);
	pivot__release(&pa);
	pivot__release(&pb);
	pivot__release(&pc);
}

/* Issue 16: an unavailable value on one side is unknown, never 0: no ratio,
 * no interval, not "vanished", not significant. */
static void t_unavailable_side(void)
{
	double xa[] = {0.2}, xb[] = {NAN};
	struct compare_item it = {.kind = COMPARE_HOTSPOT, .a_samples = 200, .b_samples = 0,
				  .ratio_quality = QUALITY_UNAVAILABLE};
	compare_item__judge(&it, xa, 1, xb, 1, 1e-3, 1e-3, 0.95, 0.05);
	CHECK(it.status == COMPARE_MATCHED && isnan(it.b) && isnan(it.ratio));
	CHECK(isnan(it.low) && isnan(it.high) && !it.significant && it.direction == 0);
	CHECK(it.ratio_quality == QUALITY_UNAVAILABLE && it.interval_quality == QUALITY_UNAVAILABLE);
	/* the same with a real 0 on B is "vanished" (the data said so) */
	double zb[] = {0};
	struct compare_item z = {.kind = COMPARE_HOTSPOT, .a_samples = 200, .b_samples = 0};
	compare_item__judge(&z, xa, 1, zb, 1, 1e-3, 1e-3, 0.95, 0.05);
	CHECK(z.status == COMPARE_VANISHED && z.ratio_quality == QUALITY_MEASURED);
}

static const struct test_case cases[] = {
	{"unavailable_side", "an unavailable side: no ratio, never 0 or vanished", t_unavailable_side},
	{"lines", "lines compared only when the build-ids agree", t_lines},
	{"regions_ranks", "regions by path and ranks by number, intervals only when repeated", t_regions_ranks},
	{"rebuild_doubles", "a function twice as slow across a rebuild: matched, flagged", t_rebuild_doubles},
	{"rates_normalised", "different sampling rates compare in seconds, flagged", t_rates_normalised},
	{"refusals", "two Machines or rank counts refused; --force flags", t_refusals},
	{"repeated", "repeated Runs: t on log times, widened to Poisson", t_repeated},
};
TEST_MAIN(cases)
