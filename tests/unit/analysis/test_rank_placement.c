// SPDX-License-Identifier: BSD-3-Clause
// Placement per rank: each rank's intensity, achieved, attainable and
// envelope fraction computed by hand; the lagging rank named in the summary
// and listed in the payload; nothing per rank outside MPI; and the envelope's
// properties (each attainable = min(peak, bw x I), the memory side below the
// ridge).
#include "harness.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"

#include "analysis/analysis.h"
#include "analysis/rank_placement.h"
#include "machine/node_profile.h"
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
	CHECK_INT(rank_placement_run(&p, &a, NULL, &rp), 0);
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
	CHECK_INT(rank_placement_run(&p, &a, NULL, &rp), 0);
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

static void add_ceiling(struct machine *m, const char *name, double v, const char *unit)
{
	struct ceiling c = {(char *)name, v, (char *)unit, QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(m, &c), 0);
}

static void node_entry(struct node_machines *nm, const char *node, int rank,
		       const struct machine *m)
{
	CHECK_INT(xgrow((void **)&nm->v, &nm->cap, nm->n + 1, sizeof(*nm->v)), 0);
	struct node_machine *n = &nm->v[nm->n++];
	memset(n, 0, sizeof(*n));
	machine__init(&n->m);
	n->node = xstrdup(node);
	CHECK_INT(xgrow((void **)&n->ranks, &n->cap_ranks, 1, sizeof(int)), 0);
	n->ranks[n->nr_ranks++] = rank;
	n->known = true;
	CHECK_INT(machine__copy(&n->m, m), 0);
}

/* Three ranks on three nodes: n1 is the launch node's Machine, n2 another
 * Machine with its own cached Ceilings (half the launch node's), n3 another
 * Machine with none: each rank placed against its own node's Ceilings, n3's
 * the launch node's downgraded to estimated with the reason. */
