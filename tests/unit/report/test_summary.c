// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "analysis/analysis.h"
#include "common/alloc.h"
#include "model/model.h"
#include "report/payload.h"
#include "report/summary.h"
#include "report/unresolved_view.h"

static void meas(struct pivot *p, int64_t h, const char *counter, double v, int64_t n,
		 enum quality q, const char *reason)
{
	struct measurement m = {.hotspot = h, .locus = 0, .counter = (char *)counter, .value = v,
				.unit = (char *)"ns", .quality = q, .reason = (char *)reason,
				.sample_count = n, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* 12 Hotspots of 40 samples (above the floor), one unresolved of 100, and
 * 5 below the floor. */
static void build(struct pivot *p)
{
	pivot__init(p);
	pivot__intern_locus(p, "n", -1, 7);
	for (int i = 0; i < 12; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%02d", i);
		struct hotspot h = {.module = (char *)"/x/app", .name = name,
				    .level = RESOLUTION_FUNCTION, .has_offset = true};
		int64_t id = pivot__add_hotspot(p, &h);
		meas(p, id, "task-clock", (40.0 + i) * 1e6, 40 + i, QUALITY_MEASURED, NULL);
	}
	struct hotspot u = {.module = (char *)"/lib/libm.so.6", .level = RESOLUTION_UNRESOLVED,
			    .offset = 0x1234, .has_offset = true};
	meas(p, pivot__add_hotspot(p, &u), "task-clock", 100e6, 100, QUALITY_MEASURED, NULL);
	for (int i = 0; i < 5; i++) {
		struct hotspot h = {.module = (char *)"/x/app", .name = (char *)"small",
				    .level = RESOLUTION_FUNCTION, .offset = (uint64_t)i};
		meas(p, pivot__add_hotspot(p, &h), "task-clock", 10e6, 10, QUALITY_MEASURED, NULL);
	}
}

static bool has_line(const struct text_lines *t, const char *needle)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(t->v[i], needle))
			return true;
	return false;
}

static void t_render(void)
{
	struct pivot p;
	build(&p);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	struct text_lines t = {0};
	struct summary_ctx ctx = {.ceilings_reason = "no calibration", .nr_ranks = -1};
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	char *all = text_lines__join(&t);
	fprintf(stderr, "%s", all);
	/* total = 12*40 + 66 + 100 + 50 = 696 ms; above floor: 546 + 100 = 646 */
	CHECK(strncmp(t.v[0], "summary: 13 Hotspots above the statistical floor hold 92.8% of the "
			      "sampled time (696 samples of task-clock over 0.696 s of sampled CPU time)",
		      200) == 0);
	/* Decreasing share: the unresolved libm Hotspot first, then f11. */
	/* A reason every Hotspot shares is said once, not on each finding. */
	CHECK_STR(t.v[1], "  no roofline placement for any Hotspot: no flops_dp raw counter in "
			  "this Run");
	CHECK(strstr(t.v[2], "libm.so.6+0x1234 (unresolved) - 14.4% of the sampled time"));
	CHECK(!strstr(all + strlen(t.v[0]) + strlen(t.v[1]) + 2, "no flops_dp raw counter"));
	CHECK(strstr(t.v[3], "f11 (function) - 7.3%"));
	CHECK(has_line(&t, "  ... and 3 more Hotspots above the floor, holding"));
	CHECK(has_line(&t, "  others: 5 Hotspots below the floor - 7.2% of the sampled time"));
	CHECK(has_line(&t, "what this report does not say:"));
	CHECK(has_line(&t, "5 Hotspots below the statistical floor of 30 samples hold 7.2% of "
			   "the sampled time, aggregated as \"others\""));
	CHECK(has_line(&t, "14.4% of the sampled time is in code left unresolved"));
	CHECK(has_line(&t, "Ceilings are unavailable (no calibration)"));
	CHECK(has_line(&t, "how many FLOPs and DRAM bytes each Hotspot moves: this Run has no "
			   "FLOP or DRAM counter"));
	/* Never a zero standing for an unavailable value. */
	CHECK(!has_line(&t, "achieved 0"));
	xfree(all);
	text_lines__release(&t);

	json_t *pl = payload_build(NULL, &p, &a, NULL, false);
	CHECK(pl);
	CHECK_STR(json_string_value(json_object_get(pl, "name")), "nunatak-report");
	CHECK_INT(json_integer_value(json_object_get(pl, "schema")), 6);
	json_t *hsj = json_object_get(pl, "hotspots");
	CHECK_INT(json_array_size(hsj), 13);
	json_t *h0 = json_array_get(hsj, 0);
	json_t *share = json_object_get(h0, "share");
	CHECK_NEAR(json_real_value(json_object_get(share, "value")), 100.0 / 696.0, 1e-12);
	CHECK_STR(json_string_value(json_object_get(share, "quality")), "measured");
	CHECK(json_is_null(json_object_get(share, "reason")));
	json_t *att = json_object_get(h0, "attainable");
	CHECK(json_is_null(json_object_get(att, "value")));
	CHECK_STR(json_string_value(json_object_get(att, "quality")), "unavailable");
	CHECK(json_is_string(json_object_get(att, "reason")));
	json_t *others = json_object_get(pl, "others");
	CHECK_INT(json_integer_value(json_object_get(others, "count")), 5);
	json_t *cov = json_object_get(pl, "coverage");
	CHECK_STR(json_string_value(json_object_get(cov, "time_base")), "task-clock");
	CHECK_NEAR(json_real_value(json_object_get(json_object_get(cov, "samples"), "value")), 696,
		   1e-9);
	json_decref(pl);
	analysis__release(&a);
	pivot__release(&p);
}

