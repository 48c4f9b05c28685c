// SPDX-License-Identifier: BSD-3-Clause
// Machine snapshot: cgroup v1/v2/hybrid fixture trees (tests/golden/cgroup/),
// cpuinfo parsing on a fixture and on this machine, replay from a corpus
// meta.json, JSON round trip.
#include "machine/snapshot.h"

#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <unistd.h>

#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "common/fsutil.h"

#define FIXTURES TEST_SOURCE_DIR "/tests/golden/cgroup"

static void read_tree(const char *tree, struct allocation *a)
{
	struct err e = {0};
	memset(a, 0, sizeof(*a));
	CHECK_INT(allocation_read_cgroup(tree, a, &e), 0);
}

static void t_cgroup_v2(void)
{
	struct allocation a;
	read_tree(FIXTURES "/v2", &a);
	CHECK(a.has_cpu_quota);
	CHECK_NEAR(a.cpu_quota, 2.5, 1e-12);
	/* The parent slice's 4 GiB binds tighter than the scope's own 8 GiB. */
	CHECK_INT(a.memory_limit_bytes, 4294967296LL);
	CHECK_STR(a.cgroup, "v2");
	allocation__release(&a);
}

static void t_cgroup_v2_max(void)
{
	struct allocation a;
	read_tree(FIXTURES "/v2-max", &a);
	CHECK(!a.has_cpu_quota);
	CHECK_INT(a.memory_limit_bytes, -1);
	CHECK_STR(a.cgroup, "v2");
	allocation__release(&a);
}

static void t_cgroup_v1(void)
{
	struct allocation a;
	read_tree(FIXTURES "/v1", &a);
	CHECK(a.has_cpu_quota);
	CHECK_NEAR(a.cpu_quota, 4.0, 1e-12);
	CHECK_INT(a.memory_limit_bytes, 17179869184LL);
	CHECK_STR(a.cgroup, "v1");
	allocation__release(&a);
}

static void t_cgroup_hybrid(void)
{
	struct allocation a;
	read_tree(FIXTURES "/hybrid", &a);
	CHECK(!a.has_cpu_quota);
	CHECK_INT(a.memory_limit_bytes, 2147483648LL);
	CHECK_STR(a.cgroup, "hybrid");
	allocation__release(&a);
}

static void t_cgroup_absent(void)
{
	/* A root without /proc: nothing observable, nothing invented. */
	struct allocation a;
	read_tree(TEST_SOURCE_DIR "/tests/golden/cgroup/v2/sys", &a);
	CHECK(!a.has_cpu_quota);
	CHECK_INT(a.memory_limit_bytes, -1);
	CHECK(a.cgroup == NULL);
	allocation__release(&a);
}

static void t_cpuinfo_fixture(void)
{
	char *text = NULL, *model = NULL;
	size_t len = 0;
	CHECK_INT(fs_read_file(FIXTURES "/v2/proc/cpuinfo", 1 << 20, &text, &len), 0);
	struct cpu_ident c = {0};
	CHECK_INT(cpuinfo_parse(text, len, &c, &model), 0);
	CHECK_STR(model, "Intel(R) Xeon(R) Platinum 8480+");
	CHECK_STR(c.vendor, "GenuineIntel");
	CHECK_INT(c.family, 6);
	CHECK_INT(c.model, 143);
	CHECK_INT(c.stepping, 8);
	CHECK(cpu_ident__has_flag(&c, "constant_tsc"));
	CHECK(cpu_ident__has_flag(&c, "nonstop_tsc"));
	CHECK(cpu_ident__has_flag(&c, "avx512f"));
	CHECK(cpu_ident__has_flag(&c, "hypervisor"));
	CHECK(!cpu_ident__has_flag(&c, "asimd"));
	CHECK(!cpu_ident__has_flag(&c, "tsc")); /* not a flag of interest */
	cpu_ident__release(&c);
	free(text);
	free(model);
}

static void t_cpuinfo_arm(void)
{
	const char *t = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm sve\n"
			"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\n"
			"CPU part\t: 0xd40\nCPU revision\t: 1\n\nprocessor\t: 1\n";
	struct cpu_ident c = {0};
	char *model = NULL;
	CHECK_INT(cpuinfo_parse(t, strlen(t), &c, &model), 0);
	CHECK(model == NULL);
	CHECK_STR(c.vendor, "0x41");
	CHECK_INT(c.family, 8);
	CHECK_INT(c.model, 0xd40);
	CHECK_INT(c.stepping, 1);
	CHECK(cpu_ident__has_flag(&c, "asimd"));
	CHECK(cpu_ident__has_flag(&c, "sve"));
	CHECK(!cpu_ident__has_flag(&c, "sve2"));
	cpu_ident__release(&c);
}

