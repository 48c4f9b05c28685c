// SPDX-License-Identifier: BSD-3-Clause
// The calibration kernel's output format (recorded EPYC 7702 outputs and our
// own kernel's extra lines), Ceiling = max of repetitions, and each
// pollution rule downgrading to estimated with its reason.
#include "machine/calibrate.h"

#include <errno.h>
#include <math.h>

#include "common/err.h"
#include "harness.h"
#include "tools/cc.h"
#include "machine/snapshot.h"
#include "machine/theory.h"

/* Recorded: calibration/v0/linux-x86_64/epyc-7702/invocations/002.stdout */
static const char TRIAD[] = "kernel triad\nisa avx2\nthreads 32\nload 6.21\nbytes 6442450944\n"
			    "rep 0 1.007176e+11\nrep 1 1.003737e+11\nrep 2 1.001487e+11\n"
			    "rep 3 1.012428e+11\nrep 4 1.010613e+11\n";

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

static void t_parse_recorded(void)
{
	struct kernel_output k = parse(TRIAD);
	CHECK_STR(k.kernel, "triad");
	CHECK_STR(k.isa, "avx2");
	CHECK_INT(k.threads, 32);
	CHECK(k.load == 6.21 && k.bytes == 6442450944.0);
	CHECK_INT(k.nr_reps, 5);
	CHECK(k.reps[3] == 1.012428e11);
	CHECK(isnan(k.cpu_share) && isnan(k.init_s));
	struct ceiling c;
	struct pollution_ref p = {.theory = NAN};
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK_STR(c.name, "dram_bandwidth");
	CHECK_STR(c.unit, "B/s");
	CHECK(c.value == 1.012428e11 && c.quality == QUALITY_MEASURED && !c.reason);
	ceiling__release_strings(&c);
}

static void t_parse_ours(void)
{
	struct kernel_output k = parse("kernel fma_dp\nisa avx512\nthreads 2\nload -1\nrep 0 8e10\n"
				       "rep 1 8.1e10\ncpu_share 0.985\nfuture_key 3\n");
	CHECK(k.load == -1 && k.cpu_share == 0.985 && k.nr_reps == 2);
	k = parse("kernel triad\nthreads 2\nbytes 24\nrep 0 1e10\ninit_s 1.25\ncpu_share 1.000\n");
	CHECK(k.init_s == 1.25);
}

static void t_parse_errors(void)
{
	struct kernel_output k;
	struct err e = {0};
	const char *bad = "kernel triad\nthreads many\n";
	CHECK(kernel_output_parse(bad, strlen(bad), &k, &e) == -EINVAL);
	CHECK_STR(e.msg, "kernel output: line 2: expected 'threads <n>', found 'many'");
	bad = "kernel triad\nrep 0\n";
	CHECK(kernel_output_parse(bad, strlen(bad), &k, &e) == -EINVAL);
	CHECK_STR(e.msg, "kernel output: line 2: expected 'rep <i> <rate>', found '0'");
	bad = "isa avx2\n";
	CHECK(kernel_output_parse(bad, strlen(bad), &k, &e) == -EINVAL);
	CHECK_STR(e.msg, "kernel output: no 'kernel <name>' line in 1 line(s)");
	/* No repetition: no Ceiling at all (never 0). */
	k = parse("kernel fma_sp\nisa avx2\n");
	struct ceiling c;
	CHECK(calibration_ceiling(&k, NULL, &c) == -ENODATA);
	k = parse("kernel mystery\nrep 0 5\n");
	CHECK(calibration_ceiling(&k, NULL, &c) == -ENODATA);
}

static char *reason_of(const char *text, double theory, double llc)
{
	struct kernel_output k = parse(text);
	struct pollution_ref p = {.theory = theory, .llc_bytes = llc};
	struct ceiling c;
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK((c.quality == QUALITY_ESTIMATED) == (c.reason != NULL));
	char *r = c.reason;
	c.reason = NULL;
	ceiling__release_strings(&c);
	return r;
}

/* The development VM's figures (issues 16, 24): fma_dp measured 1.159e11
 * flop/s on 2 threads, the theory 83 Gflop/s from the observed 2.60 GHz (no
 * rated maximum). A theory on an observed clock is an estimate, no bound:
 * the value stays measured. The same figures against a rated clock are
 * judged: estimated, the reason naming both figures and the basis; at 1.2x
 * it stays measured. */
