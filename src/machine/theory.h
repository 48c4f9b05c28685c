/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The theoretical table (REFERENCE.md §5): what a microarchitecture can
 * retire per cycle and per core, turned into *estimated* flops_dp and
 * flops_sp Ceilings = allocated cores x frequency x FLOP/cycle. There is no
 * theoretical bandwidth (DRAM bandwidth depends on channels, DIMMs and NUMA
 * placement that /proc/cpuinfo does not tell). An unknown microarchitecture,
 * frequency or core count gives no Ceiling, never an extrapolation.
 *
 * FLOP/cycle per core counts FMA as two FLOPs at the widest vector width the
 * core retires at full rate: Zen 2/3/4 2x256-bit FMA (Zen 4 executes AVX-512
 * in two halves), Zen 5 and Intel server cores 2x512-bit, Neoverse N1/N2
 * 2x128-bit, V1 2x256-bit SVE, V2 4x128-bit SVE2, A64FX 2x512-bit SVE.
 * Sources: AMD and Intel optimisation manuals, Arm Neoverse software
 * optimisation guides. An x86 part whose entry assumes AVX-512 but whose
 * flags do not expose avx512f (a hypervisor hiding it) is halved, saying so.
 *
 * Frequency, first available of: cpuinfo_max_freq (kHz, cpufreq) -> "@ x.xx
 * GHz" in the brand string -> the maximum "cpu MHz" over every processor
 * block, with the caveat "observed frequency, not a rated maximum". Turbo is
 * not a sustained all-core AVX frequency: a measured Ceiling is what counts.
 *
 * Pure functions; thread-safe.
 */
#ifndef NUNATAK_MACHINE_THEORY_H
#define NUNATAK_MACHINE_THEORY_H

#include <stdbool.h>
#include <stddef.h>

struct machine;
struct cpu_ident;

struct uarch {
	const char *name;      /* "zen2", "skylake-sp", "neoverse-v2", ... */
	double dp_per_cycle;   /* FLOP/cycle/core, double precision */
	double sp_per_cycle;
	bool needs_avx512;     /* the rate assumes 512-bit vectors (x86) */
};

/* The table entry of a CPU: x86 by vendor/family/model, Arm by implementer
 * (vendor "0x41", "0x46") and part (model); `cpu_model` (brand string) is
 * used for "Apple M". NULL when unknown. */
const struct uarch *theory_uarch(const struct cpu_ident *c, const char *cpu_model);

/* Looks a table entry up by name (tests, counter groups); NULL if absent. */
const struct uarch *theory_uarch_by_name(const char *name);

struct frequency {
	double ghz;            /* <= 0: unknown */
	const char *source;    /* "cpuinfo_max_freq", "brand string", "cpu MHz" */
	const char *caveat;    /* NULL, or why the value may not be the peak */
};

/* Detects the frequency from (max_freq_khz, read from cpufreq; <= 0 when
 * absent), the brand string and the full /proc/cpuinfo text (every block:
 * the maximum "cpu MHz" is taken). Returns false when none is known. */
bool theory_frequency(long max_freq_khz, const char *cpu_model, const char *cpuinfo,
		      struct frequency *out);

/* Reads cpuinfo_max_freq of the first CPU of the allocation below `root`
 * ("/" live, a fixture tree in tests): kHz, or -1. */
long theory_read_max_freq_khz(const char *root, int cpu);

/* Appends estimated flops_dp and flops_sp Ceilings to m for the allocation
 * (machine__allocated_cores), unless m already has a Ceiling of that name.
 * cpuinfo: the full /proc/cpuinfo text (or the recorded block), may be NULL.
 * Returns the number added (0: unknown uarch/frequency/cores), or -ENOMEM. */
int theory_add_ceilings(struct machine *m, long max_freq_khz, const char *cpuinfo);

/* The theoretical rate of `name` (flops_dp / flops_sp) for `threads` cores,
 * or NaN when unknown. The pollution check compares a measured kernel
 * against it, rescaled to the kernel's thread count. basis (may be NULL)
 * receives how it was computed: "zen4: 2 threads x 2.60 GHz (cpu MHz,
 * observed frequency, not a rated maximum) x 16 FLOP/cycle". */
double theory_rate(const struct machine *m, long max_freq_khz, const char *cpuinfo,
		   const char *name, double threads, char *basis, size_t basis_len);

#endif
