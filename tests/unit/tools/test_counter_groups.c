// SPDX-License-Identifier: BSD-3-Clause
// Counter groups per microarchitecture, from the cpuinfo fixtures of the
// theoretical table: Zen 2/3/4 (validated), Intel server parts from
// Skylake-SP on and Arm Neoverse V1/N2/V2 (never validated on real hardware,
// and saying so); the FLOP weights of fp_arith_inst_retired at ingestion.
#include "tools/perf.h"

#include "harness.h"
#include "ingest/aggregate.h"
#include "common/fsutil.h"

static const struct counter_group *group_of(const char *fixture)
{
	char path[512], *text = NULL;
	snprintf(path, sizeof(path), TEST_SOURCE_DIR "/tests/fixtures/cpuinfo/%s.txt", fixture);
	CHECK(fs_read_file(path, 1 << 24, &text, NULL) == 0);
	const struct counter_group *g = perf_counter_group(text);
	free(text);
	return g;
}

static void t_groups(void)
{
	static const struct {
		const char *fixture, *uarch;
		bool validated;
	} want[] = {
		{"zen2", "zen2", true},          {"zen3", "zen3", true},
		{"zen4", "zen4", true},          {"zen4-vm", "zen4", true},
		{"skylake-sp", "intel-sp", false}, {"icelake-sp", "intel-sp", false},
		{"sapphire-rapids", "intel-sp", false}, {"emerald-rapids", "intel-sp", false},
		{"granite-rapids", "intel-sp", false}, {"neoverse-v1", "neoverse", false},
		{"neoverse-n2", "neoverse", false}, {"neoverse-v2", "neoverse", false},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct counter_group *g = group_of(want[i].fixture);
		if (!g || strcmp(g->uarch, want[i].uarch)) {
			fprintf(stderr, "%s: %s\n", want[i].fixture, g ? g->uarch : "(none)");
			CHECK(0);
		}
		CHECK(g->validated == want[i].validated);
	}
	/* No documented group: time-only sampling, never a guess. */
	static const char *const none[] = {"zen", "haswell", "skylake", "alderlake", "neoverse-n1",
					   "a64fx", "unknown-intel", "unknown-arm"};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		CHECK(group_of(none[i]) == NULL);
}

static void t_intel_events(void)
{
	const struct counter_group *g = group_of("skylake-sp");
	CHECK_INT(g->nr_events, 10);
	int dp = 0, sp = 0, dram = 0;
	for (int i = 0; i < g->nr_events; i++) {
		dp += !strcmp(g->events[i].canonical, "flops_dp");
		sp += !strcmp(g->events[i].canonical, "flops_sp");
		dram += !strcmp(g->events[i].canonical, "dram_bytes");
	}
	CHECK(dp == 4 && sp == 4 && dram == 2);
	char w0[] = "./solver";
	char *cmd[] = {w0, NULL};
	struct perf_record_opts o = {.perf = "perf", .freq = 997, .group = g, .output = "p.data"};
	char **v = perf_argv_record(&o, cmd);
	bool found = false;
	for (size_t i = 0; v[i]; i++)
		found |= !strcmp(v[i], "fp_arith_inst_retired.512b_packed_double/period=4999999/");
	CHECK(found);
	perf_argv__free(v);
}

/* Each event's FLOPs per count, and a reason saying it was never validated. */
static void t_weights(void)
{
	static const struct {
		const char *event, *canonical;
		double scale;
	} want[] = {
		{"fp_arith_inst_retired.scalar_double/period=4999999/u", "flops_dp", 1},
		{"fp_arith_inst_retired.128b_packed_double/period=4999999/u", "flops_dp", 2},
		{"fp_arith_inst_retired.256b_packed_double/period=4999999/u", "flops_dp", 4},
		{"fp_arith_inst_retired.512b_packed_double/period=4999999/u", "flops_dp", 8},
		{"fp_arith_inst_retired.scalar_single/period=4999999/", "flops_sp", 1},
		{"fp_arith_inst_retired.128b_packed_single/period=4999999/", "flops_sp", 4},
		{"fp_arith_inst_retired.256b_packed_single/period=4999999/", "flops_sp", 8},
		{"fp_arith_inst_retired.512b_packed_single/period=4999999/", "flops_sp", 16},
		{"mem_load_l3_miss_retired.local_dram/period=100003/", "dram_bytes", 64},
		{"mem_load_l3_miss_retired.remote_dram/period=100003/", "dram_bytes", 64},
		{"fp_scale_ops_spec/period=4999999/", "flops", 1},
		{"fp_fixed_ops_spec/period=4999999/", "flops", 1},
		{"ll_cache_miss_rd/period=100003/", "dram_bytes", 64},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char out[64];
		struct counter_info ci;
		ingest_counter_canon(want[i].event, strlen(want[i].event), out, sizeof(out), &ci);
		CHECK_STR(out, want[i].canonical);
		CHECK(ci.scale == want[i].scale);
		CHECK_INT(ci.quality, QUALITY_ESTIMATED);
		CHECK(ci.reason && strstr(ci.reason, "never validated on real hardware"));
	}
	/* The validated Zen FLOP event stays measured, with no reason. */
	char out[64];
	struct counter_info ci;
	const char *z = "fp_ret_sse_avx_ops.all/period=4999999/u";
	ingest_counter_canon(z, strlen(z), out, sizeof(out), &ci);
	CHECK(ci.quality == QUALITY_MEASURED && ci.reason == NULL);
}

static const struct test_case cases[] = {
	{"groups", "group per microarchitecture from the cpuinfo fixtures", t_groups},
	{"intel_events", "Intel: 4 DP, 4 SP, 2 DRAM events in perf record", t_intel_events},
	{"weights", "FLOPs per event; unvalidated groups say so", t_weights},
};
TEST_MAIN(cases)
