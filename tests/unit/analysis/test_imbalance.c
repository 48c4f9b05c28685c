// SPDX-License-Identifier: BSD-3-Clause
/* Rank imbalance and MPI share, and their rendering (report/ranks_view.h),
 * on pivots built like the rank ingestion builds them. */
#include <jansson.h>
#include <math.h>

#include "harness.h"

#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "analysis/threads.h"
#include "common/alloc.h"
#include "report/mpi_json.h"
#include "report/ranks_view.h"
#include "report/regions_view.h"
#include "report/summary.h"

static int64_t hotspot(struct pivot *p, const char *module, const char *name)
{
	struct hotspot h = {.module = (char *)module, .name = (char *)name,
			    .level = RESOLUTION_FUNCTION, .has_offset = true};
	return pivot__add_hotspot(p, &h);
}

static void sample(struct pivot *p, int64_t h, const char *node, int rank, double ms)
{
	int64_t l = pivot__intern_locus(p, node, rank, 1000 + rank);
	struct measurement m = {.hotspot = h, .locus = l, .counter = (char *)"task-clock",
				.value = ms * 1e6, .unit = (char *)"ns",
				.sample_count = (int64_t)ms, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

static void counted(struct pivot *p, const char *node, int rank, double ms)
{
	int64_t l = pivot__intern_locus(p, node, rank, -1);
	struct measurement m = {.hotspot = PIVOT_NONE, .locus = l, .counter = (char *)"task-clock",
				.value = ms * 1e6, .unit = (char *)"ns", .sample_count = -1,
				.coverage = 1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* Rank 0 works 3x as long as ranks 1..3, which poll in MPI meanwhile. */
static void build_mpi_run(struct pivot *p, bool sample_all)
{
	pivot__init(p);
	int64_t work = hotspot(p, "/home/u/mpi_imbalance", "work_units");
	int64_t wait = hotspot(p, "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2", "opal_progress");
	int64_t btl = hotspot(p, "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so", NULL);
	int64_t kern = hotspot(p, "[kernel.kallsyms]", NULL);
	const char *nodes[] = {"n1", "n1", "n2", "n2"};
	for (int r = 0; r < 4; r++) {
		if (!sample_all && r == 3) {
			counted(p, nodes[r], r, 900);
			continue;
		}
		sample(p, work, nodes[r], r, r == 0 ? 900 : 300);
		if (r) {
			sample(p, wait, nodes[r], r, 300);
			sample(p, btl, nodes[r], r, 200);
			sample(p, kern, nodes[r], r, 100); /* sched_yield while waiting */
		}
	}
}

static void t_mpi_modules(void)
{
	CHECK(threads_is_mpi_module("/usr/lib/x86_64-linux-gnu/libmpi.so.40"));
	CHECK(threads_is_mpi_module("libucp.so.0"));
	CHECK(threads_is_mpi_module("/opt/ompi/lib/openmpi/mca_pml_ob1.so"));
	CHECK(threads_is_mpi_module("libfabric.so.1"));
	CHECK(!threads_is_mpi_module("/home/u/solver"));
	CHECK(!threads_is_mpi_module("/usr/lib/x86_64-linux-gnu/libm.so.6"));
	CHECK(!threads_is_mpi_module(NULL));
	/* samples in nunatak's own probe, named after the call it wraps */
	CHECK(threads_is_mpi_module("[mpi:MPI_Test]"));
	CHECK(!threads_is_mpi_module("[collection:overhead]"));
}

static void t_app_time_decides(void)
{
	struct pivot p;
	build_mpi_run(&p, true);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.nr_rows, 4);
	CHECK_INT(ri.nr_sampled, 4);
	/* Total time is flat (900 each): waiting looks like work. */
	CHECK_NEAR(ri.total_imbalance, 1.0, 1e-9);
	/* App time 900,300,300,300: mean 450, busiest rank 0 at 2x. */
	CHECK_NEAR(ri.app_imbalance, 2.0, 1e-9);
	CHECK_NEAR(ri.imbalance, 2.0, 1e-9);
	CHECK_INT(ri.busiest_rank, 0);
	CHECK_INT(ri.basis, IMBALANCE_BASIS_APP);
	CHECK_NEAR(ri.mpi_fraction, 1500.0 / 3600.0, 1e-9);
	CHECK_NEAR(ri.sys_fraction, 300.0 / 3600.0, 1e-9);
	CHECK_NEAR(ri.rows[1].sys_ns, 100e6, 1);
	CHECK_INT(ri.quality, QUALITY_MEASURED);

	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK_STR(t.v[0], "4 ranks (4 sampled); busiest rank 0 at 2.00x the mean; MPI holds 41.7% of the time "
			  "(estimated from samples), sampled CPU time");
	CHECK(strstr(t.v[1], "application time") && strstr(t.v[1], "1.00x") &&
	      strstr(t.v[1], "sampled CPU time") &&
	      strstr(t.v[1], "kernel holds 8.3%"));
	text_lines__release(&t);

	json_t *j = ranks_view_payload(&ri);
	CHECK(j != NULL);
	CHECK_NEAR(json_real_value(json_object_get(json_object_get(j, "imbalance"), "value")), 2.0, 1e-9);
	CHECK_INT(json_array_size(json_object_get(j, "rows")), 4);
	CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(j, "rows"), 2), "node")), "n2");
	json_decref(j);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static void t_counted_and_missing(void)
{
	/* Rank 3 only counted, rank 4 and 5 announced but absent. */
	struct pivot p;
	build_mpi_run(&p, false);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 6, &ri), 0);
	CHECK_INT(ri.nr_rows, 6);
	CHECK_INT(ri.nr_present, 4);
	CHECK_INT(ri.nr_sampled, 3);
	CHECK_INT(ri.nr_counted, 1);
	CHECK(ri.rows[3].counted && !ri.rows[3].sampled);
	CHECK_STR(ri.rows[3].time_source, "counted task-clock");
	CHECK(isnan(ri.rows[4].time_ns));
	CHECK_INT(ri.quality, QUALITY_ESTIMATED);
	CHECK_INT(ri.reason, IMBALANCE_REASON_SAMPLED_SUBSET);
	CHECK_INT(ri.reason_n, 3);
	CHECK_INT(ri.reason_of, 6);
	json_t *j = ranks_view_payload(&ri);
	const char *why = json_string_value(
		json_object_get(json_object_get(j, "imbalance"), "reason"));
	CHECK(why && strstr(why, "3 sampled ranks of 6"));
	CHECK(strstr(json_string_value(json_object_get(json_object_get(j, "imbalance"), "basis")),
		     "application") != NULL);
	CHECK_INT(json_array_size(json_object_get(j, "unsampled")), 1);
	CHECK_INT(json_array_size(json_object_get(j, "missing")), 2);
	json_decref(j);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK(strstr(t.v[0], "6 ranks (3 sampled, 2 left nothing)") == t.v[0]);
	/* the downgrade names the value it downgrades, shown on the line above */
	CHECK(strstr(t.v[0], "busiest rank 0 at 1.80x"));
	CHECK(strstr(t.v[t.n - 1], "  busiest rank's 1.80x downgraded to estimated: over the 3 "
				  "sampled ranks of 6") == t.v[t.n - 1]);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static void t_no_ranks(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t h = hotspot(&p, "/bin/x", "f");
	int64_t l = pivot__intern_locus(&p, "n", -1, 7);
	struct measurement m = {.hotspot = h, .locus = l, .counter = (char *)"task-clock",
				.value = 1e6, .unit = (char *)"ns", .sample_count = 1};
	pivot__add_measurement(&p, &m);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, -1, &ri), 0);
	CHECK_INT(ri.nr_rows, 0);
	json_t *j = ranks_view_payload(&ri);
	CHECK(json_is_null(j));
	json_decref(j);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static void t_single_rank_unavailable(void)
{
	struct pivot p;
	pivot__init(&p);
	counted(&p, "n", 0, 5);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 1, &ri), 0);
	CHECK(isnan(ri.imbalance));
	CHECK_INT(ri.quality, QUALITY_UNAVAILABLE);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK(strstr(t.v[0], "imbalance unavailable") != NULL);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

