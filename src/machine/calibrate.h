/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibration (REFERENCE.md §5): the kernels of calibration/kernel.c are
 * written to the Machine cache, built there with the target's compiler
 * (tools/cc.h builds the argv) and run as separate processes through the
 * execution boundary, so a recording captures them and a replay serves them
 * back. Each kernel's Ceiling is the maximum of its repetitions; pollution
 * downgrades it to estimated with its reasons:
 *   - dispersion (max-min)/max > 10 %      "repetitions disperse by X%"
 *   - concurrent load: the kernel's threads obtained < 90 % of their CPUs
 *     (cpu_share, measured by the kernel itself), or, for kernels that do
 *     not report it (the reference's recordings), 1-min load > 0.5 x threads;
 *     a kernel timed on its threads' CPU time ("timing cpu": our FMA kernels,
 *     run on every allocated core whatever else runs there, since a core's
 *     peak is what it does while it runs) keeps its value under load, still
 *     estimated: the sum over threads assumes the cores ran together
 *   - a scalar build of an FMA kernel      "kernel built without SIMD: ..."
 *   - > 1.25 x the theoretical rate for the kernel's threads when the clock
 *     behind it is rated (cpuinfo_max_freq, brand string): the value is
 *     kept but estimated, the reason naming both figures, the ratio and the
 *     basis. A theory built on an observed clock (cpu MHz) is itself an
 *     estimate, no bound: a kernel above it (a boost clock) stays measured
 *     (issue 24: 1.16e11 flop/s over 83 Gflop/s at an observed 2.60 GHz);
 *   - a triad working set below 4 x the last-level cache of the allocation;
 *   - fewer free cores than allocated (free_cpus.h): the triad runs on the
 *     free ones, a lower bound, "measured on 1 of 2 allocated cores (the
 *     others were busy)" (the FMA kernels need no free core, above).
 * Measured values win; the theoretical table fills the missing flops ones.
 * The cpu_share rule deviates on purpose from the reference's loadavg: the
 * 1-min average lags, and counts the previous kernel's own threads.
 */
#ifndef NUNATAK_MACHINE_CALIBRATE_H
#define NUNATAK_MACHINE_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

struct ceiling;
struct err;
struct executor;
struct machine;

#define CALIBRATION_DEFAULT_REPS 20 /* at most: the kernel stops once stable */
#define CALIBRATION_DEFAULT_MS 50
#define CALIBRATION_DEFAULT_BUDGET_S 60.0
#define CALIBRATION_DISPERSION 0.10
#define CALIBRATION_CPU_SHARE 0.90
#define CALIBRATION_THEORY_MARGIN 1.25
#define KERNEL_MAX_REPS 64

/* The embedded kernel source (generated at build time from
 * calibration/kernel.c). */
extern const char calibration_kernel_c[];
extern const size_t calibration_kernel_c_len;

/* One kernel's stdout: "kernel NAME", "isa ISA", "threads N", "load L",
 * "bytes B" (triad), "rep I RATE" ..., and from our own kernel "init_s S"
 * and "cpu_share F"; the sample_* kernels add "work W" (flop per
 * repetition) and "sampled I RATE SAMPLES" (the sampled half of pair I).
 * Unknown keys are skipped (a newer kernel may add some). */
struct kernel_output {
	char kernel[16];
	char isa[16];
	int threads;        /* -1: not reported */
	double load;        /* < 0: unknown ("load -1") */
	double bytes;       /* triad working set; <= 0: not reported */
	double reps[KERNEL_MAX_REPS];
	int nr_reps;
	double init_s;      /* NaN: not reported */
	double cpu_share;   /* NaN: not reported */
	double work;        /* NaN: not reported */
	bool cpu_timed;     /* "timing cpu": each thread's rate over its own CPU
			       time, which concurrent load does not stretch */
	double sampled[KERNEL_MAX_REPS], samples[KERNEL_MAX_REPS]; /* samples -1: unknown */
	int nr_sampled;
};

/* Pure: parses a kernel's output. Returns 0, or -EINVAL with e naming the
 * line ("kernel output: line 3: expected 'threads <n>', found 'threads x'"). */
int kernel_output_parse(const char *text, size_t len, struct kernel_output *k, struct err *e);

/* What the pollution rules compare against. */
struct pollution_ref {
	double theory;      /* theoretical rate for k->threads threads; NaN unknown */
	const char *basis;  /* how theory was computed (theory_rate()), or NULL */
	double llc_bytes;   /* last-level cache of the allocation; <= 0 unknown */
	bool observed;      /* theory rests on an observed clock: no bound */
};