/* With a FLOP counter sampled, only the DRAM bytes are said to be missing. */
static void t_counters(void)
{
	struct pivot p;
	build(&p);
	meas(&p, 0, "flops", 1e9, 40, QUALITY_MEASURED, NULL);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	struct text_lines t = {0};
	struct summary_ctx ctx = {.ceilings_reason = "no calibration", .nr_ranks = -1};
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	CHECK(has_line(&t, "how many DRAM bytes each Hotspot moves: this Run has no DRAM counter"));
	CHECK(!has_line(&t, "FLOPs and DRAM"));
	text_lines__release(&t);
	meas(&p, 0, "dram_bytes", 64e6, 40, QUALITY_ESTIMATED, "demand fills only");
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	CHECK(!has_line(&t, "each Hotspot moves"));
	text_lines__release(&t);
	analysis__release(&a);
	pivot__release(&p);
}

static void t_empty(void)
{
	struct pivot p;
	pivot__init(&p);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	struct text_lines t = {0};
	CHECK_INT(summary_render(&a, &p, NULL, &t), 0);
	CHECK(strstr(t.v[0], "summary: no sample was collected"));
	CHECK(has_line(&t, "what this report does not say:"));
	text_lines__release(&t);
	analysis__release(&a);
	pivot__release(&p);
}

/* One line-level Hotspot, three sampled addresses on two lines: 42 holds 40 of
 * the 60 ms (two addresses share line 41: 10 + 10). */
static void build_lines(struct pivot *p)
{
	pivot__init(p);
	pivot__intern_locus(p, "n", -1, 7);
	struct hotspot h = {.module = (char *)"/x/heat", .name = (char *)"sweep",
			    .source_file = (char *)"/src/heat.c", .level = RESOLUTION_LINE,
			    .has_offset = true, .offset = 0x10};
	int64_t id = pivot__add_hotspot(p, &h);
	meas(p, id, "task-clock", 60e6, 60, QUALITY_MEASURED, NULL);
	const uint64_t off[] = {0x10, 0x20, 0x30};
	const double ms[] = {10, 40, 10};
	const int line[] = {41, 42, 41};
	for (int i = 0; i < 3; i++) {
		struct address ad = {.hotspot = id, .offset = off[i], .counter = (char *)"task-clock",
				     .value = ms[i] * 1e6, .sample_count = (int64_t)ms[i]};
		struct frame f = {.hotspot = id, .offset = off[i], .function = (char *)"sweep",
				  .file = (char *)"/src/heat.c", .line = line[i],
				  .declaration_line = 40};
		CHECK(pivot__add_address(p, &ad) >= 0);
		CHECK(pivot__add_frame(p, &f) >= 0);
	}
}