static void t_above_observed_clock(void)
{
	struct machine m;
	machine__init(&m);
	m.cpu.vendor = (char *)"AuthenticAMD";
	m.cpu.family = 25;
	m.cpu.model = 0x11;
	const char *cpuinfo = "processor\t: 0\ncpu MHz\t\t: 2596.134\n";
	char basis[192];
	double th = theory_rate(&m, -1, cpuinfo, "flops_dp", 2, basis, sizeof(basis));
	CHECK(fabs(th - 2 * 2.596134e9 * 16) < 1e3);
	struct kernel_output k = parse("kernel fma_dp\nisa avx512\nthreads 2\nrep 0 1.159e11\n"
				       "rep 1 1.15e11\ncpu_share 0.99\n");
	struct pollution_ref p = {.theory = th, .basis = basis, .observed = true};
	struct ceiling c;
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK(c.quality == QUALITY_MEASURED && c.value == 1.159e11 && c.reason == NULL);
	ceiling__release_strings(&c);
	/* A rated 2.60 GHz is a bound. */
	th = theory_rate(&m, 2596134, cpuinfo, "flops_dp", 2, basis, sizeof(basis));
	p = (struct pollution_ref){.theory = th, .basis = basis, .observed = false};
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK(c.quality == QUALITY_ESTIMATED && c.value == 1.159e11);
	CHECK_STR(c.reason, "far above the theoretical peak: 1.16e+11 flop/s is 1.40x the "
			    "8.31e+10 flop/s of zen4: 2 threads x 2.60 GHz (cpuinfo_max_freq) x 16 "
			    "FLOP/cycle, beyond the 25% margin (a clock above the one assumed, a "
			    "wrong table entry or a broken timing)");
	ceiling__release_strings(&c);
	k = parse("kernel fma_dp\nisa avx512\nthreads 2\nrep 0 1.0e11\ncpu_share 0.99\n");
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK(c.quality == QUALITY_MEASURED && c.reason == NULL);
	ceiling__release_strings(&c);
	m.cpu.vendor = NULL;
	machine__release(&m);
}

static void t_pollution(void)
{
	char *r = reason_of("kernel fma_dp\nisa avx2\nthreads 4\nload 0.1\nrep 0 100\nrep 1 80\n", NAN, 0);
	CHECK_STR(r, "repetitions disperse by 20%");
	free(r);
	r = reason_of("kernel fma_dp\nisa avx2\nthreads 4\nload 2.5\nrep 0 100\n", NAN, 0);
	CHECK_STR(r, "concurrent load 2.50 on 4 allocated cores");
	free(r);
	/* The kernel's own CPU share wins over the lagging load average. */
	r = reason_of("kernel fma_dp\nisa avx2\nthreads 2\nload 9\nrep 0 100\ncpu_share 0.95\n", NAN, 0);
	CHECK(r == NULL);
	r = reason_of("kernel fma_dp\nisa avx2\nthreads 2\nload 0\nrep 0 100\ncpu_share 0.5\n", NAN, 0);
	CHECK_STR(r, "concurrent load: the kernel's 2 threads obtained 50% of their CPUs");
	free(r);
	r = reason_of("kernel fma_sp\nisa scalar\nthreads 1\nrep 0 100\n", NAN, 0);
	CHECK_STR(r, "kernel built without SIMD: this is not the machine's peak");
	free(r);
	r = reason_of("kernel fma_dp\nisa avx2\nthreads 1\nrep 0 126\n", 100, 0);
	CHECK_STR(r, "far above the theoretical peak: 126 flop/s is 1.26x the 100 flop/s of this "
		     "microarchitecture, beyond the 25% margin (a clock above the one assumed, a "
		     "wrong table entry or a broken timing)");
	free(r);
	r = reason_of("kernel fma_dp\nisa avx2\nthreads 1\nrep 0 124\n", 100, 0);
	CHECK(r == NULL);
	r = reason_of("kernel triad\nthreads 1\nbytes 100663296\nrep 0 1e10\n", NAN, 32 << 20);
	CHECK_STR(r, "triad working set of 96 MiB is below 4x the last-level cache (32 MiB): caches "
		     "may have served it");
	free(r);
	/* Several reasons join with "; " in rule order. */
	r = reason_of("kernel fma_dp\nisa scalar\nthreads 2\nrep 0 10\nrep 1 5\ncpu_share 0.2\n", NAN, 0);
	CHECK_STR(r, "repetitions disperse by 50%; concurrent load: the kernel's 2 threads obtained "
		     "20% of their CPUs; kernel built without SIMD: this is not the machine's peak");
	free(r);
}