/* The Ceiling of one kernel output (name dram_bandwidth / flops_dp /
 * flops_sp from k->kernel): value = max of reps, Quality measured unless
 * polluted. Fills *out with allocated strings (release with ceiling__free_
 * strings). Returns 0, -ENODATA when there is no positive repetition or the
 * kernel is unknown, -ENOMEM. */
int calibration_ceiling(const struct kernel_output *k, const struct pollution_ref *p,
			struct ceiling *out);
void ceiling__release_strings(struct ceiling *c);

/* Progress: called before each phase (done of total) with a label. */
typedef void (*calibrate_progress_fn)(void *ctx, const char *label, unsigned long done,
				      unsigned long total);

struct calibrate_opts {
	const char *cc;          /* configured compiler (tools.cc) or NULL: cc, gcc, clang */
	const char *work_dir;    /* kernel source and binary go here (created) */
	bool replay;             /* the executor replays: never reuse a binary on disk */
	int reps, ms;            /* 0: the defaults */
	double budget_s;         /* 0: the default; checked before each kernel */
	long max_freq_khz;       /* for the theory check; -1 unknown */
	const char *cpuinfo;     /* full /proc/cpuinfo text (cpu MHz), or NULL */
	double llc_bytes;        /* <= 0 unknown */
	double triad_bytes;      /* 0: the kernel's own default (1/8 RAM, [768 MiB, 6 GiB]) */
	const int *free_cpus;    /* the allocated CPUs found free (free_cpus.h), */
	int nr_free_cpus;        /* 0 (or >= the cores): every allocated core */
	const char *sampler_lib; /* libscope_profiler.so (the preload sampler), or
				    NULL: its cost per sample is unavailable */
	calibrate_progress_fn progress;
	void *progress_ctx;
};

struct calibrate_report {
	char *compiler;          /* first line of `<cc> --version`, or NULL */
	char *isa;               /* what the kernels were built for */
	char *problem;           /* why nothing could be measured, or NULL */
	double build_s;          /* 0 when a cached binary was reused */
	double total_s;
	double init_s;           /* page faulting the triad arrays (NaN unknown) */
	double kernel_s[3];      /* wall time of each kernel process */
	int nr_measured, nr_estimated;
	bool reused_binary;
	bool budget_cut;         /* a kernel was skipped for the budget */
	int threads;             /* threads the triad ran (fewer than the
				    allocated cores on a loaded Machine) */
	int flops_threads;       /* threads the FMA kernels ran (every core) */
	double cost_s;           /* measuring the cost per sample (0: not done) */
	int cost_freq;           /* the sampling frequency it used (0: not done) */
};
void calibrate_report__release(struct calibrate_report *r);

/* Builds (or reuses) the kernel and runs triad, fma_dp, fma_sp, then
 * measures the cost per sample (sample_cost.h; not under replay), with
 * max(1, floor(allocated cores)) threads, or on o->free_cpus only when
 * fewer are free (FLOP rates then scaled to the allocation, the triad kept
 * as a lower bound, both estimated with the reason); replaces m's Ceilings of those
 * names by what was obtained, then lets the theory fill flops_dp/flops_sp
 * where no kernel answered. A missing compiler or a failed build is not an
 * error: r->problem says why, and the theory still applies. Returns 0, or
 * negative (out of memory, unwritable work_dir) with e filled. */
int machine_calibrate(struct machine *m, struct executor *x, const struct calibrate_opts *o,
		      struct calibrate_report *r, struct err *e);

/* Only the cost per sample (sample_cost.h), for a Machine whose cached
 * profile predates it: the kernel built (or its sealed binary reused) in
 * o->work_dir, then the sample_* kernels; m's Ceilings untouched. A failed
 * build leaves the costs unavailable with the reason. Not under replay.
 * Returns 0, or negative (out of memory, unwritable work_dir). */
int machine_calibrate_costs(struct machine *m, struct executor *x, const struct calibrate_opts *o,
			    struct calibrate_report *r, struct err *e);

/* The last-level cache visible to the allocation (sum over distinct caches
 * shared by the allowed CPUs), read below root; <= 0 when unknown. */
double machine_llc_bytes(const char *root, const struct machine *m);

/* The triad's working set: three arrays of 4 x the last-level cache each
 * (12 x llc in [96 MiB, 6 GiB], never below 4 x llc), 768 MiB when the
 * cache is unknown, lowered to half the cgroup memory limit. The reference
 * page-faulted 1/8 of RAM (3 GiB here: most of an 11-45 s calibration). */
double calibration_triad_bytes(const struct machine *m, double llc_bytes);

#endif
