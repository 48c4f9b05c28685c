// SPDX-License-Identifier: BSD-3-Clause
// The network Ceilings in the summary and the payload (report/netceil_view.c):
// where they came from (the manifest's cost.network_ceilings_from) beside
// each network Ceiling with its value, Quality and reason; the worst Quality
// in the header; a Run without that sentence says it is not recorded; a
// Machine without network Ceilings gets nothing; the payload's fragment
// carries the same sentence, never a Quality better than its Ceilings'.
#include "harness.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/text.h"
#include "model/machine.h"
#include "report/netceil_view.h"
#include "model/model.h"

static const char HIT[] = "cached from a Run at 2026-12-05 13:01 UTC on nodes n1, n2 (this "
			  "Run's nodes); no within-node pair (network_*_intranode): the Run "
			  "that measured it had one rank per node";

static void add(struct machine *m, const char *name, double v, const char *unit,
		enum quality q, const char *reason)
{
	struct ceiling c = {.name = (char *)name, .value = v, .unit = (char *)unit, .quality = q,
			    .reason = (char *)reason};
	CHECK_INT(machine__add_ceiling(m, &c), 0);
}

/* flops_dp measured; network latency measured, bandwidth estimated */
static void hit_machine(struct machine *m)
{
	machine__init(m);
	add(m, "flops_dp", 1e11, "flop/s", QUALITY_MEASURED, NULL);
	add(m, "network_latency", 2.8e-6, "s", QUALITY_MEASURED, NULL);
	add(m, "network_bandwidth", 1.25e10, "byte/s", QUALITY_ESTIMATED,
	    "repetitions disperse by 12%");
}

static json_t *cost_with(const char *summary)
{
	return json_pack("{s:s, s:{s:s, s:[s,s], s:s, s:s}}", "network_ceilings", "cached",
			 "network_ceilings_from", "how", "cached", "nodes", "n1", "n2",
			 "measured_at", "2026-12-05T13:01:16Z", "summary", summary);
}

static const char *line_with(const struct text_lines *t, const char *what)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(t->v[i], what))
			return t->v[i];
	return NULL;
}

static void t_lines(void)
{
	struct machine m;
	hit_machine(&m);
	json_t *cost = cost_with(HIT);
	struct text_lines t = {0};
	CHECK_INT(netceil_view_lines(&m, cost, &t), 0);
	CHECK_INT(t.n, 3); /* the header and one line per network Ceiling, not flops_dp */
	if (t.n == 3) {
		CHECK(!strncmp(t.v[0], "  network Ceilings (estimated): cached from a Run at "
				       "2026-12-05 13:01 UTC on nodes n1, n2 (this Run's nodes); no "
				       "within-node pair", 100));
		CHECK(strstr(t.v[0], "had one rank per node") != NULL);
		CHECK_STR(t.v[1], "    network_latency 2.8 us, measured");
		CHECK_STR(t.v[2], "    network_bandwidth 12.5 Gbyte/s, estimated: repetitions "
				  "disperse by 12%");
	}
	CHECK(!line_with(&t, "flops_dp"));
	text_lines__release(&t);
	json_decref(cost);
	machine__release(&m);
}

/* every network Ceiling measured: the header says measured; a latency in
 * ns and ms keeps its unit readable; an unavailable one says so, with its
 * reason, and makes the header unavailable */
static void t_qualities(void)
{
	struct machine m;
	machine__init(&m);
	add(&m, "network_latency", 8e-8, "s", QUALITY_MEASURED, NULL);
	add(&m, "network_latency_intranode", 2.5e-3, "s", QUALITY_MEASURED, NULL);
	json_t *cost = cost_with("measured now by the ping-pong on nodes vm (this Run's nodes)");
	struct text_lines t = {0};
	CHECK_INT(netceil_view_lines(&m, cost, &t), 0);
	CHECK(t.n == 3 && !strcmp(t.v[0], "  network Ceilings (measured): measured now by the "
					  "ping-pong on nodes vm (this Run's nodes)"));
	CHECK(line_with(&t, "network_latency 80 ns, measured"));
	CHECK(line_with(&t, "network_latency_intranode 2.5 ms, measured"));
	text_lines__release(&t);
	add(&m, "network_bandwidth", NAN, "byte/s", QUALITY_UNAVAILABLE, "the probe stopped");
	memset(&t, 0, sizeof(t));
	CHECK_INT(netceil_view_lines(&m, cost, &t), 0);
	CHECK(t.n == 4 && !strncmp(t.v[0], "  network Ceilings (unavailable): ", 34));
	CHECK(line_with(&t, "network_bandwidth unavailable, unavailable: the probe stopped"));
	text_lines__release(&t);
	json_decref(cost);
	machine__release(&m);
}