/* What ingest/mpi.c adds for one interposed rank. */
static void interposed(struct pivot *p, const char *node, int rank, double wall_ms,
		       double barrier_ms, const char *reason)
{
	int64_t l = pivot__intern_locus(p, node, rank, -1);
	struct mpi_call c = {.locus = l, .name = (char *)"MPI_Barrier", .calls = 1,
			     .time_ns = (int64_t)(barrier_ms * 1e6)};
	CHECK(pivot__add_mpi_call(p, &c) >= 0);
	struct mpi_site s = {.locus = l, .name = (char *)"MPI_Barrier", .module = (char *)"/a/solver",
			     .address = 0x1234, .function = (char *)"main",
			     .file = (char *)"/src/solver.c", .line = 212, .calls = 1,
			     .time_ns = c.time_ns};
	CHECK(pivot__add_mpi_site(p, &s) >= 0);
	const char *names[] = {"mpi_time", "mpi_wall_time"};
	double v[] = {barrier_ms * 1e6, wall_ms * 1e6};
	for (int i = 0; i < 2; i++) {
		struct measurement m = {.hotspot = PIVOT_NONE, .locus = l, .counter = (char *)names[i],
					.value = v[i], .unit = (char *)"ns",
					.quality = reason ? QUALITY_ESTIMATED : QUALITY_MEASURED,
					.reason = (char *)reason, .sample_count = -1, .coverage = -1};
		CHECK(pivot__add_measurement(p, &m) >= 0);
	}
}