static void t_hottest_line(void)
{
	struct pivot p;
	build_lines(&p);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	struct text_lines t = {0};
	CHECK_INT(summary_render(&a, &p, NULL, &t), 0);
	CHECK(has_line(&t, "  sweep (line, heat.c:42) - 100.0% of the sampled time"));
	/* The error is said relative, with its size in points (issue 24). */
	CHECK(has_line(&t, "100.0% of the sampled time (relative error +-"));
	CHECK(has_line(&t, "points, measured)"));
	CHECK(!has_line(&t, "(+-"));
	text_lines__release(&t);
	/* The payload names the same line: one source, attrib_hottest_line(). */
	json_t *pl = payload_build(NULL, &p, &a, NULL, false);
	json_t *h = json_array_get(json_object_get(pl, "hotspots"), 0);
	json_t *hl = json_object_get(h, "hottest_line");
	CHECK_STR(json_string_value(json_object_get(hl, "file")), "/src/heat.c");
	CHECK_INT(json_integer_value(json_object_get(hl, "line")), 42);
	CHECK_NEAR(json_real_value(json_object_get(json_object_get(hl, "share"), "value")), 40.0 / 60.0,
		   1e-9);
	json_t *lines = json_object_get(h, "lines");
	CHECK_INT(json_array_size(lines), 2);
	for (size_t i = 0; i < json_array_size(lines); i++) {
		json_t *l = json_array_get(lines, i);
		int ln = (int)json_integer_value(json_object_get(l, "line"));
		json_t *s = json_object_get(l, "share");
		CHECK_NEAR(json_real_value(json_object_get(s, "value")), ln == 42 ? 4.0 / 6 : 2.0 / 6,
			   1e-9);
		CHECK_STR(json_string_value(json_object_get(s, "quality")), "measured");
	}
	json_decref(pl);
	analysis__release(&a);
	pivot__release(&p);
}

static void t_si(void)
{
	char b[32];
	CHECK_STR(format_si(b, sizeof(b), 1.17e12, "flop/s"), "1.17 Tflop/s");
	CHECK_STR(format_si(b, sizeof(b), 12.0, "B"), "12 B");
}

/* "f": 1000, 300 and 2 samples on three threads: imbalance 3.3x, estimated
 * (a Locus below the floor left out), shown, so its downgrade is said under
 * it. "g": 100, 80 and 5: an estimated 1.25x that is no finding's evidence:
 * no "downgraded" line may stand for a value nobody sees. */
static void t_downgrade_shown(void)
{
	struct pivot p;
	pivot__init(&p);
	const char *names[] = {"f", "g"};
	const double n[2][3] = {{1000, 300, 2}, {100, 80, 5}};
	for (int k = 0; k < 2; k++) {
		struct hotspot h = {.module = (char *)"/x/app", .name = (char *)names[k],
				    .level = RESOLUTION_FUNCTION, .offset = (uint64_t)k,
				    .has_offset = true};
		int64_t id = pivot__add_hotspot(&p, &h);
		for (int l = 0; l < 3; l++) {
			struct measurement m = {.hotspot = id,
						.locus = pivot__intern_locus(&p, "n", -1, 10 + l),
						.counter = (char *)"task-clock", .value = n[k][l] * 1e6,
						.unit = (char *)"ns", .sample_count = (int64_t)n[k][l],
						.coverage = -1};
			CHECK(pivot__add_measurement(&p, &m) >= 0);
		}
	}
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	CHECK_INT(a.diags[1].imbalance.quality, QUALITY_ESTIMATED);
	struct text_lines t = {0};
	struct summary_ctx ctx = {.nr_ranks = -1};
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	int said = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (!strstr(t.v[i], "downgraded to estimated"))
			continue;
		said++;
		CHECK(strstr(t.v[i], "    imbalance downgraded to estimated: over the 2 Loci above "
				     "the statistical floor of 30 samples; 1 below it left out") == t.v[i]);
		CHECK(i > 0 && strstr(t.v[i - 1], "most-loaded Locus carries 3.3x"));
	}
	CHECK_INT(said, 1);
	text_lines__release(&t);
	analysis__release(&a);
	pivot__release(&p);
}

/* "What this report does not say" points at the degradations listed after
 * the summary only when the Run has some. */