static void t_cc_adapter(void)
{
	const char *c[5];
	CHECK_INT(cc_candidates("icx", c), 4);
	CHECK_STR(c[0], "icx");
	CHECK_STR(c[3], "clang");
	CHECK_INT(cc_candidates("gcc", c), 3);
	CHECK_STR(c[1], "cc");
	CHECK(c[3] == NULL);
	char **v = cc_argv_build("cc", "-march=native", "/c/k.c", "/c/kernel-v0");
	const char *want[] = {"cc", "-O3", "-march=native", "-pthread", "/c/k.c", "-o", "/c/kernel-v0"};
	for (int i = 0; i < 7; i++)
		CHECK_STR(v[i], want[i]);
	CHECK(v[7] == NULL);
	cc_argv__free(v);
	char *l = cc_version_line("cc (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright\n");
	CHECK_STR(l, "cc (Debian 12.2.0-14+deb12u1) 12.2.0");
	free(l);
	CHECK(cc_version_line("") == NULL);
}

static void t_triad_size(void)
{
	struct machine m;
	machine__init(&m);
	double b = calibration_triad_bytes(&m, 0);
	CHECK(b >= 768.0 * 1048576 - 24 && b <= 6144.0 * 1048576);
	CHECK(fmod(b, 24) == 0);
	CHECK(calibration_triad_bytes(&m, 4096.0 * 1048576) >= 4 * 4096.0 * 1048576 - 24);
	/* a 32 MiB L3: arrays of 4x it each (384 MiB), not 1/8 of RAM */
	b = calibration_triad_bytes(&m, 32.0 * 1048576);
	CHECK(b > 384.0 * 1048576 - 24 && b <= 384.0 * 1048576);
	CHECK(calibration_triad_bytes(&m, 1.0 * 1048576) >= 96.0 * 1048576 - 24);
	m.alloc.memory_limit_bytes = 512 << 20;
	CHECK(calibration_triad_bytes(&m, 0) <= 256.0 * 1048576);
	machine__release(&m);
	CHECK(calibration_kernel_c_len > 1000 && strstr(calibration_kernel_c, "cpu_share"));
}

/* Our FMA kernels time each thread on its CPU time ("timing cpu"): a busy
 * machine does not stretch that; under load the value stays, estimated
 * because the sum assumes the cores ran together; dispersion still counts. */
static void t_cpu_timed(void)
{
	struct kernel_output k = parse("kernel fma_dp\nisa avx512\nthreads 2\nload 16\ntiming cpu\n"
				       "rep 0 2.603e11\nrep 1 2.582e11\nrep 2 2.604e11\n"
				       "cpu_share 0.133\n");
	CHECK(k.cpu_timed && k.nr_reps == 3);
	struct pollution_ref p = {NAN, NULL, 0, false};
	struct ceiling c;
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK(c.value == 2.604e11 && c.quality == QUALITY_ESTIMATED);
	CHECK_STR(c.reason, "concurrent load: the kernel's 2 threads obtained 13% of their CPUs; "
			    "each timed on its own CPU time, summed as if the cores had run together");
	ceiling__release_strings(&c);
	k = parse("kernel fma_dp\nisa avx512\nthreads 2\ntiming cpu\nrep 0 2.603e11\n"
		  "rep 1 2.6e11\ncpu_share 0.97\n");
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK(c.value == 2.603e11 && c.quality == QUALITY_MEASURED && !c.reason);
	ceiling__release_strings(&c);
	k = parse("kernel fma_dp\nisa avx512\nthreads 2\nrep 0 2.603e11\ncpu_share 0.133\n");
	CHECK(!k.cpu_timed && calibration_ceiling(&k, &p, &c) == 0);
	CHECK(c.quality == QUALITY_ESTIMATED && strstr(c.reason, "concurrent load"));
	ceiling__release_strings(&c);
	k = parse("kernel fma_dp\nthreads 2\ntiming cpu\nrep 0 1e11\nrep 1 2e11\n");
	CHECK(calibration_ceiling(&k, &p, &c) == 0);
	CHECK_STR(c.reason, "repetitions disperse by 50%");
	ceiling__release_strings(&c);
}

static const struct test_case cases[] = {
	{"cpu_timed", "CPU-timed FMA rates kept under load, estimated with why", t_cpu_timed},
	{"parse_recorded", "the EPYC 7702 triad output: max of reps, measured", t_parse_recorded},
	{"parse_ours", "our kernel's cpu_share/init_s; unknown keys skipped", t_parse_ours},
	{"parse_errors", "bad lines named with line numbers; no reps no Ceiling", t_parse_errors},
	{"pollution", "each pollution rule downgrades with its reason", t_pollution},
	{"above_observed_clock", "1.16e11 over an observed-clock 83 Gflop/s: measured; over a rated one: estimated",
	 t_above_observed_clock},
	{"cc_adapter", "compiler candidates, build argv, version line", t_cc_adapter},
	{"triad_size", "reference size, 4x LLC, half the memory cap", t_triad_size},
};
TEST_MAIN(cases)
