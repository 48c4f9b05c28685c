// SPDX-License-Identifier: BSD-3-Clause
// The cost of one sample, measured with the calibration (sample_cost.h).
#include "machine/sample_cost.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "exec/exec.h"
#include "model/machine.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) (linear between neighbours). */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int lo = (int)pos;
	return lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

/* The per-pair costs of k into c (sorted); returns how many. */
static int pair_costs(const struct kernel_output *k, double *c)
{
	int n = 0, pairs = k->nr_reps < k->nr_sampled ? k->nr_reps : k->nr_sampled;
	for (int i = 0; k->work > 0 && i < pairs; i++) {
		double rb = k->reps[i], rs = k->sampled[i], ns = k->samples[i];
		if (rb > 0 && rs > 0 && ns >= 1)
			c[n++] = (k->work / rs - k->work / rb) / ns;
	}
	qsort(c, (size_t)n, sizeof(*c), by_value);
	return n;
}

int sample_cost_compute(const char *name, const struct kernel_output *k, struct ceiling *out)
{
	memset(out, 0, sizeof(*out));
	double c[KERNEL_MAX_REPS];
	int n = pair_costs(k, c);
	double med = n ? quantile(c, n, 0.5) : NAN;
	out->name = xstrdup(name);
	out->unit = xstrdup("s");
	out->value = NAN;
	out->quality = QUALITY_UNAVAILABLE;
	if (n < 3) {
		out->reason = xasprintf("%d pair%s of repetitions answered, 3 are needed", n,
					n == 1 ? "" : "s");
	} else if (!(med > 0)) {
		out->reason = xasprintf("no slowdown above this machine's noise (median over %d "
					"pairs %.3g us)", n, med * 1e6);
	} else {
		double q1 = quantile(c, n, 0.25), q3 = quantile(c, n, 0.75);
		char *r = NULL;
		if ((q3 - q1) / med > SAMPLE_COST_SPREAD)
			r = xasprintf("the %d pairs disperse: their middle half spans %.3g to %.3g us",
				      n, q1 * 1e6, q3 * 1e6);
		out->value = med;
		out->reason = r;
		out->quality = r ? QUALITY_ESTIMATED : QUALITY_MEASURED;
	}
	if (!out->name || !out->unit || (out->quality != QUALITY_MEASURED && !out->reason)) {
		ceiling__release_strings(out);
		return -ENOMEM;
	}
	return 0;
}

int sample_cost_unavailable(struct machine *m, const char *name, const char *why)
{
	struct ceiling c = {(char *)name, NAN, (char *)"s", QUALITY_UNAVAILABLE, (char *)why};
	return machine__put_cost(m, &c);
}

/* The frequency: SAMPLE_COST_FREQ, under the kernel's current cap. */
static int cost_freq(void)
{
	char *text = NULL;
	int f = SAMPLE_COST_FREQ;
	if (fs_read_file("/proc/sys/kernel/perf_event_max_sample_rate", 64, &text, NULL) == 0) {
		long cap = strtol(text, NULL, 10);
		if (cap > 0 && cap < f)
			f = (int)cap;
	}
	xfree(text);
	return f;
}

/* One sample_* kernel's answer into m's cost `name`. 0, or -ENOMEM (a
 * kernel that gave nothing is an unavailable cost). */
static int take(struct machine *m, const char *kernel, const char *name,
		const struct exec_result *res)
{
	struct kernel_output k;
	struct err pe = {0};
	int rc;
	if (res->exit_code == 0 && kernel_output_parse(res->out, res->out_len, &k, &pe) == 0) {
		struct ceiling c;
		rc = sample_cost_compute(name, &k, &c);
		if (rc == 0)
			rc = machine__put_cost(m, &c);
		ceiling__release_strings(&c);
		return rc;
	}
	const char *msg = res->err && res->err[0] ? res->err : pe.msg[0] ? pe.msg : "no output";
	int len = (int)strcspn(msg, "\n");
	char *why = xasprintf("not measured: the %s kernel %s %d: %.*s", kernel,
			      res->timed_out ? "ran past its time limit, exit" : "exited",
			      res->exit_code, len > 200 ? 200 : len, msg);
	rc = why ? sample_cost_unavailable(m, name, why) : -ENOMEM;
	xfree(why);
	return rc;
}

#define NR_COSTS 3

int machine_sample_costs(struct machine *m, struct executor *x, const struct calibrate_opts *o,
			 const char *bin, struct calibrate_report *r, struct err *e)
{
	static const char *const kernel[NR_COSTS] = {"sample_fp", "sample_dwarf",
						     "sample_preload"};
	static const char *const name[NR_COSTS] = {COST_PERF_FP, COST_PERF_DWARF, COST_PRELOAD};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int freq = cost_freq();
	char reps[16], ms[16], hz[16], phz[16], one[] = "1";
	snprintf(reps, sizeof(reps), "%d", SAMPLE_COST_REPS);
	snprintf(ms, sizeof(ms), "%d", SAMPLE_COST_MS);
	snprintf(hz, sizeof(hz), "%d", freq);
	snprintf(phz, sizeof(phz), "%d", SAMPLE_COST_PRELOAD_FREQ);
	/* the preload sampler without its library: unavailable, saying so */
	int n = o->sampler_lib ? NR_COSTS : NR_COSTS - 1;
	const char *argv[NR_COSTS][8];
	struct exec_request rq[NR_COSTS];
	struct exec_result res[NR_COSTS];
	for (int i = 0; i < n; i++) {
		bool pre = i == NR_COSTS - 1;
		const char *a[] = {bin, kernel[i], one, reps, ms, pre ? phz : hz,
				   pre ? o->sampler_lib : NULL, NULL};
		memcpy(argv[i], a, sizeof(a));
		rq[i] = (struct exec_request){.argv = argv[i], .capture_stdout = true,
					      .capture_stderr = true, .timeout_s = 120};
	}
	int rc = executor__run_batch(x, rq, (size_t)n, res, e);
	for (int i = 0; rc == 0 && i < n; i++)
		if (take(m, kernel[i], name[i], &res[i]) < 0)
			rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	for (int i = 0; i < n; i++)
		exec_result__release(&res[i]);
	if (rc == 0 && n < NR_COSTS &&
	    sample_cost_unavailable(m, COST_PRELOAD, "not measured: libscope_profiler.so (the "
				    "preload sampler) is not beside nunatak") < 0)
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->cost_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	r->cost_freq = freq;
	return rc;
}