/* Interposed ranks: the MPI share is measured, the dominant call named with
 * its site; a rank that never finalized keeps its figures, downgraded. */
static void t_measured_mpi(void)
{
	struct pivot p;
	build_mpi_run(&p, true);
	interposed(&p, "n1", 0, 1000, 10, NULL);
	interposed(&p, "n1", 1, 1000, 410, NULL);
	interposed(&p, "n2", 2, 1000, 300, "the rank never reached MPI_Finalize");
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_NEAR(ri.mpi_measured, 720.0 / 3000.0, 1e-9);
	CHECK_INT(ri.mpi.dom_rank, 1);
	CHECK_STR(ri.mpi.dom_call, "MPI_Barrier");
	CHECK_STR(ri.mpi.dom_site, "solver.c:212");
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	/* estimated: rank 2 never finalized, rank 3 left no profile */
	CHECK(strstr(t.v[0], "MPI holds 24.0% of the time (estimated in MPI calls)") != NULL);
	CHECK_STR(t.v[1], "  rank 1 waits 41% of its time in `MPI_Barrier` at `solver.c:212` (wall clock)");
	json_t *j = ranks_view_payload(&ri);
	json_t *rows = json_object_get(j, "rows");
	json_t *r1 = json_array_get(rows, 1), *r2 = json_array_get(rows, 2), *r3 = json_array_get(rows, 3);
	CHECK_STR(json_string_value(json_object_get(json_object_get(r1, "mpi"), "quality")), "measured");
	json_t *fr = json_object_get(r1, "mpi_fraction");
	CHECK_NEAR(json_real_value(json_object_get(fr, "value")), 0.41, 1e-9);
	CHECK_STR(json_string_value(json_object_get(fr, "clock")), "wall clock");
	/* rank 3's sampled estimate: estimated, from samples, with its reason */
	json_t *f3 = json_object_get(r3, "mpi_fraction");
	CHECK_STR(json_string_value(json_object_get(f3, "quality")), "estimated");
	CHECK_STR(json_string_value(json_object_get(f3, "clock")), "sampled CPU time");
	CHECK(json_string_value(json_object_get(f3, "reason")) != NULL);
	json_t *call = json_array_get(json_object_get(r1, "mpi_calls"), 0);
	CHECK_STR(json_string_value(json_object_get(call, "name")), "MPI_Barrier");
	json_t *site = json_array_get(json_object_get(call, "sites"), 0);
	CHECK_INT(json_integer_value(json_object_get(site, "line")), 212);
	CHECK_STR(json_string_value(json_object_get(json_object_get(r2, "mpi"), "quality")), "estimated");
	/* rank 3 left no profile: the sampled estimate, labelled as such */
	CHECK_STR(json_string_value(json_object_get(json_object_get(r3, "mpi"), "source")),
		  "samples in MPI runtime modules");
	CHECK_STR(json_string_value(json_object_get(json_object_get(r3, "mpi"), "quality")), "estimated");
	json_t *share = json_object_get(j, "mpi_fraction");
	CHECK_STR(json_string_value(json_object_get(share, "quality")), "estimated");
	CHECK(strstr(json_string_value(json_object_get(share, "reason")), "measured on 3 of 4") != NULL);
	json_decref(j);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static void overhead(struct pivot *p, int rank, const char *counter, double ms)
{
	int64_t l = pivot__intern_locus(p, rank < 2 ? "n1" : "n2", rank, -1);
	struct measurement m = {.hotspot = PIVOT_NONE, .locus = l, .counter = (char *)counter,
				.value = ms * 1e6, .unit = (char *)"ns",
				.quality = QUALITY_ESTIMATED, .reason = (char *)"cost x calls",
				.sample_count = -1, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* The probe's own cost: said when above 1% of a rank's time, with the calls
 * that cost it and the option that leaves them out; silent below. */
static void t_probe_overhead(void)
{
	struct pivot p;
	build_mpi_run(&p, true);
	for (int r = 0; r < 4; r++)
		interposed(&p, r < 2 ? "n1" : "n2", r, 1000, 10, NULL);
	int64_t l1 = pivot__intern_locus(&p, "n1", 1, -1);
	const char *fns[] = {"MPI_Test", "MPI_Iprobe", "MPI_Send", "MPI_Recv"};
	int64_t calls[] = {20000000, 1500000, 10, 10};
	double ms[] = {25, 4, 0.0002, 0.0001};
	for (int i = 0; i < 4; i++) {
		struct mpi_call c = {.locus = l1, .name = (char *)fns[i], .calls = calls[i]};
		CHECK(pivot__add_mpi_call(&p, &c) >= 0);
		char counter[64];
		snprintf(counter, sizeof(counter), "mpi_probe_overhead:%s", fns[i]);
		overhead(&p, 1, counter, ms[i]);
	}
	overhead(&p, 1, "mpi_probe_overhead", 29.0003);
	overhead(&p, 0, "mpi_probe_overhead", 2); /* 0.2%: not the worst */
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.mpi.probe_rank, 1);
	CHECK_INT(ri.mpi.nr_probe_calls, 2); /* MPI_Send's 10 calls cost nothing worth naming */
	CHECK_STR(ri.mpi.probe_calls[0].name, "MPI_Test");
	CHECK_STR(ri.mpi.probe_calls[1].name, "MPI_Iprobe");
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	bool said = false;
	for (size_t i = 0; i < t.n; i++)
		said |= strstr(t.v[i], "nunatak's MPI probe took 2.9% of rank 1's time (estimated: its "
				       "cost per call, measured at MPI_Init, times 20.0 M calls of "
				       "MPI_Test, 1.5 M calls of MPI_Iprobe); to leave those calls out "
				       "of the measurement: nunatak run --mpi-skip "
				       "MPI_Test,MPI_Iprobe (docs/mpi.md)") != NULL;
	CHECK(said);
	json_t *j = ranks_view_payload(&ri);
	json_t *probe = json_object_get(j, "mpi_probe");
	CHECK_INT(json_integer_value(json_object_get(probe, "rank")), 1);
	CHECK(json_is_true(json_object_get(probe, "stated")));
	CHECK_STR(json_string_value(json_object_get(json_object_get(probe, "fraction"), "quality")),
		  "estimated");
	json_decref(j);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
	/* below 1%: nothing said */
	build_mpi_run(&p, true);
	for (int r = 0; r < 4; r++)
		interposed(&p, r < 2 ? "n1" : "n2", r, 1000, 10, NULL);
	overhead(&p, 1, "mpi_probe_overhead:MPI_Test", 5);
	overhead(&p, 1, "mpi_probe_overhead", 5);
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	struct text_lines t2 = {0};
	CHECK_INT(ranks_view_lines(&ri, &t2), 0);
	for (size_t i = 0; i < t2.n; i++)
		CHECK(strstr(t2.v[i], "MPI probe") == NULL);
	text_lines__release(&t2);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

/* 4 ranks, each with its main thread (tid == pid) and a progress thread
 * whose samples are in the kernel and libopen-pal, as Open MPI runs
 * oversubscribed: "4 ranks" and the helpers said apart, never "8 Loci". */
static void t_helper_threads(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t work = hotspot(&p, "/home/u/mpi_imbalance", "work_units");
	int64_t kern = hotspot(&p, "[kernel.kallsyms]", "schedule_hrtimeout_range_clock");
	int64_t opal = hotspot(&p, "/usr/lib/x86_64-linux-gnu/libopen-pal.so.80", "opal_progress");
	for (int r = 0; r < 4; r++) {
		int64_t pid = 11450 + 10 * r;
		int64_t main_l = pivot__intern_locus(&p, "vm", r, pid);
		int64_t help_l = pivot__intern_locus(&p, "vm", r, pid + 5);
		p.loci[main_l].pid = p.loci[help_l].pid = pid;
		double ms[][3] = {{main_l, (double)work, r ? 100 : 300},
				  {main_l, (double)opal, r ? 200 : 1},
				  {help_l, (double)kern, 3},
				  {help_l, (double)opal, r == 2 ? 1 : 0}};
		for (size_t k = 0; k < 4; k++) {
			if (!(ms[k][2] > 0))
				continue;
			struct measurement m = {.hotspot = (int64_t)ms[k][1], .locus = (int64_t)ms[k][0],
						.counter = (char *)"task-clock", .value = ms[k][2] * 1e6,
						.unit = (char *)"ns", .sample_count = (int64_t)ms[k][2],
						.coverage = -1};
			CHECK(pivot__add_measurement(&p, &m) >= 0);
		}
	}
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.nr_threads, 4);
	CHECK_INT(ri.nr_helpers, 4);
	CHECK_INT(ri.rows[2].nr_helpers, 1);
	CHECK_INT(ri.rows[2].nr_threads, 1);
	CHECK_NEAR(ri.helper_fraction, 13.0 / 1214.0, 1e-9);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK(strstr(t.v[0], "4 ranks (4 sampled); busiest rank 0 at ") == t.v[0]);
	CHECK_STR(t.v[1], "  threads: one application thread per rank; 4 MPI runtime helper threads "
			  "seen beside them (progress, event loops, 1.1% of the sampled time), not "
			  "counted as application Loci");
	text_lines__release(&t);
	json_t *j = ranks_view_payload(&ri);
	CHECK_INT(json_integer_value(json_object_get(j, "threads")), 4);
	json_t *hj = json_object_get(j, "helper_threads");
	CHECK_INT(json_integer_value(json_object_get(hj, "count")), 4);
	CHECK(strstr(json_string_value(json_object_get(hj, "rule")), "tid != pid"));
	json_decref(j);
	rank_imbalance__release(&ri);
	/* rank 0's main thread sits almost wholly in MPI: still the rank's main
	 * thread, never a helper; an OpenMP worker running the program's code
	 * is an application thread */
	int64_t w = pivot__intern_locus(&p, "vm", 0, 11459);
	p.loci[w].pid = 11450;
	struct measurement m = {.hotspot = work, .locus = w, .counter = (char *)"task-clock",
				.value = 50e6, .unit = (char *)"ns", .sample_count = 50, .coverage = -1};
	CHECK(pivot__add_measurement(&p, &m) >= 0);
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.nr_threads, 5);
	CHECK_INT(ri.nr_helpers, 4);
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK(strstr(t.v[1], "  threads: 5 application threads over the 4 sampled ranks; 4 MPI") ==
	      t.v[1]);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

/* Rank 3 only counted, every rank interposed: application time is each
 * rank's CPU time times its wall-clock share outside MPI, for all ranks alike,
 * and the ranks busy-waiting in MPI_Barrier are never the busiest. */
static void t_interposed_counted(void)
{
	struct pivot p;
	build_mpi_run(&p, false);
	interposed(&p, "n1", 0, 1000, 10, NULL);
	for (int r = 1; r < 4; r++)
		interposed(&p, r < 2 ? "n1" : "n2", r, 1000, 2000.0 / 3, NULL);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.nr_sampled, 3);
	CHECK_INT(ri.busiest_rank, 0);
	double light = 900 * (1 - 2.0 / 3), heavy = 900 * 0.99;
	CHECK_NEAR(ri.imbalance, heavy / ((heavy + 3 * light) / 4), 1e-6);
	CHECK_NEAR(ri.rows[3].app_interposed_ns, light * 1e6, 1);
	CHECK_INT(ri.basis, IMBALANCE_BASIS_APP_INTERPOSED);
	CHECK_INT(ri.quality, QUALITY_ESTIMATED);
	CHECK_INT(ri.reason, IMBALANCE_REASON_INTERPOSED);
	CHECK_INT(ri.reason_n, 1);
	CHECK_INT(ri.reason_of, 4);
	/* counted and sampled rank times mix: said, not downgraded */
	CHECK(ri.periods_exact);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	bool said = false;
	for (size_t i = 0; i < t.n; i++)
		said |= strstr(t.v[i], "rank times: counted task-clock on 1 rank, the sum of their "
				       "task-clock samples' periods on the 3 sampled") != NULL;
	CHECK(said);
	bool why = false, on = false; /* the words of the downgrade and the basis */
	for (size_t i = 0; i < t.n; i++) {
		why |= strstr(t.v[i], "1 of 4 ranks was only counted") != NULL;
		on |= strstr(t.v[i], "measured on application time (CPU time outside the MPI calls "
				     "measured by interposition)") != NULL;
	}
	CHECK(why && on);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

/* The headline quotes the share of the site it names: MPI_Barrier holds 41%
 * of rank 1, 30% at solver.c:212 and 11% elsewhere. */
static void t_site_share(void)
{
	struct pivot p;
	build_mpi_run(&p, true);
	interposed(&p, "n1", 1, 1000, 410, NULL);
	int64_t l = pivot__intern_locus(&p, "n1", 1, -1);
	for (size_t i = 0; i < p.nr_mpi_sites; i++)
		p.mpi_sites[i].time_ns = 300000000;
	struct mpi_site other = {.locus = l, .name = (char *)"MPI_Barrier",
				 .module = (char *)"/a/solver", .address = 0x5678,
				 .function = (char *)"finish", .file = (char *)"/src/solver.c",
				 .line = 400, .calls = 1, .time_ns = 110000000};
	CHECK(pivot__add_mpi_site(&p, &other) >= 0);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK_STR(t.v[1], "  rank 1 waits 30% of its time in `MPI_Barrier` at `solver.c:212`; 41% at "
			  "all its sites (wall clock)");
	json_t *j = ranks_view_payload(&ri);
	json_t *dom = json_object_get(j, "mpi_dominant");
	json_t *sf = json_object_get(dom, "site_fraction");
	CHECK_NEAR(json_real_value(json_object_get(sf, "value")), 0.30, 1e-9);
	CHECK_STR(json_string_value(json_object_get(sf, "quality")), "measured");
	json_decref(j);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

/* node > rank: n1 holds ranks 0 and 1 (900 + 300 of application time), n2
 * ranks 2 and 3 (300 + 300): n1 at 1200 / 900 of the mean node. */
static void t_nodes(void)
{
	struct pivot p;
	build_mpi_run(&p, true);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.nr_nodes, 2);
	CHECK_STR(ri.nodes[0].node, "n1");
	CHECK_INT(ri.nodes[0].nr_ranks, 2);
	CHECK_NEAR(ri.nodes[0].value_ns, 1200e6, 1);
	CHECK_NEAR(ri.nodes[1].time_ns, 1800e6, 1);
	CHECK_INT(ri.busiest_node, 0);
	CHECK_NEAR(ri.node_imbalance, 1200.0 / 900.0, 1e-9);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	bool said = false;
	for (size_t i = 0; i < t.n; i++)
		said |= strcmp(t.v[i], "  2 nodes; busiest node n1 (2 ranks) at 1.33x the mean node, "
				       "on the ranks' application time") == 0;
	CHECK(said);
	text_lines__release(&t);
	json_t *j = ranks_view_payload(&ri);
	json_t *nodes = json_object_get(j, "nodes");
	CHECK_INT(json_array_size(json_object_get(nodes, "rows")), 2);
	json_t *n2 = json_array_get(json_object_get(nodes, "rows"), 1);
	CHECK_STR(json_string_value(json_object_get(n2, "node")), "n2");
	CHECK_INT(json_integer_value(json_array_get(json_object_get(n2, "ranks"), 1)), 3);
	json_t *v2 = json_object_get(n2, "value_ns");
	CHECK_NEAR(json_real_value(json_object_get(v2, "value")), 600e6, 1);
	CHECK_STR(json_string_value(json_object_get(v2, "quality")), "measured");
	json_t *ni = json_object_get(nodes, "imbalance");
	CHECK_STR(json_string_value(json_object_get(ni, "busiest_node")), "n1");
	CHECK_NEAR(json_real_value(json_object_get(ni, "value")), 1200.0 / 900.0, 1e-9);
	json_decref(j);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static void world_size(struct pivot *p, int rank, int size)
{
	int64_t l = pivot__intern_locus(p, rank < 2 ? "n1" : "n2", rank, -1);
	struct measurement m = {.hotspot = PIVOT_NONE, .locus = l,
				.counter = (char *)"mpi_world_size", .value = size,
				.unit = (char *)"ranks", .sample_count = -1, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* An MPICH program under Open MPI's mpirun: the launch numbers 4 ranks,
 * each one's own MPI says its world holds 1 rank. They are 4 separate jobs:
 * never "4 ranks", never an imbalance (rank 0's 3x here would read 2.00x). */
static void t_separate_worlds(void)
{
	struct pivot p;
	build_mpi_run(&p, true);
	for (int r = 0; r < 4; r++)
		world_size(&p, r, 1);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.own_world_size, 1);
	CHECK_INT(ri.own_worlds, 4);
	CHECK_INT(ri.own_reporting, 4);
	CHECK(isnan(ri.imbalance) && isnan(ri.app_imbalance) && isnan(ri.total_imbalance));
	CHECK(isnan(ri.node_imbalance));
	CHECK_INT(ri.busiest_rank, -1);
	CHECK_INT(ri.quality, QUALITY_UNAVAILABLE);
	CHECK_INT(ri.reason, IMBALANCE_REASON_SEPARATE_WORLDS);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	static const char head[] = "4 separate 1-rank MPI worlds, not one 4-rank job (launcher "
				   "and MPI library do not match";
	CHECK(strncmp(t.v[0], head, sizeof(head) - 1) == 0);
	CHECK(strstr(t.v[0], "imbalance across them not computed") != NULL);
	bool apart = false;
	for (size_t i = 0; i < t.n; i++) {
		CHECK(!strstr(t.v[i], "busiest") && !strstr(t.v[i], "4 ranks"));
		static const char who[] = "  who talks to whom: not placed";
		apart |= strncmp(t.v[i], who, sizeof(who) - 1) == 0;
	}
	CHECK(apart);
	text_lines__release(&t);
	json_t *j = ranks_view_payload(&ri);
	json_t *sw = json_object_get(j, "separate_worlds");
	CHECK_STR(json_string_value(json_object_get(sw, "text")), "4 separate 1-rank MPI worlds");
	CHECK_INT(json_integer_value(json_object_get(sw, "worlds")), 4);
	CHECK(json_is_null(json_object_get(json_object_get(j, "imbalance"), "value")));
	CHECK(json_is_null(json_object_get(j, "comm_matrix")));
	json_decref(j);
	rank_imbalance__release(&ri);

	/* the regions' per-rank spread is not an imbalance across them either */
	for (int r = 0; r < 2; r++) {
		struct region_stat st = {.locus = pivot__intern_locus(&p, "n1", r, 1000 + r),
					 .path = (char *)"solve", .name = (char *)"solve", .calls = 1,
					 .inclusive_ns = r ? 1000000 : 3000000,
					 .exclusive_ns = r ? 1000000 : 3000000};
		CHECK(pivot__add_region_stat(&p, &st) >= 0);
	}
	CHECK_INT(imbalance_own_world(&p, -1, NULL), 1);
	CHECK_INT(regions_render(&p, NULL, &t), 0);
	bool region = false;
	for (size_t i = 0; i < t.n; i++) {
		CHECK(!strstr(t.v[i], "busiest of"));
		region |= strstr(t.v[i], "solve - ") && strstr(t.v[i], "; its 2 ranks not compared: "
								"separate 1-rank MPI worlds");
	}
	CHECK(region);
	text_lines__release(&t);

	/* nor a Hotspot's max / min over their Loci (rank 0's work_units: 3x) */
	struct analysis an;
	CHECK_INT(analysis_run(&p, NULL, 0, 0, &an), 0);
	CHECK_INT(an.separate_worlds, 1);
	bool hot = false;
	for (size_t i = 0; i < an.nr_diags; i++) {
		const struct derived *d = &an.diags[i].imbalance;
		CHECK(isnan(d->value) && d->quality == QUALITY_UNAVAILABLE);
		hot |= d->reason && strstr(d->reason, "separate MPI worlds") != NULL;
		CHECK(!an.diags[i].classification || strcmp(an.diags[i].classification, "imbalance"));
	}
	CHECK(hot);
	analysis__release(&an);

	/* 6 ranks as 3 worlds of 2 */
	pivot__release(&p);
	build_mpi_run(&p, true);
	for (int r = 0; r < 4; r++)
		world_size(&p, r, 2);
	CHECK_INT(imbalance_ranks(&p, 6, &ri), 0);
	CHECK_INT(ri.own_worlds, 3);
	CHECK(isnan(ri.imbalance));
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	static const char six[] = "6 ranks in 3 separate 2-rank MPI worlds, not one 6-rank job";
	CHECK(strncmp(t.v[0], six, sizeof(six) - 1) == 0);
	text_lines__release(&t);
	rank_imbalance__release(&ri);

	/* one world, as the launch numbered it: nothing changes */
	pivot__release(&p);
	build_mpi_run(&p, true);
	for (int r = 0; r < 4; r++)
		world_size(&p, r, 4);
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	CHECK_INT(ri.own_world_size, 0);
	CHECK_NEAR(ri.imbalance, 2.0, 1e-9);
	CHECK_INT(ri.busiest_rank, 0);
	rank_imbalance__release(&ri);
	CHECK_INT(analysis_run(&p, NULL, 0, 0, &an), 0);
	CHECK_INT(an.separate_worlds, 0);
	hot = false;
	for (size_t i = 0; i < an.nr_diags; i++)
		hot |= !isnan(an.diags[i].imbalance.value) && an.diags[i].imbalance.value > 1.0;
	CHECK(hot); /* one world: the Hotspots' imbalance stands */
	analysis__release(&an);
	pivot__release(&p);
}

/* Counts of one read in the singular (a 1-rank MPI_Barrier said "0 B in 1
 * calls ... on 1 communicators; heaviest MPI_Barrier (sync) over ranks 0"),
 * counts of two in the plural. */
static void t_plural(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t l0 = pivot__intern_locus(&p, "n1", 0, -1);
	int64_t l1 = pivot__intern_locus(&p, "n1", 1, -1);
	struct mpi_peer send = {.locus = l0, .peer = 1, .direction = (char *)"send", .calls = 1,
				.time_ns = 1000, .bytes = 8};
	CHECK(pivot__add_mpi_peer(&p, &send) >= 0);
	struct mpi_collective bar = {.locus = l0, .name = (char *)"MPI_Barrier",
				     .members = (char *)"0", .size = 1, .root = -1, .calls = 1,
				     .time_ns = 500};
	CHECK(pivot__add_mpi_collective(&p, &bar) >= 0);
	char line[400];
	mpi_comm_matrix_line(&p, 2, line, sizeof(line));
	CHECK_STR(line, "point-to-point: 8 B in 1 message between 1 rank pair; heaviest rank 0 -> "
			"rank 1, 8 B (100.0%) in 1 message");
	mpi_comm_coll_line(&p, 2, line, sizeof(line));
	CHECK_STR(line, "collectives (estimated: the pairs follow each collective's meaning, not "
			"the MPI library's algorithm): 0 B in 1 call (summed over the ranks) on 1 "
			"communicator; heaviest MPI_Barrier (sync) over rank 0, 0 B (0.0%)");
	/* two of each */
	struct mpi_peer back = {.locus = l1, .peer = 0, .direction = (char *)"send", .calls = 1,
				.time_ns = 1000, .bytes = 8};
	CHECK(pivot__add_mpi_peer(&p, &back) >= 0);
	struct mpi_collective all = {.locus = l1, .name = (char *)"MPI_Barrier",
				     .members = (char *)"0-1", .size = 2, .root = -1, .calls = 1,
				     .time_ns = 500};
	CHECK(pivot__add_mpi_collective(&p, &all) >= 0);
	mpi_comm_matrix_line(&p, 2, line, sizeof(line));
	CHECK(strstr(line, "16 B in 2 messages between 2 rank pairs;") != NULL);
	mpi_comm_coll_line(&p, 2, line, sizeof(line));
	CHECK(strstr(line, "in 2 calls (summed over the ranks) on 2 communicators;") != NULL);
	pivot__release(&p);

	/* the rank view's own counts of one */
	build_mpi_run(&p, false); /* rank 3 only counted */
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 4, &ri), 0);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	bool one = false;
	for (size_t i = 0; i < t.n; i++) {
		CHECK(!strstr(t.v[i], " 1 ranks") && !strstr(t.v[i], "1 of 4 ranks were"));
		one |= strstr(t.v[i], "counted task-clock on 1 rank,") != NULL;
	}
	CHECK(one);
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"plural", "a count of one reads in the singular: calls, communicators, messages, rank "
	 "pairs, ranks", t_plural},
	{"separate_worlds", "ranks whose own MPI worlds are smaller than the launch are separate "
	 "jobs: said, never compared", t_separate_worlds},
	{"nodes", "node > rank: per-node totals and the busiest node", t_nodes},
	{"interposed_counted", "counted ranks: application time from interposition, the waiting ranks never busiest", t_interposed_counted},
	{"site_share", "the MPI headline quotes the share of the site it names", t_site_share},
	{"measured_mpi", "interposed MPI time: measured share, dominant call and site",
	 t_measured_mpi},
	{"probe_overhead", "the probe's cost said above 1% of a rank's time, with the calls and "
	 "--mpi-skip", t_probe_overhead},
	{"mpi_modules", "MPI runtime modules are recognised", t_mpi_modules},
	{"app_time", "waiting in MPI is not mistaken for work", t_app_time_decides},
	{"counted_missing", "counted-only and absent ranks are said", t_counted_and_missing},
	{"no_ranks", "a single-process Run has no rank view", t_no_ranks},
	{"single_rank", "one rank: imbalance unavailable with a reason", t_single_rank_unavailable},
	{"helper_threads", "MPI runtime helper threads are said apart, not as Loci", t_helper_threads},
};

TEST_MAIN(cases)