static void t_per_node(void)
{
	struct machine launch, m2, m3;
	machine__init(&launch);
	launch.cpu_model = xstrdup("CPU A");
	launch.hostname = xstrdup("n1");
	launch.logical_cores = 4;
	add_ceiling(&launch, "flops_dp", 1e11, "flop/s");
	add_ceiling(&launch, "dram_bandwidth", 1e10, "B/s");
	add_ceiling(&launch, "network_latency", 1e-6, "s");
	machine__init(&m2);
	m2.cpu_model = xstrdup("CPU B");
	m2.logical_cores = 4;
	add_ceiling(&m2, "flops_dp", 5e10, "flop/s");
	add_ceiling(&m2, "dram_bandwidth", 5e9, "B/s");
	machine__init(&m3);
	m3.cpu_model = xstrdup("CPU C");
	m3.logical_cores = 2;
	struct node_machines nm = {0};
	node_entry(&nm, "n1", 0, &launch);
	machine__clear_ceilings(&nm.v[0].m);
	node_entry(&nm, "n2", 1, &m2);
	node_entry(&nm, "n3", 2, &m3);
	const char *why[3] = {NULL, NULL, "no profile cached for it"};
	struct err e = {0};
	CHECK_INT(node_machines_resolve(&nm, &launch, why, &e), 0);
	CHECK_INT(nm.v[0].source, NODE_CEILINGS_LAUNCH);
	CHECK_INT(nm.v[1].source, NODE_CEILINGS_OWN);
	CHECK_INT(nm.v[2].source, NODE_CEILINGS_BORROWED);
	CHECK(nm.v[0].reason == NULL && nm.v[1].reason == NULL);
	CHECK(strstr(nm.v[2].reason, "node n3 (Machine ") && strstr(nm.v[2].reason, "CPU C") &&
	      strstr(nm.v[2].reason, "no profile cached for it") &&
	      strstr(nm.v[2].reason, "launch node n1's"));
	/* network Ceilings belong to a pair of ranks, never to a node */
	CHECK(node_machine__ceiling(&nm.v[0], "network_latency") == NULL);
	CHECK_NEAR(node_machine__ceiling(&nm.v[0], "flops_dp")->value, 1e11, 1);
	const struct ceiling *b3 = node_machine__ceiling(&nm.v[2], "dram_bandwidth");
	CHECK_NEAR(b3->value, 1e10, 1);
	CHECK_INT(b3->quality, QUALITY_ESTIMATED);
	CHECK_INT(node_machine__ceiling(&nm.v[1], "dram_bandwidth")->quality, QUALITY_MEASURED);

	/* through the manifest's JSON and back */
	nm.v[1].calibrated = true;
	json_t *nj = node_machines__to_json(&nm);
	struct node_machines back;
	CHECK_INT(node_machines__from_json(&back, nj, &e), 0);
	CHECK_INT(back.n, 3);
	CHECK_INT(back.v[2].source, NODE_CEILINGS_BORROWED);
	CHECK(back.v[1].calibrated && !back.v[0].calibrated && !back.v[2].calibrated);
	CHECK_STR(back.v[2].reason, nm.v[2].reason);
	CHECK_NEAR(node_machine__ceiling(&back.v[1], "flops_dp")->value, 5e10, 1);
	CHECK(node_machines__of_rank(&back, 1) == &back.v[1]);

	/* axpy on ranks 0-2, one per node, intensity 1 each (2e9 flop, 2e9 B, 1 s) */
	struct pivot p;
	pivot__init(&p);
	struct hotspot h = {.module = (char *)"/bin/solver", .name = (char *)"axpy",
			    .level = RESOLUTION_FUNCTION, .offset = 0x1000, .has_offset = true};
	int64_t hs = pivot__add_hotspot(&p, &h);
	static const char *const nodes[3] = {"n1", "n2", "n3"};
	for (int r = 0; r < 3; r++) {
		int64_t l = pivot__intern_locus(&p, nodes[r], r, 100 + r);
		meas(&p, hs, l, "task-clock", 1e9, 1000, QUALITY_MEASURED, NULL);
		meas(&p, hs, l, "flops_dp", 2e9, 400, QUALITY_MEASURED, NULL);
		meas(&p, hs, l, "dram_bytes", 2e9, 300, QUALITY_MEASURED, NULL);
	}
	struct analysis a;
	CHECK_INT(analysis_run(&p, launch.ceilings, 2, 30, &a), 0);
	struct rank_placement rp;
	CHECK_INT(rank_placement_run(&p, &a, &back, &rp), 0);
	CHECK_INT(rp.nr_ranks, 3);
	/* attainable = min(peak, bw x 1): n1 1e10, n2 5e9, n3 1e10 (borrowed) */
	static const double att[3] = {1e10, 5e9, 1e10};
	for (size_t i = 0; i < 3; i++) {
		const struct diagnostic *d = rank_placement__get(&rp, i, hs);
		CHECK(d != NULL);
		CHECK_STR(rp.node[i]->node, nodes[i]);
		CHECK_NEAR(d->attainable.value, att[i], 1);
		CHECK_NEAR(d->envelope_fraction.value, 2e9 / att[i], 1e-9);
		CHECK_INT(d->envelope_fraction.quality,
			  i == 2 ? QUALITY_ESTIMATED : QUALITY_MEASURED);
	}
	CHECK(strstr(rank_placement__get(&rp, 2, hs)->attainable.reason, "node n3 (Machine "));

	/* the summary names each node's Ceilings; the payload each rank's */
	struct text_lines t = {0};
	struct summary_ctx ctx = {.nr_ranks = -1, .nodes = &back};
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	char *all = text_lines__join(&t);
	if (!strstr(all, "Ceilings per node (each rank is placed against its node's):\n") ||
	    !strstr(all, "    n2 (Machine ") ||
	    !strstr(all, "1 rank): flops_dp 5e+10 flop/s measured, dram_bandwidth 5e+09 B/s "
			 "measured; its own Machine's cached profile\n") ||
	    !strstr(all, "dram_bandwidth 1e+10 B/s estimated; borrowed from the launch node: "
			 "node n3 (Machine ")) {
		fprintf(stderr, "%s", all);
		CHECK(0);
	}
	free(all);
	text_lines__release(&t);
	json_t *man = json_pack("{s:O}", "nodes", nj);
	json_t *pl = payload_build(man, &p, &a, NULL, false);
	json_t *rows = json_object_get(json_array_get(json_object_get(pl, "hotspots"), 0), "ranks");
	CHECK_INT(json_array_size(rows), 3);
	json_t *r1 = json_array_get(rows, 1);
	CHECK_STR(json_string_value(json_object_get(r1, "node")), "n2");
	json_t *bw1 = json_object_get(json_object_get(r1, "ceilings"), "dram_bandwidth");
	CHECK_NEAR(json_number_value(json_object_get(bw1, "value")), 5e9, 1);
	json_t *r2 = json_array_get(rows, 2);
	json_t *bw2 = json_object_get(json_object_get(r2, "ceilings"), "dram_bandwidth");
	CHECK_STR(json_string_value(json_object_get(bw2, "quality")), "estimated");
	json_decref(pl);
	json_decref(man);
	json_decref(nj);
	rank_placement__release(&rp);
	analysis__release(&a);
	pivot__release(&p);
	node_machines__release(&back);
	node_machines__release(&nm);
	machine__release(&launch);
	machine__release(&m2);
	machine__release(&m3);
}


