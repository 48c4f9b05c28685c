// SPDX-License-Identifier: BSD-3-Clause
// The theoretical table on real-format /proc/cpuinfo texts: one fixture per
// microarchitecture, frequency detection in its order, estimated Ceilings
// scaled to the allocation with the reason naming cores x GHz x FLOP/cycle,
// and no Ceiling at all for an unknown part.
#include "machine/theory.h"

#include <math.h>

#include "harness.h"
#include "machine/snapshot.h"
#include "common/fsutil.h"

#define FIX TEST_SOURCE_DIR "/tests/fixtures/cpuinfo/"

/* A Machine from a fixture, with `cores` allocated (no cgroup quota). */
static char *load(struct machine *m, const char *name, int cores)
{
	char *text = NULL;
	size_t len = 0;
	char path[512];
	snprintf(path, sizeof(path), FIX "%s.txt", name);
	CHECK(fs_read_file(path, 1 << 24, &text, &len) == 0);
	machine__init(m);
	CHECK(cpuinfo_parse(text, len, &m->cpu, &m->cpu_model) == 0);
	m->logical_cores = cores;
	m->alloc.visible_cores = cores;
	return text;
}

static const struct ceiling *ceiling(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (strcmp(m->ceilings[i].name, name) == 0)
			return &m->ceilings[i];
	return NULL;
}

static void t_table(void)
{
	static const struct {
		const char *fixture, *uarch;
		double dp, sp;
	} want[] = {
		{"zen", "zen", 8, 16},
		{"zen2", "zen2", 16, 32},
		{"zen3", "zen3", 16, 32},
		{"zen4", "zen4", 16, 32},
		{"zen4-vm", "zen4", 16, 32},
		{"zen5", "zen5", 32, 64},
		{"haswell", "haswell/broadwell", 16, 32},
		{"skylake", "skylake", 16, 32},
		{"alderlake", "alderlake/raptorlake", 16, 32},
		{"skylake-sp", "skylake-sp", 32, 64},
		{"icelake-sp", "icelake-sp", 32, 64},
		{"sapphire-rapids", "sapphire-rapids", 32, 64},
		{"emerald-rapids", "emerald-rapids", 32, 64},
		{"granite-rapids", "granite-rapids", 32, 64},
		{"neoverse-n1", "neoverse-n1", 8, 16},
		{"neoverse-v1", "neoverse-v1", 16, 32},
		{"neoverse-n2", "neoverse-n2", 8, 16},
		{"neoverse-v2", "neoverse-v2", 16, 32},
		{"a64fx", "a64fx", 32, 64},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct machine m;
		char *text = load(&m, want[i].fixture, 4);
		const struct uarch *u = theory_uarch(&m.cpu, m.cpu_model);
		if (!u || strcmp(u->name, want[i].uarch) != 0) {
			fprintf(stderr, "%s: got %s\n", want[i].fixture, u ? u->name : "(none)");
			CHECK(0);
		}
		CHECK(u->dp_per_cycle == want[i].dp && u->sp_per_cycle == want[i].sp);
		/* 3 GHz from cpufreq: 4 cores x 3 GHz x FLOP/cycle, exactly. */
		CHECK_INT(theory_add_ceilings(&m, 3000000, text), 2);
		const struct ceiling *dp = ceiling(&m, "flops_dp"), *sp = ceiling(&m, "flops_sp");
		CHECK(dp && sp && dp->quality == QUALITY_ESTIMATED && sp->quality == QUALITY_ESTIMATED);
		CHECK(fabs(dp->value - 4 * 3e9 * want[i].dp) < 1);
		CHECK(fabs(sp->value - 4 * 3e9 * want[i].sp) < 1);
		CHECK_STR(dp->unit, "flop/s");
		char r[256];
		snprintf(r, sizeof(r),
			 "theoretical peak of %s: 4 cores x 3.00 GHz x %g FLOP/cycle; run `nunatak "
			 "calibrate` for a measured Ceiling",
			 want[i].uarch, want[i].dp);
		CHECK_STR(dp->reason, r);
		machine__release(&m);
		free(text);
	}
}

static void t_unknown(void)
{
	static const char *const unknown[] = {"unknown-intel", "unknown-arm"};
	for (size_t i = 0; i < 2; i++) {
		struct machine m;
		char *text = load(&m, unknown[i], 8);
		CHECK(theory_uarch(&m.cpu, m.cpu_model) == NULL);
		CHECK_INT(theory_add_ceilings(&m, 3000000, text), 0);
		CHECK_INT(m.nr_ceilings, 0);
		CHECK(isnan(theory_rate(&m, 3000000, text, "flops_dp", 8, NULL, 0)));
		machine__release(&m);
		free(text);
	}
}