static void t_nothing_unsaid(void)
{
	struct pivot p;
	pivot__init(&p);
	pivot__intern_locus(&p, "n", -1, 7);
	struct hotspot h = {.module = (char *)"/x/app", .name = (char *)"f",
			    .level = RESOLUTION_FUNCTION, .has_offset = true};
	int64_t id = pivot__add_hotspot(&p, &h);
	meas(&p, id, "task-clock", 100e6, 100, QUALITY_MEASURED, NULL);
	meas(&p, id, "flops_dp", 1e9, 100, QUALITY_MEASURED, NULL);
	meas(&p, id, "dram_bytes", 1e9, 100, QUALITY_MEASURED, NULL);
	struct ceiling c[] = {{(char *)"flops_dp", 1e11, (char *)"flop/s", QUALITY_MEASURED, NULL},
			      {(char *)"dram_bandwidth", 1e10, (char *)"B/s", QUALITY_MEASURED, NULL}};
	struct analysis a;
	CHECK_INT(analysis_run(&p, c, 2, 30, &a), 0);
	for (size_t deg = 0; deg < 2; deg++) {
		struct text_lines t = {0};
		struct summary_ctx ctx = {.nr_ranks = -1, .nr_degradations = deg};
		CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
		CHECK(has_line(&t, "what this report does not say:"));
		CHECK(has_line(&t, "  - nothing beyond the degradations listed below") == (deg == 1));
		CHECK(has_line(&t, "  - nothing more: no measurement was degraded, and each estimated "
				   "figure above gives its reason") == (deg == 0));
		text_lines__release(&t);
	}
	analysis__release(&a);
	pivot__release(&p);
}

/* Issue 24: Open MPI's polling, three unnamed addresses of mca_btl_vader.so
 * and one of libmpi, is one finding per module, said as the MPI runtime's
 * time, with the remedy (debug symbols). */
static void t_runtime_grouped(void)
{
	struct pivot p;
	pivot__init(&p);
	pivot__intern_locus(&p, "n", -1, 7);
	struct hotspot app = {.module = (char *)"/x/lmp", .name = (char *)"pair_compute",
			      .level = RESOLUTION_FUNCTION, .has_offset = true};
	meas(&p, pivot__add_hotspot(&p, &app), "task-clock", 300e6, 300, QUALITY_MEASURED, NULL);
	for (int i = 0; i < 3; i++) {
		struct hotspot u = {.module = (char *)"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
						     "mca_btl_vader.so",
				    .level = RESOLUTION_UNRESOLVED, .offset = 0x4f94 + 16 * (uint64_t)i,
				    .has_offset = true};
		meas(&p, pivot__add_hotspot(&p, &u), "task-clock", (100.0 - i) * 1e6, 100 - i,
		     QUALITY_MEASURED, NULL);
	}
	struct hotspot m = {.module = (char *)"/usr/lib/x86_64-linux-gnu/libmpi.so.40",
			    .level = RESOLUTION_UNRESOLVED, .offset = 0x77, .has_offset = true};
	meas(&p, pivot__add_hotspot(&p, &m), "task-clock", 50e6, 50, QUALITY_MEASURED, NULL);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	struct text_lines t = {0};
	CHECK_INT(summary_render(&a, &p, NULL, &t), 0);
	size_t vader = 0;
	for (size_t i = 0; i < t.n; i++)
		vader += strstr(t.v[i], "  mca_btl_vader.so+0x") == t.v[i];
	CHECK_INT(vader, 1); /* one finding for the module, not one per address */
	CHECK(has_line(&t, "    with 2 more unresolved addresses of this module above the floor: "
			   "45.9% of the sampled time in all, in the MPI runtime"));
	/* what is left out is libmpi's address alone: the two vader addresses
	 * are in their module's line, not counted again (issue 22: "3 more
	 * Hotspots ... holding 0.0%") */
	CHECK(has_line(&t, "  ... and 1 more Hotspot above the floor, holding 7.7% "));
	CHECK(has_line(&t, "no function name): mca_btl_vader.so 45.9% (3 addresses, the MPI "
			   "runtime), libmpi.so.40 7.7% (1 address, the MPI runtime); runtime time, "
			   "not the application's: install the runtime's debug symbols"));
	/* the payload (and so the page) groups them too: every module, largest first */
	json_t *pl = payload_build(NULL, &p, &a, NULL, false);
	json_t *mods = json_object_get(json_object_get(pl, "unresolved"), "modules");
	CHECK_INT(json_array_size(mods), 2);
	json_t *m0 = json_array_get(mods, 0), *m1 = json_array_get(mods, 1);
	CHECK_STR(json_string_value(json_object_get(m0, "module")), "mca_btl_vader.so");
	CHECK_INT(json_integer_value(json_object_get(m0, "addresses")), 3);
	CHECK(fabs(json_real_value(json_object_get(json_object_get(m0, "share"), "value")) -
		   0.459) < 0.001);
	CHECK_STR(json_string_value(json_object_get(m0, "runtime")), "the MPI runtime");
	CHECK(strstr(json_string_value(json_object_get(m0, "remedy")), "debug symbols"));
	CHECK_STR(json_string_value(json_object_get(m1, "path")),
		  "/usr/lib/x86_64-linux-gnu/libmpi.so.40");
	CHECK_INT(json_integer_value(json_object_get(m1, "addresses")), 1);
	json_decref(pl);
	text_lines__release(&t);
	analysis__release(&a);
	pivot__release(&p);
}

