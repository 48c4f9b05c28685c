// SPDX-License-Identifier: BSD-3-Clause
// machine_calibrate through the replay executor: the EPYC 7702 recording
// gives its maxima, measured; the budget cuts kernels and says so; a
// recording without a compiler leaves the theory and a reason; the profile
// of a replayed Machine is never cached.
#include "machine/calibrate.h"

#include <ftw.h>
#include <math.h>
#include <sys/stat.h>

#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "machine/profile.h"
#include "machine/snapshot.h"

#define TMPDIR_TAG "calreplay"
#include "tmpdir.h"

#define CAL TEST_CORPUS_DIR "/recordings/calibration/v0/linux-x86_64/epyc-7702"
#define NOCAL TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c"

static const struct ceiling *find(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (!strcmp(m->ceilings[i].name, name))
			return &m->ceilings[i];
	return NULL;
}

static struct executor *replay(const char *entry)
{
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	if (!x) {
		fprintf(stderr, "%s\n", e.msg);
		CHECK(0);
	}
	return x;
}

static void t_recorded(void)
{
	struct executor *x = replay(CAL);
	char *dir = tmpdir();
	struct machine m;
	machine__init(&m);
	struct calibrate_opts o = {.work_dir = dir, .replay = true, .max_freq_khz = -1};
	struct calibrate_report r;
	struct err e = {0};
	CHECK_INT(machine_calibrate(&m, x, &o, &r, &e), 0);
	CHECK_INT(r.nr_measured, 3);
	CHECK(r.problem == NULL && !r.budget_cut);
	CHECK_STR(r.compiler, "cc (Ubuntu 14.2.0-19ubuntu2) 14.2.0");
	CHECK_STR(r.isa, "avx2");
	CHECK(find(&m, "dram_bandwidth")->value == 1.012428e11);
	CHECK(find(&m, "flops_dp")->value == 1.171888e12);
	CHECK(find(&m, "flops_sp")->value == 2.343294e12);
	CHECK(find(&m, "flops_dp")->quality == QUALITY_MEASURED);
	calibrate_report__release(&r);
	machine__release(&m);
	executor__free(x);
	free(dir);
	done();
}

static void t_budget(void)
{
	struct executor *x = replay(CAL);
	char *dir = tmpdir();
	struct machine m;
	machine__init(&m);
	struct calibrate_opts o = {.work_dir = dir, .replay = true, .budget_s = 1e-9};
	struct calibrate_report r;
	struct err e = {0};
	CHECK_INT(machine_calibrate(&m, x, &o, &r, &e), 0);
	CHECK(r.budget_cut);
	CHECK_INT(r.nr_measured, 0);
	CHECK_INT(m.nr_ceilings, 0); /* no cpuinfo recorded: no theory either */
	CHECK(strstr(r.problem, "the calibration budget of 1e-09 s ran out before the triad kernel"));
	calibrate_report__release(&r);
	machine__release(&m);
	executor__free(x);
	free(dir);
	done();
}

static void t_no_compiler(void)
{
	/* workload-c recorded no compiler: cc, gcc, clang all answer 127. */
	struct executor *x = replay(NOCAL);
	char *dir = tmpdir();
	struct machine m;
	machine__init(&m);
	/* A Zen 2 cpuinfo: the theory still gives estimated flops Ceilings. */
	char cpuinfo[] = "vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n"
			 "model name\t: AMD EPYC 7702 64-Core Processor\ncpu MHz\t\t: 2000.000\n";
	CHECK(cpuinfo_parse(cpuinfo, strlen(cpuinfo), &m.cpu, &m.cpu_model) == 0);
	m.logical_cores = m.alloc.visible_cores = 4;
	struct calibrate_opts o = {.work_dir = dir, .replay = true, .cpuinfo = cpuinfo,
				   .max_freq_khz = -1};
	struct calibrate_report r;
	struct err e = {0};
	CHECK_INT(machine_calibrate(&m, x, &o, &r, &e), 0);
	CHECK_STR(r.problem, "no C compiler answered (tried cc, gcc, clang): the Ceilings cannot be "
			     "measured; install gcc or set [tools] cc");
	CHECK(find(&m, "dram_bandwidth") == NULL);
	const struct ceiling *dp = find(&m, "flops_dp");
	CHECK(dp && dp->quality == QUALITY_ESTIMATED && fabs(dp->value - 4 * 2e9 * 16) < 1);
	calibrate_report__release(&r);
	machine__release(&m);
	executor__free(x);
	free(dir);
	done();
}

static void t_profile_replay_never_cached(void)
{
	char *cache = tmpdir();
	setenv("XDG_CACHE_HOME", cache, 1);
	struct executor *x = replay(CAL);
	struct machine m;
	machine__init(&m);
	struct profile_opts o = {.calibrate = true, .replay = true};
	struct profile_outcome po;
	struct err e = {0};
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CALIBRATED && !po.stored && po.cache_path == NULL);
	CHECK_STR(po.not_stored, "a replayed Machine is never cached");
	char probe[600];
	snprintf(probe, sizeof(probe), "%s/nunatak", cache);
	struct stat st;
	CHECK(stat(probe, &st) != 0); /* nothing written under the cache */
	profile_outcome__release(&po);
	machine__release(&m);
	executor__free(x);
	free(cache);
	done();
}

static const struct test_case cases[] = {
	{"recorded", "the EPYC 7702 recording: maxima, measured", t_recorded},
	{"budget", "an exhausted budget skips kernels, saying so", t_budget},
	{"no_compiler", "no compiler: a reason, and the theory's estimates", t_no_compiler},
	{"never_cached", "a replayed Machine is never written to the cache", t_profile_replay_never_cached},
};
TEST_MAIN(cases)
