// SPDX-License-Identifier: BSD-3-Clause
#include "machine/theory.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "machine/snapshot.h"
#include "common/fsutil.h"

static const struct uarch table[] = {
	{"zen", 8, 16, false},
	{"zen2", 16, 32, false},
	{"zen3", 16, 32, false},
	{"zen4", 16, 32, false},       /* AVX-512 in two 256-bit halves */
	{"zen5", 32, 64, true},
	{"haswell/broadwell", 16, 32, false},
	{"skylake", 16, 32, false},
	{"alderlake/raptorlake", 16, 32, false},
	{"skylake-sp", 32, 64, true},  /* Skylake-SP, Cascade Lake, Cooper Lake */
	{"icelake-sp", 32, 64, true},
	{"sapphire-rapids", 32, 64, true},
	{"emerald-rapids", 32, 64, true},
	{"granite-rapids", 32, 64, true},
	{"neoverse-n1", 8, 16, false},
	{"neoverse-v1", 16, 32, false},
	{"neoverse-n2", 8, 16, false},
	{"neoverse-v2", 16, 32, false}, /* NVIDIA Grace, AWS Graviton4 */
	{"a64fx", 32, 64, false},
	{"apple-m", 16, 32, false},
};
#define NR_TABLE (sizeof(table) / sizeof(table[0]))

const struct uarch *theory_uarch_by_name(const char *name)
{
	for (size_t i = 0; name && i < NR_TABLE; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

static bool in(int v, const int *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}
#define IN(v, ...) in((v), (const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

static const char *amd(int fam, int model)
{
	if (fam == 23)
		return model <= 0x2f ? "zen" : "zen2";
	if (fam == 25) {
		if ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
		    (model >= 0xa0 && model <= 0xaf))
			return "zen4";
		if (model <= 0x0f || (model >= 0x20 && model <= 0x5f))
			return "zen3";
		return NULL;
	}
	return fam == 26 ? "zen5" : NULL;
}

static const char *intel(int fam, int model)
{
	if (fam != 6)
		return NULL;
	if (model == 0x55)
		return "skylake-sp";
	if (IN(model, 0x6a, 0x6c))
		return "icelake-sp";
	if (model == 0x8f)
		return "sapphire-rapids";
	if (model == 0xcf)
		return "emerald-rapids";
	if (IN(model, 0xad, 0xae))
		return "granite-rapids";
	if (IN(model, 0x3c, 0x3d, 0x3f, 0x45, 0x46, 0x47, 0x4f, 0x56))
		return "haswell/broadwell";
	if (IN(model, 0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6, 0xa7))
		return "skylake";
	if (IN(model, 0x97, 0x9a, 0xb7, 0xba, 0xbf))
		return "alderlake/raptorlake";
	return NULL;
}

static const char *arm(const char *impl, int part)
{
	if (strcmp(impl, "0x41") == 0) {
		switch (part) {
		case 0xd0c: return "neoverse-n1";
		case 0xd40: return "neoverse-v1";
		case 0xd49: return "neoverse-n2";
		case 0xd4f: return "neoverse-v2";
		default: return NULL;
		}
	}
	if (strcmp(impl, "0x46") == 0 && part == 0x001)
		return "a64fx";
	return NULL;
}

const struct uarch *theory_uarch(const struct cpu_ident *c, const char *cpu_model)
{
	if (cpu_model && strncmp(cpu_model, "Apple M", 7) == 0)
		return theory_uarch_by_name("apple-m");
	if (!c || !c->vendor || c->model < 0)
		return NULL;
	const char *name = NULL;
	if (strcmp(c->vendor, "AuthenticAMD") == 0)
		name = amd(c->family, c->model);
	else if (strcmp(c->vendor, "GenuineIntel") == 0)
		name = intel(c->family, c->model);
	else if (strncmp(c->vendor, "0x", 2) == 0)
		name = arm(c->vendor, c->model);
	return theory_uarch_by_name(name);
}

/* "... @ 2.30GHz" (Intel brand strings); <= 0 when absent. */
static double brand_ghz(const char *model)
{
	const char *at = model ? strrchr(model, '@') : NULL;
	if (!at)
		return 0;
	char *end;
	double v = strtod(at + 1, &end);
	while (*end == ' ')
		end++;
	return v > 0 && strncmp(end, "GHz", 3) == 0 ? v : 0;
}

static double max_cpu_mhz(const char *cpuinfo)
{
	double best = 0;
	for (const char *l = cpuinfo; l && *l;) {
		if (strncmp(l, "cpu MHz", 7) == 0) {
			const char *colon = strchr(l, ':');
			const char *nl = strchr(l, '\n');
			if (colon && (!nl || colon < nl)) {
				double v = strtod(colon + 1, NULL);
				best = v > best ? v : best;
			}
		}
		const char *nl = strchr(l, '\n');
		l = nl ? nl + 1 : NULL;
	}
	return best;
}

bool theory_frequency(long max_freq_khz, const char *cpu_model, const char *cpuinfo,
		      struct frequency *out)
{
	*out = (struct frequency){0, NULL, NULL};
	if (max_freq_khz > 0) {
		*out = (struct frequency){(double)max_freq_khz / 1e6, "cpuinfo_max_freq", NULL};
		return true;
	}
	double g = brand_ghz(cpu_model);
	if (g > 0) {
		*out = (struct frequency){g, "brand string", NULL};
		return true;
	}
	double mhz = max_cpu_mhz(cpuinfo);
	if (mhz > 0) {
		*out = (struct frequency){mhz / 1e3, "cpu MHz",
					  "observed frequency, not a rated maximum"};
		return true;
	}
	return false;
}

long theory_read_max_freq_khz(const char *root, int cpu)
{
	char rel[96];
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq",
		 cpu < 0 ? 0 : cpu);
	char *path = fs_join(root ? root : "/", rel), *text = NULL;
	long v = -1;
	if (path && fs_read_file(path, 64, &text, NULL) == 0) {
		char *end;
		v = strtol(text, &end, 10);
		if (end == text || v <= 0)
			v = -1;
	}
	xfree(text);
	xfree(path);
	return v;
}