/* no sentence (a Run written before it was recorded, or no cost at all):
 * said, never left out; no network Ceiling: nothing */
static void t_unrecorded(void)
{
	struct machine m;
	hit_machine(&m);
	struct text_lines t = {0};
	CHECK_INT(netceil_view_lines(&m, NULL, &t), 0);
	CHECK(t.n == 3 && !strcmp(t.v[0], "  network Ceilings (estimated): where they came from "
					  "is not recorded in this Run"));
	text_lines__release(&t);
	machine__release(&m);
	machine__init(&m);
	add(&m, "flops_dp", 1e11, "flop/s", QUALITY_MEASURED, NULL);
	json_t *cost = cost_with(HIT); /* a sentence without Ceilings: nothing to place it by */
	memset(&t, 0, sizeof(t));
	CHECK_INT(netceil_view_lines(&m, cost, &t), 0);
	CHECK_INT(t.n, 0);
	CHECK_INT(netceil_view_lines(NULL, cost, &t), 0);
	CHECK_INT(t.n, 0);
	text_lines__release(&t);
	json_decref(cost);
	machine__release(&m);
}

/* a sentence read from a Run cannot drive the terminal */
static void t_escaped(void)
{
	struct machine m;
	hit_machine(&m);
	json_t *cost = cost_with("cached from a Run on nodes \x1b]0;pwned\x07n1");
	struct text_lines t = {0};
	CHECK_INT(netceil_view_lines(&m, cost, &t), 0);
	CHECK(t.n == 3 && !strchr(t.v[0], '\x1b') && !strchr(t.v[0], '\x07'));
	text_lines__release(&t);
	json_decref(cost);
	machine__release(&m);
}

static void t_payload(void)
{
	struct machine m;
	hit_machine(&m);
	json_t *mj = json_pack("{s:o, s:o}", "machine", machine__to_json(&m), "cost", cost_with(HIT));
	json_t *p = netceil_view_payload(mj);
	CHECK(json_is_object(p));
	CHECK_STR(json_string_value(json_object_get(p, "quality")), "estimated");
	CHECK_STR(json_string_value(json_object_get(p, "from")), HIT);
	CHECK_STR(json_string_value(json_object_get(p, "how")), "cached");
	CHECK_STR(json_string_value(json_object_get(p, "measured_at")), "2026-12-05T13:01:16Z");
	CHECK_INT(json_array_size(json_object_get(p, "nodes")), 2);
	json_decref(p);
	/* no cost: every field null but the Quality */
	json_object_del(mj, "cost");
	p = netceil_view_payload(mj);
	CHECK(json_is_null(json_object_get(p, "from")) && json_is_null(json_object_get(p, "nodes")));
	CHECK_STR(json_string_value(json_object_get(p, "quality")), "estimated");
	json_decref(p);
	/* a network Ceiling without a readable Quality is not taken as measured */
	json_t *cs = json_object_get(json_object_get(mj, "machine"), "ceilings");
	size_t i;
	json_t *c;
	json_array_foreach(cs, i, c)
		json_object_set_new(c, "quality", json_string(i == 1 ? "splendid" : "measured"));
	p = netceil_view_payload(mj);
	CHECK_STR(json_string_value(json_object_get(p, "quality")), "unavailable");
	json_decref(p);
	json_decref(mj);
	machine__release(&m);
	/* no network Ceiling: null */
	machine__init(&m);
	add(&m, "flops_dp", 1e11, "flop/s", QUALITY_MEASURED, NULL);
	mj = json_pack("{s:o, s:o}", "machine", machine__to_json(&m), "cost", cost_with(HIT));
	p = netceil_view_payload(mj);
	CHECK(p && json_is_null(p));
	json_decref(p);
	json_decref(mj);
	machine__release(&m);
}

static const struct test_case cases[] = {
	{"lines", "where the network Ceilings came from, then each with its Quality", t_lines},
	{"qualities", "the header's Quality is the worst; units stay readable", t_qualities},
	{"unrecorded", "no sentence: said; no network Ceiling: nothing", t_unrecorded},
	{"escaped", "a sentence from a Run cannot drive the terminal", t_escaped},
	{"payload", "the page's fragment: the sentence and the worst Quality", t_payload},
};
TEST_MAIN(cases)