/* The modules named are the largest, wherever their Hotspots sit: four
 * small modules met first (in Hotspot order) must not push out the one
 * holding most of the unresolved time (seen on LAMMPS at load: "28.6% ...
 * unresolved: libevent_core 0.0% (2 addresses), ..."). */
static void t_unresolved_largest(void)
{
	struct pivot p;
	pivot__init(&p);
	pivot__intern_locus(&p, "n", -1, 7);
	struct hotspot app = {.module = (char *)"/x/lmp", .name = (char *)"pair_compute",
			      .level = RESOLUTION_FUNCTION, .has_offset = true};
	meas(&p, pivot__add_hotspot(&p, &app), "task-clock", 300e6, 300, QUALITY_MEASURED, NULL);
	static const char *const small[] = {"/l/libevent_core.so", "/l/libinfinipath.so",
					    "/l/libevent_pthreads.so", "/l/libtiny.so"};
	for (int i = 0; i < 4; i++) {
		struct hotspot u = {.module = (char *)small[i], .level = RESOLUTION_UNRESOLVED,
				    .offset = 0x10, .has_offset = true};
		meas(&p, pivot__add_hotspot(&p, &u), "task-clock", 1e6, 1, QUALITY_MEASURED, NULL);
	}
	struct hotspot big = {.module = (char *)"/l/libopen-pal.so.40", .level = RESOLUTION_UNRESOLVED,
			      .offset = 0x878b5, .has_offset = true};
	meas(&p, pivot__add_hotspot(&p, &big), "task-clock", 200e6, 200, QUALITY_MEASURED, NULL);
	struct analysis a;
	CHECK_INT(analysis_run(&p, NULL, 0, 30, &a), 0);
	struct text_lines t = {0};
	CHECK_INT(summary_render(&a, &p, NULL, &t), 0);
	CHECK(has_line(&t, "no function name): libopen-pal.so.40 39.7% (1 address, the MPI "
			   "runtime), libevent_core.so 0.2% (1 address)"));
	struct unresolved_module v[2];
	CHECK_INT(unresolved_by_module(&p, "task-clock", a.time_value, v, 2), 2);
	CHECK_STR(v[0].module, "/l/libopen-pal.so.40");
	CHECK_STR(v[1].module, "/l/libevent_core.so"); /* ties keep their order */
	text_lines__release(&t);
	analysis__release(&a);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"unresolved_largest", "the unresolved modules named are the largest, wherever they sit",
	 t_unresolved_largest},
	{"runtime_grouped", "unresolved addresses grouped by module, the MPI runtime named",
	 t_runtime_grouped},
	{"counters", "a missing FLOP or DRAM counter is said, with where to look", t_counters},
	{"render", "summary and payload on a hand-built pivot", t_render},
	{"empty", "an empty Run still says what it lacks", t_empty},
	{"hottest_line", "a finding names its hottest line, as the payload", t_hottest_line},
	{"si", "SI formatting", t_si},
	{"nothing_unsaid", "the does-not-say list points below only at degradations there are",
	 t_nothing_unsaid},
	{"downgrade_shown", "a downgrade is said only under the value it downgrades", t_downgrade_shown},
};
TEST_MAIN(cases)