/* The Run-wide placement (the roofline of the whole Run): a Hotspot's
 * achieved rate there is every rank's FLOPs over the busiest Locus' time,
 * so its roof is the sum of the nodes' Ceilings, each node's own (borrowed
 * ones estimated), never the launch node's alone (issue 22). */
static void t_run_ceilings(void)
{
	struct machine launch, m2, m3;
	machine__init(&launch);
	launch.cpu_model = xstrdup("CPU A");
	launch.logical_cores = 4;
	add_ceiling(&launch, "flops_dp", 1e11, "flop/s");
	add_ceiling(&launch, "dram_bandwidth", 1e10, "B/s");
	machine__init(&m2);
	m2.cpu_model = xstrdup("CPU B");
	m2.logical_cores = 4;
	add_ceiling(&m2, "flops_dp", 5e10, "flop/s");
	add_ceiling(&m2, "dram_bandwidth", 5e9, "B/s");
	machine__init(&m3);
	m3.cpu_model = xstrdup("CPU C");
	m3.logical_cores = 2;
	struct node_machines nm = {0};
	node_entry(&nm, "n1", 0, &launch);
	node_entry(&nm, "n2", 1, &m2);
	node_entry(&nm, "n3", 2, &m3);
	const char *why[3] = {NULL, NULL, "no profile cached for it"};
	struct err e = {0};
	CHECK_INT(node_machines_resolve(&nm, &launch, why, &e), 0);
	struct run_ceilings rc;
	CHECK_INT(node_machines__run_ceilings(&nm, &rc), 0);
	CHECK(rc.applies);
	CHECK_INT(rc.n, 2);
	CHECK_INT(rc.nr_nodes, 3);
	CHECK_STR(rc.basis, "the sum of the Ceilings of its 3 nodes (n1, n2, n3)");
	CHECK(rc.missing == NULL);
	/* n1 + n2 + n3 (borrowed: the launch node's, estimated) */
	CHECK_STR(rc.c[0].name, "flops_dp");
	CHECK_NEAR(rc.c[0].value, 1e11 + 5e10 + 1e11, 1);
	CHECK_STR(rc.c[1].name, "dram_bandwidth");
	CHECK_NEAR(rc.c[1].value, 1e10 + 5e9 + 1e10, 1);
	CHECK_STR(rc.c[1].unit, "B/s");
	CHECK_INT(rc.c[1].quality, QUALITY_ESTIMATED);
	CHECK(rc.c[1].reason && strstr(rc.c[1].reason, "node n3 (Machine "));

	/* axpy, one rank per node, 2e9 flop and 2e9 B in 1 s each: 6e9 flop/s at
	 * intensity 1 under a roof of 2.5e10 B/s x 1; the launch node's alone
	 * (1e10) would have called it 60% of its envelope */
	struct pivot p;
	pivot__init(&p);
	struct hotspot h = {.module = (char *)"/bin/solver", .name = (char *)"axpy",
			    .level = RESOLUTION_FUNCTION, .offset = 0x1000, .has_offset = true};
	int64_t hs = pivot__add_hotspot(&p, &h);
	static const char *const nodes[3] = {"n1", "n2", "n3"};
	for (int r = 0; r < 3; r++) {
		int64_t l = pivot__intern_locus(&p, nodes[r], r, 100 + r);
		meas(&p, hs, l, "task-clock", 1e9, 1000, QUALITY_MEASURED, NULL);
		meas(&p, hs, l, "flops_dp", 2e9, 400, QUALITY_MEASURED, NULL);
		meas(&p, hs, l, "dram_bytes", 2e9, 300, QUALITY_MEASURED, NULL);
	}
	struct analysis a;
	CHECK_INT(analysis_run(&p, rc.c, rc.n, 30, &a), 0);
	CHECK_NEAR(a.diags[0].achieved.value, 6e9, 1);
	CHECK_NEAR(a.diags[0].attainable.value, 2.5e10, 1);
	CHECK_NEAR(a.diags[0].envelope_fraction.value, 0.24, 1e-9);
	CHECK_INT(a.diags[0].envelope_fraction.quality, QUALITY_ESTIMATED);
	/* each rank still against its own node's, never the sum */
	struct rank_placement rp;
	CHECK_INT(rank_placement_run(&p, &a, &nm, &rp), 0);
	CHECK_NEAR(rank_placement__get(&rp, 1, hs)->attainable.value, 5e9, 1);
	CHECK_NEAR(rank_placement__get(&rp, 0, hs)->attainable.value, 1e10, 1);
	rank_placement__release(&rp);

	/* said in the summary, carried by the payload (the page draws it) */
	struct text_lines t = {0};
	struct summary_ctx ctx = {.nr_ranks = -1, .nodes = &nm};
	CHECK_INT(summary_render(&a, &p, &ctx, &t), 0);
	char *all = text_lines__join(&t);
	if (!strstr(all, "  roofline of the whole Run (every rank's FLOPs together): against the "
			 "sum of the Ceilings of its 3 nodes (n1, n2, n3): flops_dp 2.5e+11 flop/s "
			 "estimated, dram_bandwidth 2.5e+10 B/s estimated\n")) {
		fprintf(stderr, "%s", all);
		CHECK(0);
	}
	free(all);
	text_lines__release(&t);
	json_t *nj = node_machines__to_json(&nm);
	json_t *man = json_pack("{s:O}", "nodes", nj);
	json_t *pl = payload_build(man, &p, &a, NULL, false);
	json_t *rf = json_object_get(pl, "roofline");
	CHECK_STR(json_string_value(json_object_get(rf, "basis")),
		  "the sum of the Ceilings of its 3 nodes (n1, n2, n3)");
	json_t *c1 = json_array_get(json_object_get(rf, "ceilings"), 1);
	CHECK_STR(json_string_value(json_object_get(c1, "name")), "dram_bandwidth");
	CHECK_NEAR(json_number_value(json_object_get(c1, "value")), 2.5e10, 1);
	CHECK_STR(json_string_value(json_object_get(c1, "quality")), "estimated");
	json_decref(pl);
	json_decref(man);
	json_decref(nj);
	analysis__release(&a);
	pivot__release(&p);
	run_ceilings__release(&rc);

	/* n3 without a DRAM Ceiling at all: no partial sum, the reason said */
	machine__clear_ceilings(&nm.v[2].m);
	add_ceiling(&nm.v[2].m, "flops_dp", 2e10, "flop/s");
	CHECK_INT(node_machines__run_ceilings(&nm, &rc), 0);
	CHECK(rc.applies);
	CHECK_INT(rc.n, 1);
	CHECK_STR(rc.c[0].name, "flops_dp");
	CHECK_STR(rc.missing, "node n3 has no dram_bandwidth Ceiling: the Run's is unknown");
	run_ceilings__release(&rc);

	/* two nodes of the launch Machine: twice its roof, measured */
	node_machines__release(&nm);
	node_entry(&nm, "n1", 0, &launch);
	node_entry(&nm, "n2", 1, &launch);
	const char *none[2] = {NULL, NULL};
	CHECK_INT(node_machines_resolve(&nm, &launch, none, &e), 0);
	CHECK_INT(node_machines__run_ceilings(&nm, &rc), 0);
	CHECK(rc.applies && rc.n == 2);
	CHECK_NEAR(rc.c[0].value, 2e11, 1);
	CHECK_INT(rc.c[0].quality, QUALITY_MEASURED);
	CHECK(rc.c[0].reason == NULL);
	run_ceilings__release(&rc);
	/* one node of the launch Machine: the launch node's own, unchanged */
	nm.n = 1;
	CHECK_INT(node_machines__run_ceilings(&nm, &rc), 0);
	CHECK(!rc.applies && rc.n == 0);
	/* one node, its ranks under two CPU sets (plain mpirun binding each to
	 * a core): the launch node's, which cover both */
	nm.n = 2;
	xfree(nm.v[1].node);
	nm.v[1].node = xstrdup("n1");
	CHECK_INT(node_machines__run_ceilings(&nm, &rc), 0);
	CHECK(!rc.applies && rc.n == 0);
	/* one node of another Machine with its own Ceilings (a job placed away
	 * from the launch node): those */
	nm.n = 1;
	nm.v[0].source = NODE_CEILINGS_OWN;
	CHECK_INT(node_machines__run_ceilings(&nm, &rc), 0);
	CHECK(rc.applies && rc.n == 2 && rc.nr_nodes == 1);
	CHECK_STR(rc.basis, "the Ceilings of its one node (n1)");
	CHECK_NEAR(rc.c[1].value, 1e10, 1);
	run_ceilings__release(&rc);
	nm.n = 2;
	node_machines__release(&nm);
	machine__release(&launch);
	machine__release(&m2);
	machine__release(&m3);
}

static const struct test_case cases[] = {
	{"run_ceilings", "the Run-wide roof is the sum of its nodes' Ceilings", t_run_ceilings},
	{"per_node", "each rank against its node's Ceilings; a node without borrows, estimated", t_per_node},
	{"per_rank", "each rank placed; the lagging one named", t_per_rank},
	{"single_process", "no per-rank rows outside MPI", t_single_process},
	{"envelope", "attainable = min(peak, bw x I); ridge splits memory/compute", t_envelope_properties},
};
TEST_MAIN(cases)
