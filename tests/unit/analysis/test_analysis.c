// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include <math.h>

#include "analysis/analysis.h"
#include "common/alloc.h"
#include "model/model.h"

static int64_t hs(struct pivot *p, const char *name, enum resolution level, uint64_t off)
{
	struct hotspot h = {.module = (char *)"/bin/app", .name = (char *)name, .level = level,
			    .offset = off, .has_offset = true};
	return pivot__add_hotspot(p, &h);
}

static void meas(struct pivot *p, int64_t h, int64_t locus, const char *counter, double v,
		 int64_t n, enum quality q, const char *reason, int pass)
{
	struct measurement m = {.hotspot = h, .locus = locus, .pass_index = pass,
				.counter = (char *)counter, .value = v,
				.unit = (char *)(strcmp(counter, "task-clock") == 0 ? "ns" : counter),
				.quality = q, .reason = (char *)reason, .sample_count = n,
				.coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* 1 ms per task-clock sample, as perf's 997 Hz period ~1003009 ns. */
#define MS 1e6

static void build(struct pivot *p)
{
	pivot__init(p);
	int64_t l0 = pivot__intern_locus(p, "node", -1, 100);
	int64_t a = hs(p, "hot", RESOLUTION_LINE, 0x1000);
	int64_t b = hs(p, "warm", RESOLUTION_FUNCTION, 0x2000);
	int64_t c = hs(p, NULL, RESOLUTION_UNRESOLVED, 0x3000); /* below the floor */
	int64_t d = hs(p, "tiny", RESOLUTION_FUNCTION, 0x4000);  /* below the floor */
	meas(p, a, l0, "task-clock", 600 * MS, 600, QUALITY_MEASURED, NULL, 0);
	meas(p, b, l0, "task-clock", 300 * MS, 300, QUALITY_MEASURED, NULL, 0);
	meas(p, c, l0, "task-clock", 29 * MS, 29, QUALITY_MEASURED, NULL, 0);
	meas(p, d, l0, "task-clock", 71 * MS, 29, QUALITY_MEASURED, NULL, 0);
	/* A Locus-level aggregate never enters shares. */
	meas(p, PIVOT_NONE, l0, "task-clock", 1e12, -1, QUALITY_MEASURED, NULL, 0);
}

static void t_shares_floor_others(void)
{
	struct pivot p;
	build(&p);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK_STR(a.time_base, "task-clock");
	CHECK_INT(a.samples, 958);
	CHECK_NEAR(a.seconds, 1.0, 1e-9);
	CHECK_INT(a.nr_diags, 2);
	CHECK_STR(p.hotspots[a.diags[0].hotspot].name, "hot");
	CHECK_NEAR(a.diags[0].share.value, 0.6, 1e-12);
	CHECK_INT(a.diags[0].share.quality, QUALITY_MEASURED);
	CHECK(a.diags[0].share.reason == NULL);
	CHECK_NEAR(a.diags[1].share.value, 0.3, 1e-12);
	CHECK_NEAR(a.diags[0].relative_error, 1.0 / sqrt(600.0), 1e-12);
	CHECK_INT(a.others_count, 2);
	CHECK_NEAR(a.others_share, 0.1, 1e-12);
	CHECK_INT(a.nr_unresolved, 1);
	CHECK_NEAR(a.unresolved_share, 0.029, 1e-12);
	CHECK_INT(a.nr_loci, 1);
	/* No counters, no Ceilings: unavailable with the reference's reasons. */
	CHECK_INT(a.diags[0].dram_intensity.quality, QUALITY_UNAVAILABLE);
	CHECK(isnan(a.diags[0].dram_intensity.value));
	CHECK_STR(a.diags[0].dram_intensity.reason, "no flops_dp raw counter in this Run");
	CHECK_STR(a.diags[0].attainable.reason,
		  "the Machine carries no flops_dp or dram_bandwidth Ceiling");
	CHECK(a.diags[0].classification == NULL);
	CHECK_STR(a.diags[0].classification_reason, "no flops_dp raw counter in this Run");
	/* One Locus in the Run: 1.0, measured (the reference's figure). */
	CHECK_INT(a.diags[0].imbalance.quality, QUALITY_MEASURED);
	CHECK(a.diags[0].imbalance.value == 1.0);
	CHECK(a.diags[0].imbalance.reason == NULL);
	CHECK_INT(a.diags[1].imbalance.quality, QUALITY_MEASURED);
	CHECK(a.diags[1].imbalance.value == 1.0);
	analysis__release(&a);
	/* A floor of 301 leaves one finding. */
	CHECK_INT(analysis_run(&p, NULL, 0, 301, &a), 0);
	CHECK_INT(a.nr_diags, 1);
	CHECK_INT(a.others_count, 3);
	analysis__release(&a);
	pivot__release(&p);
}

static void t_quality_propagation(void)
{
	struct pivot p;
	build(&p);
	int64_t l1 = pivot__intern_locus(&p, "node", -1, 101);
	/* Zen-style counters on "hot": flops (not split by precision) and
	 * dram_bytes (estimated: demand fills only). */
	meas(&p, 0, 0, "flops", 8e9, 40, QUALITY_MEASURED, NULL, 0);
	meas(&p, 0, 0, "dram_bytes", 1e9, 50, QUALITY_ESTIMATED,
	     "demand fills only: hardware-prefetched traffic is not counted", 0);
	/* A second pass of flops must not count twice. */
	meas(&p, 0, 0, "flops", 9e9, 45, QUALITY_MEASURED, NULL, 1);
	/* "warm" also runs on a second thread, 3x less. */
	meas(&p, 1, l1, "task-clock", 100 * MS, 100, QUALITY_MEASURED, NULL, 0);
	struct ceiling c[] = {
		{(char *)"flops_dp", 1e12, (char *)"flop/s", QUALITY_MEASURED, NULL},
		{(char *)"dram_bandwidth", 1e11, (char *)"byte/s", QUALITY_ESTIMATED,
		 (char *)"repetitions disperse by 12%"},
	};
	struct analysis a;
	CHECK_INT(analysis_run(&p, c, 2, 30, &a), 0);
	CHECK(a.have_ceilings);
	const struct diagnostic *g = &a.diags[0];
	CHECK_STR(p.hotspots[g->hotspot].name, "hot");
	CHECK_NEAR(g->dram_intensity.value, 8.0, 1e-12);
	CHECK_INT(g->dram_intensity.quality, QUALITY_ESTIMATED);
	CHECK(strstr(g->dram_intensity.reason, "demand fills only"));
	CHECK(strstr(g->dram_intensity.reason, "FLOPs not split by precision"));
	/* achieved = 8e9 flop / 0.6 s */
	CHECK_NEAR(g->achieved.value, 8e9 / 0.6, 1.0);
	CHECK_INT(g->achieved.quality, QUALITY_ESTIMATED);
	/* attainable = min(1e12, 1e11 * 8) = 8e11, worst of intensity and Ceilings */
	CHECK_NEAR(g->attainable.value, 8e11, 1.0);
	CHECK(strstr(g->attainable.reason, "repetitions disperse"));
	CHECK_NEAR(g->envelope_fraction.value, (8e9 / 0.6) / 8e11, 1e-9);
	CHECK_STR(g->classification, "latency-bound");
	/* "hot" ran on one of the two Loci: no ratio over a single Locus. */
	CHECK_INT(g->imbalance.quality, QUALITY_UNAVAILABLE);
	CHECK_STR(g->imbalance.reason,
		  "time on one Locus only: imbalance needs time on at least two");
	/* "warm": 300 ms on one thread, 100 ms on another -> imbalance 3 */
	const struct diagnostic *w = &a.diags[1];
	CHECK_STR(p.hotspots[w->hotspot].name, "warm");
	CHECK_NEAR(w->imbalance.value, 3.0, 1e-12);
	CHECK_INT(w->imbalance.quality, QUALITY_MEASURED);
	CHECK_STR(w->classification, "imbalance");
	CHECK_INT(a.nr_loci, 2);
	analysis__release(&a);
	pivot__release(&p);
}

/* The statistical floor applies per Locus: 1000 samples on one thread, 2 on
 * another is a ratio resting on 2 samples, not an imbalance finding; with a
 * third thread of 300 samples, the ratio is over the two above the floor,
 * estimated because one Locus was left out. */
static void t_imbalance_floor(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t l0 = pivot__intern_locus(&p, "n", -1, 1), l1 = pivot__intern_locus(&p, "n", -1, 2);
	int64_t h = hs(&p, "f", RESOLUTION_FUNCTION, 0);
	meas(&p, h, l0, "task-clock", 1000 * MS, 1000, QUALITY_MEASURED, NULL, 0);
	meas(&p, h, l1, "task-clock", 2 * MS, 2, QUALITY_MEASURED, NULL, 0);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK_INT(a.nr_diags, 1);
	const struct derived *d = &a.diags[0].imbalance;
	CHECK(isnan(d->value));
	CHECK_INT(d->quality, QUALITY_UNAVAILABLE);
	CHECK_STR(d->reason, "1 of the 2 application Loci with time here holds the statistical "
			     "floor of 30 samples: imbalance needs two");
	CHECK(a.diags[0].classification == NULL);
	analysis__release(&a);
	int64_t l2 = pivot__intern_locus(&p, "n", -1, 3);
	meas(&p, h, l2, "task-clock", 300 * MS, 300, QUALITY_MEASURED, NULL, 0);
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	d = &a.diags[0].imbalance;
	CHECK_NEAR(d->value, 1000.0 / 300.0, 1e-9);
	CHECK_INT(d->quality, QUALITY_ESTIMATED);
	CHECK_STR(d->reason, "over the 2 Loci above the statistical floor of 30 samples; 1 below "
			     "it left out");
	CHECK_STR(a.diags[0].classification, "imbalance");
	analysis__release(&a);
	pivot__release(&p);
}

static int64_t rank_thread(struct pivot *p, int rank, int64_t pid, int64_t tid)
{
	int64_t l = pivot__intern_locus(p, "n", rank, tid);
	p->loci[l].pid = pid;
	return l;
}

/* Two ranks, each with its main thread and an MPI runtime progress thread
 * (samples in the kernel and libopen-pal), plus rank 1's OpenMP worker: the
 * helpers are counted apart and never enter a per-Locus ratio; the main
 * thread is never a helper however much it waits in MPI. */
static void t_helper_threads(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t work = hs(&p, "work", RESOLUTION_FUNCTION, 0x10);
	struct hotspot k = {.module = (char *)"[kernel.kallsyms]", .name = (char *)"schedule",
			    .level = RESOLUTION_FUNCTION, .has_offset = true};
	struct hotspot o = {.module = (char *)"/usr/lib/libopen-pal.so.80", .name =
			    (char *)"opal_progress", .level = RESOLUTION_FUNCTION, .has_offset = true};
	int64_t kern = pivot__add_hotspot(&p, &k), opal = pivot__add_hotspot(&p, &o);
	int64_t m0 = rank_thread(&p, 0, 500, 500), h0 = rank_thread(&p, 0, 500, 510);
	int64_t m1 = rank_thread(&p, 1, 600, 600), w1 = rank_thread(&p, 1, 600, 601);
	int64_t h1 = rank_thread(&p, 1, 600, 610);
	meas(&p, work, m0, "task-clock", 400 * MS, 400, QUALITY_MEASURED, NULL, 0);
	meas(&p, work, m1, "task-clock", 100 * MS, 100, QUALITY_MEASURED, NULL, 0);
	meas(&p, work, w1, "task-clock", 100 * MS, 100, QUALITY_MEASURED, NULL, 0);
	meas(&p, opal, m1, "task-clock", 300 * MS, 300, QUALITY_MEASURED, NULL, 0);
	/* the progress threads: 40 samples each, one of them in the program */
	meas(&p, kern, h0, "task-clock", 39 * MS, 39, QUALITY_MEASURED, NULL, 0);
	meas(&p, work, h0, "task-clock", 1 * MS, 1, QUALITY_MEASURED, NULL, 0);
	meas(&p, opal, h1, "task-clock", 40 * MS, 40, QUALITY_MEASURED, NULL, 0);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK_INT(a.nr_loci, 3);
	CHECK_INT(a.nr_helper_loci, 2);
	CHECK_NEAR(a.helper_share, 80.0 / 980.0, 1e-9);
	/* opal_progress: 300 on rank 1's main thread, 40 on its helper: one
	 * application Locus only, not an imbalance of 7.5x */
	for (size_t i = 0; i < a.nr_diags; i++) {
		const struct diagnostic *g = &a.diags[i];
		const char *name = p.hotspots[g->hotspot].name;
		if (strcmp(name, "opal_progress") == 0) {
			CHECK(isnan(g->imbalance.value));
			CHECK(g->classification == NULL);
		} else if (strcmp(name, "work") == 0) {
			CHECK_NEAR(g->imbalance.value, 4.0, 1e-9); /* 400 / 100, not 400 / 1 */
			CHECK_INT(g->imbalance.quality, QUALITY_MEASURED);
		}
	}
	analysis__release(&a);
	/* Without the process ids (a Run written before they were kept) no
	 * thread is set aside: nothing tells the main thread. */
	for (size_t l = 0; l < p.nr_loci; l++)
		p.loci[l].pid = 0;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK_INT(a.nr_loci, 5);
	CHECK_INT(a.nr_helper_loci, 0);
	analysis__release(&a);
	pivot__release(&p);
}

static void t_join_reasons(void)
{
	char *r = analysis_join_reasons("a; b", "b");
	CHECK_STR(r, "a; b");
	xfree(r);
	r = analysis_join_reasons("a", "c");
	CHECK_STR(r, "a; c");
	xfree(r);
	r = analysis_join_reasons("x; y; z", "y; z");
	CHECK_STR(r, "x; y; z");
	xfree(r);
	r = analysis_join_reasons("x; yy", "y");
	CHECK_STR(r, "x; yy; y");
	xfree(r);
	r = analysis_join_reasons(NULL, "c");
	CHECK_STR(r, "c");
	xfree(r);
	CHECK(analysis_join_reasons(NULL, NULL) == NULL);
	/* The roofline path joins already-joined lists: each part once. */
	r = analysis_join_reasons("demand fills; FLOPs not split; compared",
				  "FLOPs not split; compared; demand fills");
	CHECK_STR(r, "demand fills; FLOPs not split; compared");
	free(r);
	r = analysis_join_reasons("a; a; b", NULL);
	CHECK_STR(r, "a; b");
	free(r);
}

static void t_no_time_base(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t h = hs(&p, "f", RESOLUTION_FUNCTION, 0);
	meas(&p, h, pivot__intern_locus(&p, "n", -1, 1), "instructions", 5, 40,
	     QUALITY_MEASURED, NULL, 0);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK(a.time_base == NULL);
	CHECK_INT(a.nr_diags, 0);
	CHECK(isnan(a.seconds));
	analysis__release(&a);
	pivot__release(&p);
	/* An empty pivot is fine too. */
	pivot__init(&p);
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK_INT(a.nr_diags, 0);
	analysis__release(&a);
	pivot__release(&p);
}

/* Issue 24 item 7: a memory pass that recorded no DRAM fill bounds the
 * bytes, so the Hotspot's DRAM intensity is a value, a lower bound, never
 * "no dram_bytes raw counter in this Run". */
static void t_dram_bound(void)
{
	struct pivot p;
	build(&p);
	meas(&p, 0, 0, "flops_dp", 8e9, 40, QUALITY_MEASURED, NULL, 0);
	struct ceiling c[] = {
		{(char *)"flops_dp", 1e12, (char *)"flop/s", QUALITY_MEASURED, NULL},
		{(char *)"dram_bandwidth", 1e11, (char *)"byte/s", QUALITY_MEASURED, NULL},
	};
	struct analysis a;
	CHECK_INT(analysis_run(&p, c, 2, 30, &a), 0);
	CHECK_INT(a.diags[0].dram_intensity.quality, QUALITY_UNAVAILABLE);
	CHECK_STR(a.diags[0].dram_intensity.reason, "no dram_bytes raw counter in this Run");
	analysis__release(&a);
	/* Fewer than 64e6 bytes: above 8e9 / 64e6 = 125 flop/byte, right of the
	 * ridge (10): compute-bound, the roof flat, attainable = the peak. */
	CHECK_INT(analysis_run_bounded(&p, c, 2, 30, 64e6, &a), 0);
	const struct derived *I = &a.diags[0].dram_intensity;
	CHECK_NEAR(I->value, 125.0, 1e-9);
	CHECK_INT(I->quality, QUALITY_ESTIMATED);
	CHECK_STR(I->bound, "lower");
	CHECK(strstr(I->reason, "a lower bound: the pass that sampled the DRAM fills recorded none"));
	CHECK_NEAR(a.diags[0].attainable.value, 1e12, 1);
	CHECK_STR(a.diags[0].classification, "latency-bound");
	/* "warm" has no flops: no bound, no value. */
	CHECK_INT(a.diags[1].dram_intensity.quality, QUALITY_UNAVAILABLE);
	analysis__release(&a);
	/* A bound left of the ridge places nothing. */
	CHECK_INT(analysis_run_bounded(&p, c, 2, 30, 64e9, &a), 0);
	CHECK_NEAR(a.diags[0].dram_intensity.value, 0.125, 1e-12);
	CHECK_INT(a.diags[0].attainable.quality, QUALITY_UNAVAILABLE);
	CHECK_STR(a.diags[0].attainable.reason,
		  "the DRAM intensity is only a lower bound, left of the ridge");
	analysis__release(&a);
	pivot__release(&p);
}

/* Regions from scope_profiler counters, against Ceilings of 1 Tflop/s and
 * 100 GB/s (ridge 10 flop/byte); every Derived by hand. */
static void t_place_region(void)
{
	struct pivot p;
	build(&p);
	struct ceiling c[] = {
		{(char *)"flops_dp", 1e12, (char *)"flop/s", QUALITY_MEASURED, NULL},
		{(char *)"dram_bandwidth", 1e11, (char *)"byte/s", QUALITY_MEASURED, NULL},
	};
	struct analysis a;
	CHECK_INT(analysis_run(&p, c, 2, 30, &a), 0);
	/* stream: 2e9 flop, 8e9 bytes in 40 ms (longest Locus) */
	struct region_counts rc = {true, true, 2e9, 8e9, 40e6, QUALITY_MEASURED, NULL};
	struct diagnostic g;
	analysis_place_region(&a, &rc, &g);
	CHECK_NEAR(g.dram_intensity.value, 0.25, 1e-15);              /* 2e9 / 8e9 */
	CHECK_NEAR(g.achieved.value, 50e9, 1e-3);                     /* 2e9 / 0.04 s */
	CHECK_NEAR(g.attainable.value, 25e9, 1e-3);                   /* min(1e12, 1e11 x 0.25) */
	CHECK_NEAR(g.envelope_fraction.value, 2.0, 1e-12);            /* 50e9 / 25e9 */
	CHECK_INT(g.achieved.quality, QUALITY_MEASURED);
	CHECK_INT(g.envelope_fraction.quality, QUALITY_MEASURED);
	CHECK_STR(g.classification, "memory-bound");                  /* 0.25 < ridge 10 */
	CHECK_INT(g.share.quality, QUALITY_UNAVAILABLE);
	CHECK(strstr(g.share.reason, "timed, not sampled"));
	CHECK_STR(g.dram_intensity.lineage[0], "region flop");
	diagnostic__release(&g);
	/* dgemm: 6e9 flop, 5e7 bytes in 30 ms: right of the ridge, the roof flat */
	rc = (struct region_counts){true, true, 6e9, 5e7, 30e6, QUALITY_ESTIMATED, "some Loci"};
	analysis_place_region(&a, &rc, &g);
	CHECK_NEAR(g.dram_intensity.value, 120.0, 1e-12);
	CHECK_NEAR(g.achieved.value, 200e9, 1e-2);
	CHECK_NEAR(g.attainable.value, 1e12, 1e-3);
	CHECK_NEAR(g.envelope_fraction.value, 0.2, 1e-12);
	CHECK_STR(g.classification, "latency-bound");                 /* 0.2 < 0.5 */
	CHECK_INT(g.achieved.quality, QUALITY_ESTIMATED);
	CHECK(strstr(g.achieved.reason, "some Loci"));
	diagnostic__release(&g);
	/* no bytes counted: no intensity, hence no place; never a zero */
	rc = (struct region_counts){true, false, 6e9, 0, 30e6, QUALITY_MEASURED, NULL};
	analysis_place_region(&a, &rc, &g);
	CHECK_INT(g.dram_intensity.quality, QUALITY_UNAVAILABLE);
	CHECK(isnan(g.dram_intensity.value));
	CHECK(strstr(g.dram_intensity.reason, "no memory-traffic (bytes) count"));
	CHECK_INT(g.attainable.quality, QUALITY_UNAVAILABLE);
	CHECK(g.classification == NULL && g.classification_reason);
	diagnostic__release(&g);
	analysis__release(&a);
	/* no Ceilings: intensity and achieved stand, the envelope does not */
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	rc = (struct region_counts){true, true, 2e9, 8e9, 40e6, QUALITY_MEASURED, NULL};
	analysis_place_region(&a, &rc, &g);
	CHECK_NEAR(g.achieved.value, 50e9, 1e-3);
	CHECK_INT(g.attainable.quality, QUALITY_UNAVAILABLE);
	CHECK_INT(g.envelope_fraction.quality, QUALITY_UNAVAILABLE);
	diagnostic__release(&g);
	analysis__release(&a);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"place_region", "a region's counted flop and bytes placed on the roofline", t_place_region},
	{"dram_bound", "a memory pass without a DRAM fill gives a lower bound, a value", t_dram_bound},
	{"shares_floor_others", "shares, the 30-sample floor, others, unresolved", t_shares_floor_others},
	{"quality", "Quality propagation, lowest pass, imbalance, classification", t_quality_propagation},
	{"imbalance_floor", "the statistical floor applies per Locus", t_imbalance_floor},
	{"helper_threads", "MPI runtime helper threads are no application Loci", t_helper_threads},
	{"join_reasons", "reasons joined with '; ' and deduplicated", t_join_reasons},
	{"no_time_base", "no time base: nothing ranked, no crash", t_no_time_base},
};
TEST_MAIN(cases)
