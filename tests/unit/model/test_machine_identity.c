// SPDX-License-Identifier: BSD-3-Clause
// Machine identity: byte-identical to the Python predecessor's
// sha256(json.dumps({...}, sort_keys=True))[:16]; the expected digests below
// were produced by that expression in CPython 3.11 for the same values.
#include "model/machine_identity.h"

#include "common/err.h"
#include "harness.h"
#include "machine/snapshot.h"

static void fill(struct machine *m, int *mask, size_t n)
{
	machine__init(m);
	m->system = strdup("Linux");
	m->architecture = strdup("x86_64");
	m->cpu_model = strdup("AMD EPYC 7702 64-Core Processor");
	m->logical_cores = 128;
	m->alloc.affinity_mask = mask;
	m->alloc.nr_affinity = n;
	m->alloc.has_affinity = true;
	m->alloc.visible_cores = (int64_t)n;
}

static void t_python_compatible(void)
{
	int mask[32];
	for (int i = 0; i < 32; i++)
		mask[i] = i;
	struct machine m;
	fill(&m, mask, 32);
	char id[MACHINE_ID_SIZE];
	CHECK_INT(machine_identity(&m, id), 0);
	CHECK_STR(id, "2298bbf5579e2651");
}

static void t_escapes_and_quota(void)
{
	int mask[2] = {3, 5};
	struct machine m;
	fill(&m, mask, 2);
	free(m.cpu_model);
	/* e-acute, an emoji (surrogate pair), quote, backslash, newline */
	m.cpu_model = strdup("Intel(R) Xeon(R) Platinum 8480+ \xc3\xa9\xf0\x9f\x98\x80\"\\\n");
	m.logical_cores = 8;
	m.alloc.has_cpu_quota = true;
	m.alloc.cpu_quota = 2.5;
	m.alloc.memory_limit_bytes = 4294967296LL;
	char *json = machine_identity_json(&m);
	CHECK_STR(json, "{\"affinity_mask\": [3, 5], \"architecture\": \"x86_64\", \"cpu_model\": "
			"\"Intel(R) Xeon(R) Platinum 8480+ \\u00e9\\ud83d\\ude00\\\"\\\\\\n\", "
			"\"cpu_quota\": 2.5, \"logical_cores\": 8, \"memory_limit_bytes\": "
			"4294967296, \"system\": \"Linux\", \"visible_cores\": 2}");
	free(json);
	char id[MACHINE_ID_SIZE];
	CHECK_INT(machine_identity(&m, id), 0);
	CHECK_STR(id, "9752c1cc5e1ad784");
}

static void t_unknowns_are_null(void)
{
	struct machine m;
	machine__init(&m);
	m.system = strdup("Linux");
	m.architecture = strdup("aarch64");
	m.alloc.has_cpu_quota = true;
	m.alloc.cpu_quota = 4.0;
	char id[MACHINE_ID_SIZE];
	CHECK_INT(machine_identity(&m, id), 0);
	CHECK_STR(id, "961f57833e7174be");
}

static void t_excluded_fields(void)
{
	/* Kernel release, hostname and Ceilings do not change the identity; the
	 * allocation shape does. */
	int mask[4] = {0, 1, 2, 3};
	struct machine m;
	fill(&m, mask, 4);
	char a[MACHINE_ID_SIZE], b[MACHINE_ID_SIZE];
	CHECK_INT(machine_identity(&m, a), 0);
	m.kernel = strdup("6.1.0-13-amd64");
	m.hostname = strdup("node042");
	struct ceiling c = {(char *)"flops_dp", 1e12, (char *)"flop/s", QUALITY_MEASURED, NULL};
	m.alloc.affinity_mask = NULL; /* the stack array must not be freed */
	CHECK_INT(machine__add_ceiling(&m, &c), 0);
	m.alloc.affinity_mask = mask;
	CHECK_INT(machine_identity(&m, b), 0);
	CHECK_STR(a, b);
	m.alloc.cpu_quota = 2;
	m.alloc.has_cpu_quota = true;
	CHECK_INT(machine_identity(&m, b), 0);
	CHECK(strcmp(a, b) != 0);
	m.alloc.has_cpu_quota = false;
	mask[3] = 7; /* same count, other cores: another Machine */
	CHECK_INT(machine_identity(&m, b), 0);
	CHECK(strcmp(a, b) != 0);
}

static void t_stable(void)
{
	/* This machine's identity is a pure function of its snapshot. */
	struct machine m1, m2;
	struct err e = {0};
	machine__init(&m1);
	machine__init(&m2);
	CHECK_INT(machine__snapshot(&m1, NULL, &e), 0);
	CHECK_INT(machine__snapshot(&m2, NULL, &e), 0);
	char a[MACHINE_ID_SIZE], b[MACHINE_ID_SIZE];
	CHECK_INT(machine_identity(&m1, a), 0);
	CHECK_INT(machine_identity(&m2, b), 0);
	CHECK_STR(a, b);
	CHECK_INT(strspn(a, "0123456789abcdef"), 16);
	machine__release(&m1);
	machine__release(&m2);
}

static void t_float_repr(void)
{
	static const struct {
		double v;
		const char *repr;
	} cases[] = {
		{2.5, "2.5"},         {4.0, "4.0"},       {1e16, "1e+16"},
		{1e15, "1000000000000000.0"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
		{1.0 / 3, "0.3333333333333333"}, {123456.789, "123456.789"},
		{1e-7, "1e-07"},     {2e22, "2e+22"},    {0.1, "0.1"},
		{100.0, "100.0"},    {0.0, "0.0"},        {-1.5, "-1.5"},
		{0.5, "0.5"},        {12.0, "12.0"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[40];
		py_float_repr(cases[i].v, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].repr);
	}
}

static const struct test_case cases[] = {
	{"python_compatible", "same digest as the reference for an EPYC allocation", t_python_compatible},
	{"escapes_and_quota", "ensure_ascii escapes, float quota, memory cap", t_escapes_and_quota},
	{"unknowns_are_null", "unknown fields hash as null", t_unknowns_are_null},
	{"excluded_fields", "kernel/hostname/ceilings excluded; allocation shape included", t_excluded_fields},
	{"stable", "two snapshots of this machine share an identity", t_stable},
	{"float_repr", "Python repr(float) for quotas", t_float_repr},
};
TEST_MAIN(cases)