/* FLOP/cycle of u for precision dp/sp on this CPU, and why it was halved. */
static double per_cycle(const struct uarch *u, const struct machine *m, bool dp,
			const char **why)
{
	double f = dp ? u->dp_per_cycle : u->sp_per_cycle;
	*why = NULL;
	bool x86 = m->cpu.vendor && strncmp(m->cpu.vendor, "0x", 2) != 0;
	if (u->needs_avx512 && x86 && m->cpu.nr_flags && !cpu_ident__has_flag(&m->cpu, "avx512f")) {
		*why = "avx512f is not exposed to this system: rated at 256-bit vectors";
		f /= 2;
	}
	return f;
}

static const char *cpuinfo_of(const struct machine *m, const char *cpuinfo)
{
	return cpuinfo ? cpuinfo : m->cpuinfo_text;
}

double theory_rate(const struct machine *m, long max_freq_khz, const char *cpuinfo,
		   const char *name, double threads, char *basis, size_t basis_len)
{
	const struct uarch *u = theory_uarch(&m->cpu, m->cpu_model);
	struct frequency fr;
	bool dp = strcmp(name, "flops_dp") == 0;
	if (basis && basis_len)
		basis[0] = '\0';
	if (!u || (!dp && strcmp(name, "flops_sp") != 0) || !(threads > 0) ||
	    !theory_frequency(max_freq_khz, m->cpu_model, cpuinfo_of(m, cpuinfo), &fr))
		return NAN;
	/* An observed frequency is no rated maximum: it still gives the peak the
	 * table predicts at that clock, and the basis says so (calibrate.h: a
	 * kernel far above it is not trusted as measured either way). */
	const char *why;
	double f = per_cycle(u, m, dp, &why);
	if (basis && basis_len)
		snprintf(basis, basis_len, "%s: %g thread%s x %.2f GHz (%s%s%s) x %g FLOP/cycle",
			 u->name, threads, threads == 1 ? "" : "s", fr.ghz, fr.source,
			 fr.caveat ? ", " : "", fr.caveat ? fr.caveat : "", f);
	return threads * fr.ghz * 1e9 * f;
}

static bool has_ceiling(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (m->ceilings[i].name && strcmp(m->ceilings[i].name, name) == 0)
			return true;
	return false;
}

int theory_add_ceilings(struct machine *m, long max_freq_khz, const char *cpuinfo)
{
	const struct uarch *u = theory_uarch(&m->cpu, m->cpu_model);
	double cores;
	struct frequency fr;
	if (!u || !machine__allocated_cores(m, &cores) || !(cores > 0) ||
	    !theory_frequency(max_freq_khz, m->cpu_model, cpuinfo_of(m, cpuinfo), &fr))
		return 0;
	static const char *const names[] = {"flops_dp", "flops_sp"};
	int added = 0;
	for (int k = 0; k < 2; k++) {
		if (has_ceiling(m, names[k]))
			continue;
		const char *why;
		double f = per_cycle(u, m, k == 0, &why);
		char *reason = xasprintf(
			"theoretical peak of %s: %g cores x %.2f GHz x %g FLOP/cycle; run "
			"`nunatak calibrate` for a measured Ceiling%s%s%s%s",
			u->name, cores, fr.ghz, f, fr.caveat ? "; " : "", fr.caveat ? fr.caveat : "",
			why ? "; " : "", why ? why : "");
		char name[16], unit[] = "flop/s";
		snprintf(name, sizeof(name), "%s", names[k]);
		struct ceiling c = {name, cores * fr.ghz * 1e9 * f, unit, QUALITY_ESTIMATED, reason};
		int rc = reason ? machine__add_ceiling(m, &c) : -ENOMEM;
		xfree(reason);
		if (rc)
			return -ENOMEM;
		added++;
	}
	return added;
}