static void t_frequency_order(void)
{
	struct frequency f;
	/* cpufreq wins over everything. */
	CHECK(theory_frequency(3500000, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz",
			       "cpu MHz\t: 1000.0\n", &f));
	CHECK(fabs(f.ghz - 3.5) < 1e-9 && strcmp(f.source, "cpuinfo_max_freq") == 0 && !f.caveat);
	/* Then the rated frequency of the brand string. */
	CHECK(theory_frequency(-1, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz",
			       "cpu MHz\t: 1000.0\n", &f));
	CHECK(fabs(f.ghz - 2.4) < 1e-9 && strcmp(f.source, "brand string") == 0 && !f.caveat);
	/* Then the highest observed cpu MHz of every block, with its caveat. */
	struct machine m;
	char *text = load(&m, "zen4", 2);
	CHECK(theory_frequency(-1, m.cpu_model, text, &f));
	CHECK(fabs(f.ghz - 2.4) < 1e-9 && strcmp(f.source, "cpu MHz") == 0);
	CHECK_STR(f.caveat, "observed frequency, not a rated maximum");
	machine__release(&m);
	free(text);
	CHECK(!theory_frequency(-1, "AMD EPYC", "processor\t: 0\n", &f));
}

static void t_this_vm(void)
{
	/* The real cpuinfo of the development VM: no cpufreq, no "@" in the
	 * brand string, so the observed cpu MHz with its caveat. */
	struct machine m;
	char *text = load(&m, "zen4-vm", 2);
	CHECK_INT(theory_add_ceilings(&m, -1, text), 2);
	const struct ceiling *dp = ceiling(&m, "flops_dp");
	CHECK(fabs(dp->value - 2 * 2.596134e9 * 16) < 1e3);
	CHECK(strstr(dp->reason, "theoretical peak of zen4: 2 cores x 2.60 GHz x 16 FLOP/cycle"));
	CHECK(strstr(dp->reason, "; observed frequency, not a rated maximum"));
	/* ... which the pollution check still compares against, saying the
	 * clock is only observed (calibrate.h). */
	char basis[192];
	CHECK(fabs(theory_rate(&m, -1, text, "flops_dp", 2, basis, sizeof(basis)) -
		   2 * 2.596134e9 * 16) < 1e3);
	CHECK_STR(basis, "zen4: 2 threads x 2.60 GHz (cpu MHz, observed frequency, not a rated "
			 "maximum) x 16 FLOP/cycle");
	machine__release(&m);
	free(text);
}

static void t_allocation_and_existing(void)
{
	/* A cgroup quota of 1.5 cores scales the Ceiling; a Ceiling already
	 * present (measured) is never replaced by theory. */
	struct machine m;
	char *text = load(&m, "skylake-sp", 40);
	m.alloc.cpu_quota = 1.5;
	m.alloc.has_cpu_quota = true;
	char name[] = "flops_dp", unit[] = "flop/s";
	struct ceiling meas = {name, 1e11, unit, QUALITY_MEASURED, NULL};
	CHECK(machine__add_ceiling(&m, &meas) == 0);
	CHECK_INT(theory_add_ceilings(&m, -1, text), 1);
	CHECK(ceiling(&m, "flops_dp")->value == 1e11);
	const struct ceiling *sp = ceiling(&m, "flops_sp");
	CHECK(fabs(sp->value - 1.5 * 2.4e9 * 64) < 1);
	CHECK(strstr(sp->reason, "1.5 cores x 2.40 GHz x 64 FLOP/cycle"));
	CHECK(fabs(theory_rate(&m, -1, text, "flops_dp", 3, NULL, 0) - 3 * 2.4e9 * 32) < 1);
	machine__release(&m);
	free(text);
}

static void t_avx512_hidden(void)
{
	struct machine m;
	char *text = load(&m, "skylake-sp-noavx512", 1);
	CHECK_INT(theory_add_ceilings(&m, -1, text), 2);
	const struct ceiling *dp = ceiling(&m, "flops_dp");
	CHECK(fabs(dp->value - 2.4e9 * 16) < 1);
	CHECK(strstr(dp->reason, "avx512f is not exposed to this system"));
	machine__release(&m);
	free(text);
}

static void t_no_cores(void)
{
	struct machine m;
	char *text = load(&m, "zen2", 1);
	m.logical_cores = -1;
	m.alloc.visible_cores = -1;
	CHECK_INT(theory_add_ceilings(&m, 2000000, text), 0);
	machine__release(&m);
	free(text);
}

static void t_sysfs(void)
{
	CHECK(theory_read_max_freq_khz("/nonexistent-root", 0) == -1);
}

static const struct test_case cases[] = {
	{"table", "every listed microarchitecture from its cpuinfo fixture", t_table},
	{"unknown", "an unknown part gets no Ceiling, never an extrapolation", t_unknown},
	{"frequency", "cpufreq > brand string > max cpu MHz with its caveat", t_frequency_order},
	{"this_vm", "this VM's real cpuinfo: zen4, observed frequency", t_this_vm},
	{"allocation", "scaled to the CPU quota; a present Ceiling wins", t_allocation_and_existing},
	{"avx512_hidden", "a 512-bit entry without avx512f is halved, saying so", t_avx512_hidden},
	{"no_cores", "unknown core count: no Ceiling", t_no_cores},
	{"sysfs", "absent cpufreq reads as unknown", t_sysfs},
};
TEST_MAIN(cases)
