// SPDX-License-Identifier: BSD-3-Clause
/* --multi-pass planning from the perf adapter's counter group table. */
#include "harness.h"

#include <errno.h>

#include "collect/passes.h"

static const char zen2_cpuinfo[] = "vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n";
static const char zen4_cpuinfo[] = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n";

static void t_plan(void)
{
	struct pass_plan p;
	CHECK_INT(passes_plan(perf_counter_group(zen2_cpuinfo), &p), 0);
	CHECK_INT(p.nr, 2);
	CHECK_STR(p.labels[0], "flops");
	CHECK_STR(p.labels[1], "memory");
	CHECK_STR(p.witness, "flops");
	CHECK_STR(p.witness_event, "fp_ret_sse_avx_ops.all");
	/* the witness alone in pass 0; witness + both fills in pass 1 */
	CHECK_INT(p.groups[0].nr_events, 1);
	CHECK_STR(p.groups[0].events[0].event, "fp_ret_sse_avx_ops.all");
	CHECK_INT(p.groups[1].nr_events, 3);
	CHECK_STR(p.groups[1].events[0].event, "fp_ret_sse_avx_ops.all");
	CHECK_STR(p.groups[1].events[1].event, "ls_refills_from_sys.ls_mabresp_lcl_dram");
	CHECK_STR(p.groups[1].events[2].event, "ls_refills_from_sys.ls_mabresp_rmt_dram");
	CHECK(p.groups[1].events == p.events[1]);
	CHECK_INT(passes_plan(perf_counter_group(zen4_cpuinfo), &p), 0);
	CHECK_STR(p.groups[1].events[1].event, "ls_dmnd_fills_from_sys.mem_io_local");
	CHECK_INT(passes_plan(NULL, &p), -ENOENT); /* unknown µarch: multi-pass-unavailable */
	static const struct counter_event only_flops[] = {{"fp_ret_sse_avx_ops.all", 4999999, "flops"}};
	static const struct counter_group one = {"x", only_flops, 1, false};
	CHECK_INT(passes_plan(&one, &p), -ENOENT); /* one pass is no multi-pass */
	static const struct counter_event no_flops[] = {{"a", 1, "dram_bytes"}, {"b", 1, "other"}};
	static const struct counter_group nf = {"x", no_flops, 2, false};
	CHECK_INT(passes_plan(&nf, &p), -ENOENT); /* nothing to witness */
}

static void t_spread(void)
{
	double same[2] = {100, 100}, off[3] = {90, 100, 110};
	CHECK_NEAR(passes_spread(same, 2), 0, 1e-12);
	CHECK_NEAR(passes_spread(off, 3), 0.2, 1e-12);
	CHECK(passes_spread(same, 1) < 0);
	double zero[2] = {0, 0};
	CHECK(passes_spread(zero, 2) < 0);
}

static const struct test_case cases[] = {
	{"plan", "groups per canonical counter, the witness in every pass", t_plan},
	{"spread", "(max - min) / mean, undefined below two passes", t_spread},
};
TEST_MAIN(cases)
