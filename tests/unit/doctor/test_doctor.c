// SPDX-License-Identifier: BSD-3-Clause
/* Doctor over synthetic corpus entries (replay executor): what a machine
 * without perf, with perf blocked, or with a given LLVM reports. */
#include "doctor/doctor.h"

#include <glob.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/config.h"
#include "common/err.h"
#include "exec/exec.h"
#include "tools/locate.h"
#include "harness.h"

static char entry[64];

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", entry, rel);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	xfree(p);
}

/* An entry whose invocations answer in order: each item is argv0, exit, stdout. */
static void make_entry(const char *meta, const char *const (*inv)[3], size_t n)
{
	snprintf(entry, sizeof(entry), "/tmp/nunatak-doctor-XXXXXX");
	CHECK(mkdtemp(entry) != NULL);
	char *d = xasprintf("%s/invocations", entry);
	CHECK(mkdir(d, 0755) == 0);
	xfree(d);
	put("meta.json", meta);
	for (size_t i = 0; i < n; i++) {
		char name[64], *js = xasprintf("{\"argv\": [\"%s\", \"--version\"], \"exit_code\": %s, "
					       "\"captured\": true}", inv[i][0], inv[i][1]);
		snprintf(name, sizeof(name), "invocations/%03zu.json", i);
		put(name, js);
		snprintf(name, sizeof(name), "invocations/%03zu.stdout", i);
		put(name, inv[i][2]);
		xfree(js);
	}
}

static void remove_entry(void)
{
	char *cmd = xasprintf("rm -rf '%s'", entry);
	CHECK(system(cmd) == 0);
	xfree(cmd);
}

static const struct degradation *find(const struct degradations *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].name, name) == 0)
			return &d->v[i];
	return NULL;
}

static void t_light_replay(void)
{
	static const char *const inv[][3] = {
		{"llvm-symbolizer", "0", "LLVM (http://llvm.org/):\n  LLVM version 19.1.7\n"},
	};
	make_entry("{\"platform\": {\"system\": \"Linux\"}}", inv, 1);
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	CHECK(x != NULL);
	struct config cfg;
	CHECK_INT(config__init(&cfg), 0);
	struct degradations d = {0};
	struct attrib_tools t = {0};
	const char *app[] = {"./solver", NULL};
	CHECK_INT(doctor_light(x, &cfg, app, true, &t, &d, &e), 0);
	CHECK_INT(t.tool, ATTRIB_TOOL_LLVM); /* kept for attribution */
	CHECK(find(&d, "cpu-collection-unavailable") == NULL); /* perf is run's own probe */
	CHECK(find(&d, "llvm-missing") == NULL); /* LLVM 19 answered */
	CHECK(find(&d, "target-binary") == NULL); /* skipped under replay */
	attrib_tools__release(&t);
	degradations__release(&d);
	config__release(&cfg);
	executor__free(x);
	remove_entry();
}

static void t_light_live_target(void)
{
	static const char *const inv[][3] = {{"cc", "0", "cc (GCC) 12.2.0\n"}};
	make_entry("{\"platform\": {\"system\": \"Linux\"}}", inv, 1);
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	CHECK(x != NULL);
	struct config cfg;
	CHECK_INT(config__init(&cfg), 0);
	struct degradations d = {0};
	struct attrib_tools t = {0};
	const char *app[] = {"/nonexistent/solver", NULL};
	CHECK_INT(doctor_light(x, &cfg, app, false, &t, &d, &e), 0);
	CHECK(find(&d, "target-binary") != NULL); /* live: the target is inspected */
	attrib_tools__release(&t);
	degradations__release(&d);
	config__release(&cfg);
	executor__free(x);
	remove_entry();
}

