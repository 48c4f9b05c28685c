// SPDX-License-Identifier: BSD-3-Clause
/* Checks that ask external programs (through the executor). */
#include "doctor/checks.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attrib/locate.h"
#include "collect/perf.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/err.h"
#include "doctor/doctor.h"
#include "exec/exec.h"
#include "store/fsutil.h"

/* The newest LLVM this version of nunatak was validated with (REFERENCE.md §1). */
#define TESTED_LLVM 20

#define PERF_MISSING_MSG "perf not found: no CPU samples will be collected"
#define PERF_MISSING_REMEDY "install perf (linux-perf / linux-tools) or set tools.perf"

int doctor_probe(struct executor *x, const char *const *argv, struct exec_result *res,
		 struct err *e)
{
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 30};
	return executor__run(x, &rq, res, e);
}

char *doctor_first_line(const char *s)
{
	if (!s)
		return NULL;
	while (*s == '\n' || *s == ' ')
		s++;
	if (!*s)
		return NULL;
	return xstrndup(s, strcspn(s, "\n"));
}

int doctor_check_perf(struct executor *x, const struct config *cfg, struct doctor_report *r,
		      bool *perf_ok, char version[48], struct err *e)
{
	const char *perf = config__tool(cfg, "perf");
	const char *argv[] = {perf, "--version", NULL};
	struct exec_result res;
	struct perf_version v;
	int rc = doctor_probe(x, argv, &res, e);
	*perf_ok = rc == 0 && res.exit_code == 0 && perf_parse_version(res.out, &v) == 0;
	int code = res.exit_code;
	exec_result__release(&res);
	if (rc < 0)
		return rc;
	version[0] = '\0';
	if (!*perf_ok)
		return doctor_report__add(r, "cpu-collector", DOCTOR_MISSING,
					  code == EXEC_NOT_FOUND ? "perf not found"
									  : "perf did not answer --version",
					  PERF_MISSING_REMEDY, "cpu-collection-unavailable",
					  PERF_MISSING_MSG);
	snprintf(version, 48, "%s", v.text);
	char *path = NULL;
	/* Under replay the recording machine answered: this machine's PATH is moot. */
	bool local = !executor__recorded_meta(x) && exec_which(perf, &path) == 0;
	char *detail = xasprintf("perf %s (%s)", v.text, local ? path : perf);
	xfree(path);
	rc = detail ? doctor_report__add(r, "cpu-collector", DOCTOR_OK, detail, NULL, NULL, NULL)
		    : -ENOMEM;
	xfree(detail);
	return rc;
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

int doctor_check_permissions(struct executor *x, bool perf_ok, const char *version,
			     struct doctor_report *r)
{
	const json_t *meta = executor__recorded_meta(x);
	bool root = !meta && geteuid() == 0;
	/* Under replay the permission is the recording machine's. */
	int paranoid = meta ? (json_is_true(json_object_get(meta, "sampling_blocked")) ? 3 : 2)
			    : read_paranoid();
	char detail[200], msg[200];
	if (root) {
		snprintf(detail, sizeof(detail),
			 "running as root: kernel.perf_event_paranoid=%d does not apply", paranoid);
		return doctor_report__add(r, "perf-permissions", DOCTOR_OK, detail, NULL, NULL, NULL);
	}
	if (!perf_sampling_forbidden(paranoid, root)) {
		snprintf(detail, sizeof(detail), "kernel.perf_event_paranoid=%d: %s", paranoid,
			 paranoid >= 2 ? "sampling of your own processes, user space only"
				       : "sampling including kernel space");
		return doctor_report__add(r, "perf-permissions", DOCTOR_OK, detail, NULL, NULL, NULL);
	}
	snprintf(detail, sizeof(detail),
		 "kernel.perf_event_paranoid=%d forbids unprivileged profiling", paranoid);
	/* Same text as the run pipeline's, so the announcements deduplicate. */
	snprintf(msg, sizeof(msg),
		 "perf %s found, but kernel.perf_event_paranoid=%d forbids unprivileged profiling",
		 version, paranoid);
	return doctor_report__add(r, "perf-permissions", DOCTOR_MISSING, detail,
				  "sudo sysctl kernel.perf_event_paranoid=2 (or 1)",
				  perf_ok ? "cpu-collection-unavailable" : NULL, perf_ok ? msg : NULL);
}

/* The cpuinfo the verdict is about: the recording's under replay, else ours. */
static char *counters_cpuinfo(const json_t *meta)
{
	if (meta)
		return xstrdup(json_string_value(json_object_get(meta, "cpuinfo")));
	char *text = NULL;
	size_t len;
	return fs_read_file("/proc/cpuinfo", 1 << 22, &text, &len) == 0 ? text : NULL;
}

/* A CPU without a validated group (Intel, Zen 1, ARM): `perf stat -e cycles`
 * says whether the PMU counts at all; a virtual PMU would bring cycles and
 * instructions (per-rank counting), never a FLOP/DRAM group this CPU lacks. */
static int counters_without_group(struct executor *x, const struct config *cfg,
				  const char *cpuinfo, struct doctor_report *r, struct err *e)
{
	const char *argv[] = {config__tool(cfg, "perf"), "stat", "-x,", "-e", "cycles", "--",
			      "true", NULL};
	struct exec_result res;
	int rc = doctor_probe(x, argv, &res, e);
	if (rc < 0)
		return rc;
	/* perf stat -x, reports on stderr: "<not supported>,,cycles,0,100.00,," on a
	 * machine without a PMU (VMs, containers), "<count>,,cycles,..." otherwise. */
	bool counted = res.exit_code == 0 && res.err && strstr(res.err, "cycles") &&
		       !strstr(res.err, "<not supported>") && !strstr(res.err, "<not counted>");
	exec_result__release(&res);
	if (counted)
		return doctor_report__add(
			r, "hardware-counters", DOCTOR_WARNING,
			"cycles counted; no FLOP/DRAM counter group is validated for this CPU "
			"(AMD Zen 2/3/4 only): no roofline placement",
			NULL, NULL, NULL);
	return doctor_report__add(
		r, "hardware-counters", DOCTOR_WARNING,
		"cycles are <not supported> here, and no FLOP/DRAM counter group is validated "
		"for this CPU (AMD Zen 2/3/4 only): task-clock sampling only",
		perf_group_remedy_kind(cpuinfo) == PERF_REMEDY_VIRTUAL_PMU
			? "a VM with a virtual PMU would add cycle and instruction counts (not "
			  "FLOP or DRAM counters, which this CPU has no validated group for)"
			: NULL,
		NULL, NULL);
}

int doctor_check_counters(struct executor *x, const struct config *cfg, bool perf_ok,
			  struct doctor_report *r, struct err *e)
{
	if (!perf_ok)
		return doctor_report__add(r, "hardware-counters", DOCTOR_MISSING,
					  "not checked: perf is unavailable", PERF_MISSING_REMEDY,
					  NULL, NULL);
	const json_t *meta = executor__recorded_meta(x);
	if (meta && !json_object_get(meta, "counter_probe"))
		/* Older entries record no counter probe; asking would take another
		 * perf invocation off the replay queue. */
		return doctor_report__add(r, "hardware-counters", DOCTOR_WARNING,
					  "unknown: the recording has no counter probe",
					  "run `nunatak doctor` on the recorded machine itself", NULL,
					  NULL);
	char *cpuinfo = counters_cpuinfo(meta);
	const struct counter_group *g = perf_counter_group(cpuinfo);
	if (!g) {
		int rc = counters_without_group(x, cfg, cpuinfo, r, e);
		xfree(cpuinfo);
		return rc;
	}
	/* The very probe `nunatak run` makes before launching. */
	char **argv = perf_argv_probe(config__tool(cfg, "perf"), g);
	struct exec_result res = {0};
	int rc = argv ? doctor_probe(x, (const char *const *)argv, &res, e)
		      : err_set(e, -ENOMEM, "oom", "out of memory");
	perf_argv__free(argv);
	if (rc == 0) {
		char *why = doctor_first_line(res.err);
		char *detail = res.exit_code == 0
			? xasprintf("the %s counter group opens: FLOP and DRAM sampling", g->uarch)
			: xasprintf("the %s counter group cannot open here (%s): task-clock "
				    "sampling only, no FLOP or DRAM counters, no roofline placement",
				    g->uarch, why ? why : "perf gave no reason");
		rc = !detail ? err_set(e, -ENOMEM, "oom", "out of memory")
		     : doctor_report__add(r, "hardware-counters",
					  res.exit_code == 0 ? DOCTOR_OK : DOCTOR_WARNING, detail,
					  res.exit_code == 0 ? NULL : perf_group_remedy(cpuinfo),
					  NULL, NULL);
		xfree(why);
		xfree(detail);
	}
	exec_result__release(&res);
	xfree(cpuinfo);
	return rc;
}

static int llvm_found(const struct attrib_tools *t, struct doctor_report *r)
{
	char *abs = NULL;
	char *detail = xasprintf("%s (%s)", t->version ? t->version : "LLVM",
				 exec_which(t->path, &abs) == 0 ? abs : t->path);
	char *full = NULL;
	xfree(abs);
	int rc = -ENOMEM;
	if (!detail)
		return rc;
	if (t->major < ATTRIB_LLVM_MINIMUM) {
		/* An old LLVM is used, not refused: say what its age costs. */
		full = xasprintf("%s; %s", detail, t->cost ? t->cost : "older than LLVM 17");
		if (full)
			rc = doctor_report__add(r, "llvm", DOCTOR_WARNING, full,
						"install LLVM 19 or newer (package llvm-19 where your distribution has it) or set "
						"tools.llvm-symbolizer", NULL, NULL);
	} else if (t->major < ATTRIB_LLVM_RECOMMENDED) {
		full = xasprintf("%s; loop analysis restricted (llvm-mca models before LLVM 19)",
				 detail);
		if (full)
			rc = doctor_report__add(r, "llvm", DOCTOR_WARNING, full,
						"install LLVM 19 or newer", NULL, NULL);
	} else if (t->major > TESTED_LLVM) {
		full = xasprintf("%s; not yet validated with this version of nunatak", detail);
		if (full)
			rc = doctor_report__add(r, "llvm", DOCTOR_WARNING, full,
						"nothing required; set tools.llvm-symbolizer to an "
						"LLVM 19-20 install to stay on validated ground",
						NULL, NULL);
	} else {
		rc = doctor_report__add(r, "llvm", DOCTOR_OK, detail, NULL, NULL, NULL);
	}
	xfree(detail);
	xfree(full);
	return rc;
}

int doctor_check_llvm(struct executor *x, const struct config *cfg, struct doctor_report *r,
		      struct err *e)
{
	struct attrib_tools t;
	int rc = attrib_locate(x, config__tool(cfg, "llvm-symbolizer"),
			       config__tool(cfg, "addr2line"), &t, e);
	if (rc < 0) {
		attrib_tools__release(&t);
		return rc;
	}
	const char *dname = NULL;
	char *msg = NULL, *remedy = NULL;
	int d = attrib_tools__degradation(&t, &dname, &msg, &remedy);
	if (d < 0)
		rc = -ENOMEM;
	else if (t.tool == ATTRIB_TOOL_LLVM)
		rc = llvm_found(&t, r);
	else if (t.tool == ATTRIB_TOOL_ADDR2LINE)
		rc = doctor_report__add(r, "llvm", DOCTOR_WARNING,
					t.cost ? t.cost : "GNU addr2line stands in",
					remedy, d > 0 ? dname : NULL, d > 0 ? msg : NULL);
	else
		rc = doctor_report__add(r, "llvm", DOCTOR_MISSING,
					"no llvm-symbolizer and no GNU addr2line: Hotspots stay "
					"unresolved (module+offset)",
					remedy ? remedy : "install LLVM 19 or newer (apt-get install llvm-19)",
					d > 0 ? dname : NULL, d > 0 ? msg : NULL);
	xfree(msg);
	xfree(remedy);
	attrib_tools__release(&t);
	return rc;
}

struct tool_check {
	const char *name;   /* check name */
	const char *tool;   /* [tools] key */
	const char *purpose;
	const char *remedy;
	enum doctor_status absent;
};

static const struct tool_check tool_checks[] = {
	{"addr2line", "addr2line", "fallback symbolizer when LLVM is absent",
	 "install binutils (GNU addr2line)", DOCTOR_WARNING},
	{"compiler", "cc", "builds the calibration kernel and the examples",
	 "install gcc or clang, or set tools.cc", DOCTOR_MISSING},
	{"mpi-launcher", "mpirun", "needed for MPI applications only",
	 "install Open MPI or MPICH (mpirun), or set tools.mpirun", DOCTOR_WARNING},
};

static int check_one_tool(struct executor *x, const struct config *cfg,
			  const struct tool_check *c, struct doctor_report *r, struct err *e)
{
	const char *prog = config__tool(cfg, c->tool);
	const char *argv[] = {prog, "--version", NULL};
	struct exec_result res;
	int rc = doctor_probe(x, argv, &res, e);
	if (rc < 0)
		return rc;
	/* Open MPI prints its version on stdout, some MPICH builds on stderr. */
	char *line = doctor_first_line(res.out && *res.out ? res.out : res.err);
	bool ok = res.exit_code == 0 && line;
	char *detail = NULL;
	if (ok)
		detail = xstrdup(line);
	else if (res.exit_code == EXEC_NOT_FOUND)
		detail = xasprintf("%s not found (%s)", prog, c->purpose);
	else
		detail = xasprintf("%s --version exited %d (%s)", prog, res.exit_code, c->purpose);
	exec_result__release(&res);
	rc = detail ? doctor_report__add(r, c->name, ok ? DOCTOR_OK : c->absent, detail,
					 ok ? NULL : c->remedy, NULL, NULL)
		    : -ENOMEM;
	xfree(line);
	xfree(detail);
	return rc;
}

int doctor_check_tools(struct executor *x, const struct config *cfg, struct doctor_report *r,
		       struct err *e)
{
	for (size_t i = 0; i < sizeof(tool_checks) / sizeof(tool_checks[0]); i++) {
		int rc = check_one_tool(x, cfg, &tool_checks[i], r, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}