static void t_live(void)
{
	struct machine m;
	struct err e = {0};
	machine__init(&m);
	CHECK_INT(machine__snapshot(&m, NULL, &e), 0);
	CHECK_STR(m.system, "Linux");
	CHECK(m.kernel && *m.kernel);
	CHECK(m.architecture && *m.architecture);
	CHECK_INT(m.logical_cores, sysconf(_SC_NPROCESSORS_ONLN));
	cpu_set_t set;
	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
	CHECK(m.alloc.has_affinity);
	CHECK_INT(m.alloc.visible_cores, CPU_COUNT(&set));
	for (size_t i = 0; i < m.alloc.nr_affinity; i++)
		CHECK(CPU_ISSET(m.alloc.affinity_mask[i], &set));
	char *text = NULL, *model = NULL;
	if (fs_read_file("/proc/cpuinfo", 64 << 20, &text, NULL) == 0 && strstr(text, "model name")) {
		/* Compare against the first "model name" line, read independently. */
		char *p = strstr(text, "model name"), *v = strchr(p, ':') + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		model = strndup(v, strcspn(v, "\n"));
		CHECK_STR(m.cpu_model, model);
		if (strstr(text, "vendor_id"))
			CHECK(m.cpu.vendor != NULL);
	}
	double cores = 0;
	CHECK(machine__allocated_cores(&m, &cores));
	CHECK(cores > 0 && cores <= (double)m.alloc.visible_cores);
	free(text);
	free(model);
	machine__release(&m);
}

static void t_allocated_cores(void)
{
	struct machine m;
	machine__init(&m);
	double c = -1;
	CHECK(!machine__allocated_cores(&m, &c)); /* nothing known: no number */
	m.logical_cores = 64;
	CHECK(machine__allocated_cores(&m, &c));
	CHECK_NEAR(c, 64, 0);
	m.alloc.visible_cores = 8;
	CHECK(machine__allocated_cores(&m, &c));
	CHECK_NEAR(c, 8, 0);
	m.alloc.has_cpu_quota = true;
	m.alloc.cpu_quota = 2.5;
	CHECK(machine__allocated_cores(&m, &c));
	CHECK_NEAR(c, 2.5, 0);
	m.alloc.cpu_quota = 16;
	CHECK(machine__allocated_cores(&m, &c));
	CHECK_NEAR(c, 8, 0);
}

static void t_replay_meta(void)
{
	/* The corpus entry's platform and cpuinfo, never this machine's. */
	const char *path = TEST_CORPUS_DIR
		"/recordings/perf/6.14.11/linux-x86_64/workload-c-multipass/meta.json";
	json_error_t je;
	json_t *meta = json_load_file(path, 0, &je);
	if (!meta)
		FAIL_INPUT("corpus entry workload-c-multipass not found");
	struct machine m;
	struct err e = {0};
	machine__init(&m);
	CHECK_INT(machine__from_recorded_meta(&m, meta, &e), 0);
	CHECK(m.replayed);
	CHECK_STR(m.kernel, "6.14.0-27-generic");
	CHECK_STR(m.cpu_model, "AMD EPYC 7702 64-Core Processor");
	CHECK_STR(m.cpu.vendor, "AuthenticAMD");
	CHECK_INT(m.cpu.family, 23);
	CHECK_INT(m.cpu.model, 49);
	CHECK(cpu_ident__has_flag(&m.cpu, "avx2"));
	CHECK(!cpu_ident__has_flag(&m.cpu, "constant_tsc")); /* absent from that VM */
	CHECK_INT(m.logical_cores, -1); /* not recorded: unknown, not ours */
	CHECK(!m.alloc.has_affinity);
	CHECK(m.hostname == NULL);
	machine__release(&m);
	json_decref(meta);
}

static void t_replay_executor(void)
{
	/* machine__snapshot through a replay executor never looks at this host. */
	const char *entry = TEST_CORPUS_DIR
		"/recordings/perf/6.14.11/linux-x86_64/workload-c-stacks";
	struct err e = {0};
	struct executor *x = fs_exists(entry) ? executor__new_replay(entry, &e) : NULL;
	if (!x)
		FAIL_INPUT("corpus entry workload-c-stacks cannot be replayed");
	struct machine m;
	machine__init(&m);
	CHECK_INT(machine__snapshot(&m, x, &e), 0);
	CHECK(m.replayed);
	CHECK_STR(m.kernel, "6.14.0-27-generic");
	CHECK_STR(m.cpu_model, "AMD EPYC 7702 64-Core Processor"); /* no cpuinfo in that entry */
	CHECK_INT(m.cpu.family, -1);
	CHECK_INT(m.logical_cores, -1);
	machine__release(&m);
	executor__free(x);
}

