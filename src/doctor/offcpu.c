// SPDX-License-Identifier: BSD-3-Clause
#include "doctor/offcpu.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/caps.h"

enum offcpu_mechanism offcpu_mechanism(const struct caps *c, bool perf_collects)
{
	if (!perf_collects || c->sampling_blocked || !c->perf.present)
		return OFFCPU_PROCESS;
	/* a context switch happens in the kernel: its samples need kernel
	 * profiling (root, or perf_event_paranoid <= 1) */
	if (!c->replay && (c->root || c->paranoid <= 1))
		return OFFCPU_STACKS;
	return OFFCPU_SWITCHES;
}

const char *offcpu_mechanism__name(enum offcpu_mechanism m)
{
	static const char *const names[] = {"process", "switches", "sched-stacks"};
	return names[m];
}

const char *offcpu_mechanism__describe(enum offcpu_mechanism m)
{
	switch (m) {
	case OFFCPU_STACKS:
		return "perf context switches + their call stacks: wall, CPU and off-CPU time "
		       "per thread, off-CPU time by function and call path";
	case OFFCPU_SWITCHES:
		return "perf context switches: wall, CPU and off-CPU time per thread; off-CPU "
		       "time not attributed to functions (their call stacks need kernel "
		       "profiling: root or perf_event_paranoid <= 1)";
	default:
		return "process rusage: the application's wall and CPU time per process only "
		       "(perf does not collect): off-CPU time neither per thread nor attributed";
	}
}

const char *offcpu_mechanism__remedy(enum offcpu_mechanism m)
{
	switch (m) {
	case OFFCPU_STACKS:
		return NULL;
	case OFFCPU_SWITCHES:
		return "run as root, or sudo sysctl kernel.perf_event_paranoid=1, for off-CPU call "
		       "stacks";
	default:
		return "let perf sample (" CAPS_PARANOID_REMEDY ") for the per-thread budget";
	}
}

int offcpu_mechanism__parse(const char *word, enum offcpu_mechanism *m)
{
	if (!word)
		return -1;
	if (!strcmp(word, "auto"))
		*m = OFFCPU_STACKS;
	else if (!strcmp(word, "switches"))
		*m = OFFCPU_SWITCHES;
	else if (!strcmp(word, "process"))
		*m = OFFCPU_PROCESS;
	else
		return -1;
	return 0;
}

const char *offcpu_mechanism__asked(enum offcpu_mechanism m)
{
	return m == OFFCPU_SWITCHES
		       ? "--offcpu switches: perf context switches without their call stacks: "
			 "wall, CPU and off-CPU time per thread; off-CPU time not attributed to "
			 "functions (asked)"
		       : "--offcpu process: no context-switch records: the application's wall "
			 "time and its CPU time from wait4's rusage, per process only; off-CPU "
			 "time neither per thread nor attributed (asked)";
}

const char *offcpu_mechanism__asked_remedy(enum offcpu_mechanism m)
{
	return m == OFFCPU_SWITCHES ? "drop --offcpu switches for the off-CPU call stacks"
				    : "drop --offcpu process for the per-thread budget";
}

/* The tracepoint's id where perf looks it up: tracefs, or its old place
 * under debugfs. */
static bool tracefs_readable(void)
{
	static const char *const ids[] = {"/sys/kernel/tracing/events/sched/sched_switch/id",
					  "/sys/kernel/debug/tracing/events/sched/sched_switch/id"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (access(ids[i], R_OK) == 0)
			return true;
	return false;
}

bool offcpu_blocking_usable(char *why, size_t cap)
{
	/* a tracepoint's samples carry its raw record (PERF_SAMPLE_RAW), which
	 * the kernel gives root (CAP_PERFMON) or perf_event_paranoid -1 only */
	int paranoid = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	const char *no = NULL;
	if (geteuid() != 0 && paranoid > -1)
		no = "sched:sched_switch needs root or perf_event_paranoid -1";
	else if (!tracefs_readable())
		no = "no readable tracefs (sched:sched_switch's id under /sys/kernel/tracing)";
	if (no && why && cap)
		snprintf(why, cap, "%s", no);
	return !no;
}
