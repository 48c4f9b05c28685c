// SPDX-License-Identifier: BSD-3-Clause
// The cost of one sample from the sample_* kernels' pairs (sample_cost.h):
// the median of per-pair extra CPU time per sample, its Quality, the
// parser's "work"/"sampled" lines, and the costs' place in the Machine (JSON
// round trip, cache keep rules).
#include "machine/sample_cost.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "common/err.h"
#include "harness.h"
#include "model/machine.h"

/* Our kernel on the 2-core build VM at load 21 (fp, 4999 Hz, 9 pairs, 3
 * kept here): bare 1.33e11 flop/s, sampled 1.22e11, 44 samples a half. */
static const char FP[] = "kernel sample_fp\nisa avx512\nthreads 1\nload 21.47\n"
			 "rep 0 1.343916e+11\nsampled 0 1.207808e+11 45\n"
			 "rep 1 1.325519e+11\nsampled 1 1.241263e+11 44\n"
			 "rep 2 1.327820e+11\nsampled 2 1.236630e+11 44\n"
			 "work 1.086999e+09\ncpu_share 0.206\n";

static struct kernel_output parse(const char *text)
{
	struct kernel_output k;
	struct err e = {0};
	if (kernel_output_parse(text, strlen(text), &k, &e) != 0) {
		fprintf(stderr, "%s\n", e.msg);
		CHECK(0);
	}
	return k;
}

static double pair(const struct kernel_output *k, int i)
{
	return (k->work / k->sampled[i] - k->work / k->reps[i]) / k->samples[i];
}

static void t_compute(void)
{
	struct kernel_output k = parse(FP);
	CHECK_INT(k.nr_reps, 3);
	CHECK_INT(k.nr_sampled, 3);
	CHECK(k.work == 1.086999e9 && k.samples[0] == 45 && k.sampled[2] == 1.236630e11);
	double c[3] = {pair(&k, 0), pair(&k, 1), pair(&k, 2)}, med;
	/* the median of three */
	med = c[0] > c[1] ? (c[1] > c[2] ? c[1] : c[0] > c[2] ? c[2] : c[0])
			  : (c[0] > c[2] ? c[0] : c[1] > c[2] ? c[2] : c[1]);
	struct ceiling out;
	CHECK(sample_cost_compute(COST_PERF_FP, &k, &out) == 0);
	CHECK_STR(out.name, "perf_sample_fp");
	CHECK_STR(out.unit, "s");
	CHECK(fabs(out.value - med) < 1e-15);
	CHECK(out.value > 5e-6 && out.value < 30e-6); /* ~15 us on that VM */
	/* a busy machine (cpu_share 0.2) does not stretch CPU times: measured */
	CHECK(out.quality == QUALITY_MEASURED && !out.reason);
	ceiling__release_strings(&out);
}

static void t_quality(void)
{
	/* pairs far apart: estimated, the spread said */
	struct kernel_output k = parse("kernel sample_fp\nwork 1e9\n"
				       "rep 0 1e11\nsampled 0 0.9e11 100\n"
				       "rep 1 1e11\nsampled 1 0.99e11 100\n"
				       "rep 2 1e11\nsampled 2 0.5e11 100\n");
	struct ceiling out;
	CHECK(sample_cost_compute(COST_PERF_DWARF, &k, &out) == 0);
	CHECK(out.quality == QUALITY_ESTIMATED && out.value > 0);
	CHECK(out.reason && strstr(out.reason, "the 3 pairs disperse: their middle half spans"));
	ceiling__release_strings(&out);
	/* no slowdown: unavailable, never zero */
	k = parse("kernel sample_fp\nwork 1e9\nrep 0 1e11\nsampled 0 1.01e11 100\n"
		  "rep 1 1e11\nsampled 1 1.0e11 100\nrep 2 1e11\nsampled 2 1.02e11 100\n");
	CHECK(sample_cost_compute(COST_PERF_FP, &k, &out) == 0);
	CHECK(out.quality == QUALITY_UNAVAILABLE && isnan(out.value));
	CHECK(strstr(out.reason, "no slowdown above this machine's noise") != NULL);
	ceiling__release_strings(&out);
	/* too few pairs (a sampled half without samples does not count) */
	k = parse("kernel sample_fp\nwork 1e9\nrep 0 1e11\nsampled 0 0.9e11 100\n"
		  "rep 1 1e11\nsampled 1 0.9e11 0\n");
	CHECK(sample_cost_compute(COST_PERF_FP, &k, &out) == 0);
	CHECK(out.quality == QUALITY_UNAVAILABLE);
	CHECK_STR(out.reason, "1 pair of repetitions answered, 3 are needed");
	ceiling__release_strings(&out);
	/* no work line: nothing to compute from */
	k = parse("kernel sample_fp\nrep 0 1e11\nsampled 0 0.9e11 100\n");
	CHECK(sample_cost_compute(COST_PERF_FP, &k, &out) == 0);
	CHECK(out.quality == QUALITY_UNAVAILABLE);
	ceiling__release_strings(&out);
}