static void t_blocked_and_old_llvm(void)
{
	static const char *const inv[][3] = {
		{"perf", "0", "perf version 6.14.11\n"},
		{"llvm-symbolizer", "0", "LLVM (http://llvm.org/):\n  LLVM version 14.0.6\n"},
		{"addr2line", "0", "GNU addr2line (GNU Binutils) 2.40\n"},
		{"cc", "0", "cc (GCC) 12.2.0\n"},
	};
	make_entry("{\"sampling_blocked\": true}", inv, 4);
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	CHECK(x != NULL);
	struct config cfg;
	CHECK_INT(config__init(&cfg), 0);
	struct doctor_report r;
	CHECK_INT(doctor_full(x, &cfg, NULL, &r, &e), 0);
	CHECK_STR(r.v[0].name, "cpu-collector");
	CHECK_INT(r.v[0].status, DOCTOR_OK);
	CHECK(strstr(r.v[0].detail, "perf 6.14.11"));
	CHECK_STR(r.v[1].name, "perf-permissions");
	CHECK_INT(r.v[1].status, DOCTOR_MISSING);
	CHECK(strstr(r.v[1].remedy, "perf_event_paranoid"));
	CHECK_STR(r.v[2].name, "hardware-counters");
	CHECK_INT(r.v[2].status, DOCTOR_WARNING); /* replay: counters not probed */
	CHECK(strstr(r.v[2].detail, "recording has no counter probe"));
	CHECK_STR(r.v[3].name, "llvm");
	CHECK_INT(r.v[3].status, DOCTOR_WARNING); /* old, used, its cost said */
	CHECK(strstr(r.v[3].detail, "14.0.6"));
	CHECK_STR(r.v[5].name, "compiler");
	CHECK_INT(r.v[5].status, DOCTOR_OK);
	CHECK_STR(r.v[6].name, "mpi-launcher"); /* never recorded -> absent */
	CHECK_INT(r.v[6].status, DOCTOR_WARNING);
	CHECK(strstr(r.v[6].detail, "mpirun not found"));
	const struct degradation *g = find(&r.degradations, "cpu-collection-unavailable");
	CHECK(g && strstr(g->message, "perf 6.14.11 found, but kernel.perf_event_paranoid=3"));
	json_t *j = doctor_report__json(&r);
	CHECK(j != NULL);
	CHECK_INT(json_array_size(json_object_get(j, "checks")), r.n);
	json_t *c1 = json_array_get(json_object_get(j, "checks"), 1);
	CHECK_STR(json_string_value(json_object_get(c1, "status")), "missing");
	CHECK(json_is_string(json_object_get(c1, "remedy")));
	CHECK_INT(json_array_size(json_object_get(j, "degradations")), r.degradations.n);
	json_decref(j);
	doctor_report__release(&r);
	config__release(&cfg);
	executor__free(x);
	remove_entry();
}

/* PATH's llvm-symbolizer is older than the minimum (Debian 12: LLVM 14) and
 * a newer versioned install sits in /usr/lib/llvm-N/bin: that one is used,
 * unless the old one was configured. */
static void t_newer_llvm_beside(void)
{
	glob_t g;
	bool have = glob("/usr/lib/llvm-*/bin/llvm-symbolizer", 0, NULL, &g) == 0;
	globfree(&g);
	if (!have)
		SKIP("no /usr/lib/llvm-N/bin/llvm-symbolizer on this machine to prefer");
	static const char *const inv[][3] = {
		{"llvm-symbolizer", "0", "LLVM (http://llvm.org/):\n  LLVM version 14.0.6\n"},
		{"llvm-symbolizer", "0", "Debian LLVM version 19.1.7\n"},
	};
	struct err e = {0};
	struct attrib_tools t;
	make_entry("{}", inv, 2);
	struct executor *x = executor__new_replay(entry, &e);
	CHECK(x != NULL);
	CHECK_INT(attrib_locate(x, "llvm-symbolizer", NULL, &t, &e), 0); /* nothing configured */
	CHECK_INT(t.major, 19);
	CHECK(strncmp(t.path, "/usr/lib/llvm-", 14) == 0);
	CHECK(t.cost == NULL);
	attrib_tools__release(&t);
	executor__free(x);
	x = executor__new_replay(entry, &e); /* the FIFOs start over */
	CHECK(x != NULL);
	CHECK_INT(attrib_locate(x, "/opt/llvm-14/bin/llvm-symbolizer", NULL, &t, &e), 0);
	CHECK_INT(t.major, 14); /* configured: kept, its cost said */
	CHECK_STR(t.path, "/opt/llvm-14/bin/llvm-symbolizer");
	CHECK(t.cost != NULL);
	attrib_tools__release(&t);
	executor__free(x);
	remove_entry();
}

static void t_target(void)
{
	struct doctor_report r = {0};
	const char *missing[] = {"mpirun", "-n", "4", "./no-such-solver-xyz", NULL};
	CHECK_INT(doctor_check_target(missing, &r), 0);
	CHECK_INT(r.n, 1);
	CHECK_STR(r.v[0].name, "target-binary");
	CHECK_INT(r.v[0].status, DOCTOR_MISSING);
	CHECK(strstr(r.v[0].detail, "no-such-solver-xyz") != NULL); /* launcher seen through */
	doctor_report__release(&r);
	const char *sh[] = {"sh", "-c", "true", NULL};
	CHECK_INT(doctor_check_target(sh, &r), 0);
	CHECK_INT(r.n, 2); /* target-binary + target-attribution */
	CHECK_INT(r.v[0].status, DOCTOR_OK);
	CHECK_STR(r.v[1].name, "target-attribution");
	doctor_report__release(&r);
}

static const struct test_case cases[] = {
	{"light_replay", "run's light doctor: symbolizer kept, no perf probe, no target under replay",
	 t_light_replay},
	{"light_live_target", "run's light doctor inspects the target when live",
	 t_light_live_target},
	{"blocked_old_llvm", "blocked perf and LLVM 14 through a replayed entry",
	 t_blocked_and_old_llvm},
	{"newer_llvm_beside", "an old PATH llvm-symbolizer gives way to a newer versioned install",
	 t_newer_llvm_beside},
	{"target", "target-binary sees through launchers; ELF inspected", t_target},
};

TEST_MAIN(cases)
