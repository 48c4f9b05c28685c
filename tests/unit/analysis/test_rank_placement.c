// SPDX-License-Identifier: BSD-3-Clause
// Placement per rank: each rank's intensity, achieved, attainable and
// envelope fraction computed by hand; the lagging rank named in the summary
// and listed in the payload; nothing per rank outside MPI; and the envelope's
// properties (each attainable = min(peak, bw x I), the memory side below the
// ridge).
#include "harness.h"

#include <jansson.h>
#include <math.h>

#include "analysis/analysis.h"
#include "analysis/rank_placement.h"
#include "report/payload.h"
#include "report/summary.h"

static void meas(struct pivot *p, int64_t h, int64_t locus, const char *counter, double v,
		 int64_t n, enum quality q, const char *reason)
{
	struct measurement m = {.hotspot = h, .locus = locus, .counter = (char *)counter,
				.value = v, .unit = (char *)"x", .quality = q,
				.reason = (char *)reason, .sample_count = n, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

static char n_dp[] = "flops_dp", n_bw[] = "dram_bandwidth", u_f[] = "flop/s", u_b[] = "B/s";
static struct ceiling ceilings[2] = {{n_dp, 1e11, u_f, QUALITY_MEASURED, NULL},
				     {n_bw, 1e10, u_b, QUALITY_MEASURED, NULL}};

/* axpy on three ranks, 1 s of task-clock each: ranks 0 and 2 move 2 GB,
 * rank 1 only 1 GB in the same time: half their envelope. */
static void build(struct pivot *p, bool mpi)
{
	pivot__init(p);
	struct hotspot h = {.module = (char *)"/bin/solver", .name = (char *)"axpy",
			    .level = RESOLUTION_FUNCTION, .offset = 0x1000, .has_offset = true};
	int64_t a = pivot__add_hotspot(p, &h);
	static const double bytes[3] = {2e9, 1e9, 2e9};
	for (int r = 0; r < (mpi ? 3 : 1); r++) {
		int64_t l = pivot__intern_locus(p, "node", mpi ? r : -1, 100 + r);
		meas(p, a, l, "task-clock", 1e9, 1000, QUALITY_MEASURED, NULL);
		meas(p, a, l, "flops_dp", 2e9, 400, QUALITY_MEASURED, NULL);
		meas(p, a, l, "dram_bytes", bytes[r], 300, QUALITY_ESTIMATED, "demand fills only");
	}
}

static void t_per_rank(void)
{
	struct pivot p;
	build(&p, true);
	struct analysis a;
	CHECK_INT(analysis_run(&p, ceilings, 2, 30, &a), 0);
	struct rank_placement rp;
	CHECK_INT(rank_placement_run(&p, &a, &rp), 0);
	CHECK_INT(rp.nr_ranks, 3);
	static const double want_I[3] = {1.0, 2.0, 1.0};
	for (size_t i = 0; i < 3; i++) {
		const struct diagnostic *d = rank_placement__get(&rp, i, 0);
		CHECK(d != NULL);
		CHECK_INT(rp.ranks[i], (int)i);
		CHECK_NEAR(d->dram_intensity.value, want_I[i], 1e-12);
		CHECK_NEAR(d->achieved.value, 2e9, 1e-3);
		/* attainable = min(peak, bw x I) */
		CHECK_NEAR(d->attainable.value, fmin(1e11, 1e10 * want_I[i]), 1e-3);
		CHECK_NEAR(d->envelope_fraction.value, i == 1 ? 0.1 : 0.2, 1e-12);
		CHECK_INT(d->envelope_fraction.quality, QUALITY_ESTIMATED);
		CHECK_STR(d->envelope_fraction.reason, "demand fills only");
		CHECK_STR(d->classification, "latency-bound");
		CHECK_NEAR(d->share.value, 1.0, 1e-12);
	}
	double lo, hi, med;
	int lr, hr;
	CHECK_INT(rank_placement__spread(&rp, 0, &lo, &lr, &hi, &hr, &med), 3);
	CHECK(lo == 0.1 && lr == 1 && hi == 0.2 && hr == 0 && med == 0.2);
	/* The aggregate: 6e9 flops over the most-loaded Locus's 1 s, 5 GB. */
	CHECK_NEAR(a.diags[0].achieved.value, 6e9, 1e-3);
	CHECK_NEAR(a.diags[0].dram_intensity.value, 1.2, 1e-12);

	struct text_lines t = {0};
	struct summary_ctx ctx = {.nr_ranks = -1};
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	char *all = text_lines__join(&t);
	if (!strstr(all, "    ranks: envelope 10% (rank 1) to 20% (rank 0), median 20%: rank 1 at "
			 "0.50x the median\n")) {
		fprintf(stderr, "%s", all);
		CHECK(0);
	}
	free(all);
	text_lines__release(&t);

	json_t *pl = payload_build(NULL, &p, &a, NULL, false);
	json_t *rows = json_object_get(json_array_get(json_object_get(pl, "hotspots"), 0), "ranks");
	CHECK_INT(json_array_size(rows), 3);
	json_t *r1 = json_array_get(rows, 1);
	CHECK_INT(json_integer_value(json_object_get(r1, "rank")), 1);
	CHECK_NEAR(json_real_value(json_object_get(json_object_get(r1, "envelope_fraction"), "value")),
		   0.1, 1e-12);
	CHECK_STR(json_string_value(json_object_get(json_object_get(r1, "attainable"), "formula")),
		  "min(flops_dp, dram_bandwidth * dram_intensity)");
	json_decref(pl);
	rank_placement__release(&rp);
	analysis__release(&a);
	pivot__release(&p);
}

static void t_single_process(void)
{
	struct pivot p;
	build(&p, false);
	struct analysis a;
	CHECK_INT(analysis_run(&p, ceilings, 2, 30, &a), 0);
	struct rank_placement rp;
	CHECK_INT(rank_placement_run(&p, &a, &rp), 0);
	CHECK_INT(rp.nr_ranks, 0);
	CHECK(rank_placement__get(&rp, 0, 0) == NULL);
	json_t *pl = payload_build(NULL, &p, &a, NULL, false);
	json_t *rows = json_object_get(json_array_get(json_object_get(pl, "hotspots"), 0), "ranks");
	CHECK(json_is_array(rows) && json_array_size(rows) == 0);
	json_decref(pl);
	analysis__release(&a);
	pivot__release(&p);
}

/* Envelope properties over a sweep of intensities: attainable = min(peak,
 * bw x I), the memory side strictly below the roof left of the ridge and the
 * roof itself right of it; memory-bound exactly left of the ridge. */
static void t_envelope_properties(void)
{
	double ridge = ceilings[0].value / ceilings[1].value;
	for (double I = 1e-3; I < 1e4; I *= 1.7) {
		struct pivot p;
		pivot__init(&p);
		struct hotspot h = {.module = (char *)"/bin/x", .name = (char *)"k",
				    .level = RESOLUTION_FUNCTION};
		int64_t k = pivot__add_hotspot(&p, &h);
		int64_t l = pivot__intern_locus(&p, "n", -1, 1);
		double fl = 9e10; /* 90% of peak over 1 s: never latency-bound at the roof */
		meas(&p, k, l, "task-clock", 1e9, 100, QUALITY_MEASURED, NULL);
		meas(&p, k, l, "flops_dp", fl, 100, QUALITY_MEASURED, NULL);
		meas(&p, k, l, "dram_bytes", fl / I, 100, QUALITY_MEASURED, NULL);
		struct analysis a;
		CHECK_INT(analysis_run(&p, ceilings, 2, 30, &a), 0);
		const struct diagnostic *d = &a.diags[0];
		double att = d->attainable.value;
		CHECK_NEAR(att, fmin(1e11, 1e10 * d->dram_intensity.value), 1e-6 * att);
		if (d->dram_intensity.value < ridge)
			CHECK(att < 1e11);
		else
			CHECK(att == 1e11);
		CHECK_INT(d->attainable.quality, QUALITY_MEASURED);
		CHECK(d->attainable.reason == NULL);
		if (d->envelope_fraction.value >= 0.5)
			CHECK_STR(d->classification,
				  d->dram_intensity.value < ridge ? "memory-bound" : "compute-bound");
		analysis__release(&a);
		pivot__release(&p);
	}
}

static const struct test_case cases[] = {
	{"per_rank", "each rank placed; the lagging one named", t_per_rank},
	{"single_process", "no per-rank rows outside MPI", t_single_process},
	{"envelope", "attainable = min(peak, bw x I); ridge splits memory/compute", t_envelope_properties},
};
TEST_MAIN(cases)
