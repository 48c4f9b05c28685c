// SPDX-License-Identifier: BSD-3-Clause
/* Checks that ask external programs (through the executor). */
#include "doctor/checks.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/locate.h"
#include "tools/caps.h"
#include "tools/perf.h"
#include "common/degradation_kinds.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/doctor.h"
#include "exec/exec.h"
#include "tools/version.h"
#include "common/fsutil.h"

/* The newest LLVM this version of nunatak was validated with (REFERENCE.md §1). */
#define TESTED_LLVM 20


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
		      struct caps *caps, struct err *e)
{
	const char *perf = config__tool(cfg, "perf");
	int rc = caps_probe(caps, x, perf, e);
	if (rc < 0)
		return rc;
	if (!caps->perf.present)
		return doctor_report__add(r, "cpu-collector", DOCTOR_MISSING,
					  caps->perf_exit == EXEC_NOT_FOUND
						  ? "perf not found"
						  : "perf did not answer --version",
					  CAPS_PERF_MISSING_REMEDY, DEG_CPU_COLLECTION_UNAVAILABLE,
					  CAPS_PERF_MISSING_MSG);
	char *path = NULL;
	/* Under replay the recording machine answered: this machine's PATH is moot. */
	bool local = !caps->replay && exec_which(perf, &path) == 0;
	char *detail = xasprintf("perf %s (%s)", caps->perf.version.text, local ? path : perf);
	xfree(path);
	rc = detail ? doctor_report__add(r, "cpu-collector", DOCTOR_OK, detail, NULL, NULL, NULL)
		    : -ENOMEM;
	xfree(detail);
	return rc;
}

int doctor_check_permissions(const struct caps *caps, struct doctor_report *r)
{
	int paranoid = caps->paranoid;
	char detail[200];
	if (caps->root) {
		snprintf(detail, sizeof(detail),
			 "running as root: kernel.perf_event_paranoid=%d does not apply", paranoid);
		return doctor_report__add(r, "perf-permissions", DOCTOR_OK, detail, NULL, NULL, NULL);
	}
	if (!perf_sampling_forbidden(paranoid, caps->root)) {
		snprintf(detail, sizeof(detail), "kernel.perf_event_paranoid=%d: %s", paranoid,
			 paranoid >= 2 ? "sampling of your own processes, user space only"
				       : "sampling including kernel space");
		return doctor_report__add(r, "perf-permissions", DOCTOR_OK, detail, NULL, NULL, NULL);
	}
	snprintf(detail, sizeof(detail),
		 "kernel.perf_event_paranoid=%d forbids unprivileged profiling", paranoid);
	/* The probe's own degradation, the very text the run announces (they
	 * deduplicate); none when perf is missing (cpu-collector said it). */
	bool perf_ok = caps->perf.present;
	return doctor_report__add(r, "perf-permissions", DOCTOR_MISSING, detail,
				  CAPS_PARANOID_REMEDY, perf_ok ? caps->degradation.name : NULL,
				  perf_ok ? caps->degradation.message : NULL);
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
				  const char *cpuinfo, const struct counter_group *unvalidated,
				  struct doctor_report *r, struct err *e)
{
	char t[] = "true";
	char *const cmd[] = {t, NULL};
	char **argv = perf_argv_stat(config__tool(cfg, "perf"), "cycles", NULL, cmd);
	if (!argv)
		return err_oom(e);
	struct exec_result res;
	int rc = doctor_probe(x, (const char *const *)argv, &res, e);
	perf_argv__free(argv);
	if (rc < 0)
		return rc;
	/* perf stat -x, reports on stderr: "<not supported>,,cycles,0,100.00,," on a
	 * machine without a PMU (VMs, containers), "<count>,,cycles,..." otherwise. */
	bool counted = res.exit_code == 0 && res.err && strstr(res.err, "cycles") &&
		       !strstr(res.err, "<not supported>") && !strstr(res.err, "<not counted>");
	exec_result__release(&res);
	if (counted && unvalidated) {
		char *d = xasprintf("cycles counted; no FLOP/DRAM counter group is validated for "
				    "this CPU (AMD Zen 2/3/4 only): a run tries the %s group, never "
				    "validated on real hardware, its FLOP and DRAM counts estimated",
				    unvalidated->uarch);
		rc = d ? doctor_report__add(r, "hardware-counters", DOCTOR_WARNING, d, NULL, NULL,
					    NULL)
		       : err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		xfree(d);
		return rc;
	}
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
					  "not checked: perf is unavailable", CAPS_PERF_MISSING_REMEDY,
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
	/* A group never validated on real hardware (Intel, Neoverse) promises
	 * nothing here: the cycles probe says whether the PMU counts at all. */
	if (!g || !g->validated) {
		int rc = counters_without_group(x, cfg, cpuinfo, g, r, e);
		xfree(cpuinfo);
		return rc;
	}
	/* The very probe `nunatak run` makes before launching. */
	char **argv = perf_argv_probe(config__tool(cfg, "perf"), g);
	struct exec_result res = {0};
	int rc = argv ? doctor_probe(x, (const char *const *)argv, &res, e)
		      : err_oom(e);
	perf_argv__free(argv);
	if (rc == 0) {
		char *why = doctor_first_line(res.err);
		char *detail = res.exit_code == 0
			? xasprintf("the %s counter group opens: FLOP and DRAM sampling", g->uarch)
			: xasprintf("the %s counter group cannot open here (%s): task-clock "
				    "sampling only, no FLOP or DRAM counters, no roofline placement",
				    g->uarch, why ? why : "perf gave no reason");
		rc = !detail ? err_oom(e)
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
	const char *argv[3];
	tool_argv_version(argv, prog);
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