static void t_parse_errors(void)
{
	struct kernel_output k;
	struct err e = {0};
	const char *bad = "kernel sample_fp\nsampled 0 1e11\n";
	CHECK(kernel_output_parse(bad, strlen(bad), &k, &e) == -EINVAL);
	CHECK_STR(e.msg, "kernel output: line 2: expected 'sampled <i> <rate> <samples>', found "
			 "'0 1e11'");
	bad = "kernel sample_fp\nsampled 0 -1 5\n";
	CHECK(kernel_output_parse(bad, strlen(bad), &k, &e) == -EINVAL);
	bad = "kernel sample_fp\nwork 0\n";
	CHECK(kernel_output_parse(bad, strlen(bad), &k, &e) == -EINVAL);
	CHECK_STR(e.msg, "kernel output: line 2: expected 'work <flop>', found '0'");
}

/* The costs travel with the Machine: JSON round trip; a cached measured
 * cost is kept over an estimated one, never over another measured. */
static void t_machine(void)
{
	struct machine m, back;
	machine__init(&m);
	machine__init(&back);
	struct ceiling c = {(char *)COST_PERF_FP, 1.5e-5, (char *)"s", QUALITY_MEASURED, NULL};
	CHECK(machine__put_cost(&m, &c) == 0);
	CHECK(sample_cost_unavailable(&m, COST_PERF_DWARF, "not measured: why") == 0);
	c.value = 2e-5;
	CHECK(machine__put_cost(&m, &c) == 0); /* replaces, no duplicate */
	CHECK(m.nr_costs == 2 && machine__cost(&m, COST_PERF_FP)->value == 2e-5);
	json_t *j = machine__to_json(&m);
	CHECK(j && json_array_size(json_object_get(j, "costs")) == 2);
	struct err e = {0};
	CHECK(machine__from_json(&back, j, &e) == 0);
	const struct ceiling *d = machine__cost(&back, COST_PERF_DWARF);
	CHECK(d && d->quality == QUALITY_UNAVAILABLE && isnan(d->value));
	CHECK_STR(d->reason, "not measured: why");
	CHECK(machine__cost(&back, COST_PERF_FP)->value == 2e-5);
	CHECK(!machine__cost(&back, "nothing"));
	json_decref(j);
	/* a Machine without costs writes no key (older readers, goldens) */
	machine__clear_costs(&back);
	j = machine__to_json(&back);
	CHECK(j && !json_object_get(j, "costs"));
	json_decref(j);
	machine__release(&m);
	machine__release(&back);
}

static const struct test_case cases[] = {
	{"compute", "median of the pairs' extra CPU time per sample, measured under load", t_compute},
	{"quality", "dispersed pairs estimated; no slowdown or too few pairs unavailable", t_quality},
	{"parse_errors", "bad work/sampled lines named with their line", t_parse_errors},
	{"machine", "costs in the Machine: replace by name, JSON round trip", t_machine},
};
TEST_MAIN(cases)