static void t_recording_roundtrip(void)
{
	/* What we record replays to the same machine (cores and allocation too). */
	struct machine m, r;
	struct err e = {0};
	machine__init(&m);
	machine__init(&r);
	CHECK_INT(machine__snapshot_at(&m, FIXTURES "/v1", &e), 0);
	json_t *meta = machine__recording_meta(&m);
	CHECK(meta != NULL);
	CHECK_INT(machine__from_recorded_meta(&r, meta, &e), 0);
	CHECK_STR(r.kernel, m.kernel);
	CHECK_INT(r.logical_cores, m.logical_cores);
	CHECK_INT(r.alloc.nr_affinity, m.alloc.nr_affinity);
	CHECK_NEAR(r.alloc.cpu_quota, 4.0, 0);
	CHECK_INT(r.alloc.memory_limit_bytes, 17179869184LL);
	json_decref(meta);
	machine__release(&m);
	machine__release(&r);
}

static void t_json_roundtrip(void)
{
	struct machine m, r;
	struct err e = {0};
	machine__init(&m);
	machine__init(&r);
	CHECK_INT(machine__snapshot_at(&m, FIXTURES "/v2", &e), 0);
	CHECK_STR(m.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
	struct ceiling c = {(char *)"flops_dp", 1.1719e12, (char *)"flop/s", QUALITY_MEASURED,
			    NULL};
	CHECK_INT(machine__add_ceiling(&m, &c), 0);
	c.name = (char *)"dram_bandwidth";
	c.quality = QUALITY_ESTIMATED;
	c.reason = (char *)"repetitions disperse by 12%";
	CHECK_INT(machine__add_ceiling(&m, &c), 0);
	json_t *j = machine__to_json(&m);
	CHECK(j != NULL);
	CHECK_INT(strlen(json_string_value(json_object_get(j, "identity"))), 16);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "allocation"),
						     "memory_limit_bytes")), 4294967296LL);
	CHECK_INT(machine__from_json(&r, j, &e), 0);
	CHECK_STR(r.cpu_model, m.cpu_model);
	CHECK_INT(r.cpu.family, 6);
	CHECK_INT(r.cpu.nr_flags, m.cpu.nr_flags);
	CHECK_INT(r.nr_ceilings, 2);
	CHECK_STR(r.ceilings[1].reason, "repetitions disperse by 12%");
	CHECK_INT(r.ceilings[1].quality, QUALITY_ESTIMATED);
	CHECK_NEAR(r.ceilings[0].value, 1.1719e12, 1);
	CHECK_NEAR(r.alloc.cpu_quota, 2.5, 0);
	json_t *again = machine__to_json(&r);
	CHECK(json_equal(j, again));
	json_decref(again);
	/* Bad input names the field. */
	json_object_set_new(json_object_get(j, "allocation"), "cpu_quota", json_string("2"));
	CHECK(machine__from_json(&r, j, &e) < 0);
	CHECK(strstr(e.msg, "cpu_quota") != NULL);
	json_decref(j);
	machine__release(&m);
	machine__release(&r);
}

static const struct test_case cases[] = {
	{"cgroup_v2", "v2 cpu.max and memory.max, tightest ancestor wins", t_cgroup_v2},
	{"cgroup_v2_max", "v2 'max' means no cap; default mount without mountinfo", t_cgroup_v2_max},
	{"cgroup_v1", "v1 cfs quota/period and limit_in_bytes, unlimited sentinel", t_cgroup_v1},
	{"cgroup_hybrid", "v1 controllers beside an empty unified tree, container root", t_cgroup_hybrid},
	{"cgroup_absent", "no /proc under the root: every limit unknown", t_cgroup_absent},
	{"cpuinfo_fixture", "x86 vendor/family/model/flags and model name", t_cpuinfo_fixture},
	{"cpuinfo_arm", "ARM implementer/part/Features", t_cpuinfo_arm},
	{"live", "snapshot of this machine agrees with the OS", t_live},
	{"allocated_cores", "min(visible or logical, quota); unknown stays unknown", t_allocated_cores},
	{"replay_meta", "corpus meta.json gives platform and cpuinfo", t_replay_meta},
	{"replay_executor", "snapshot under a replay executor uses meta.json", t_replay_executor},
	{"recording_roundtrip", "our recording meta replays to the same machine", t_recording_roundtrip},
	{"json_roundtrip", "to_json/from_json round trip with ceilings", t_json_roundtrip},
};
TEST_MAIN(cases)
