// SPDX-License-Identifier: BSD-3-Clause
#include "doctor/offcpu.h"

#include <stddef.h>
#include <unistd.h>

#include "tools/caps.h"

enum offcpu_mechanism offcpu_mechanism(const struct caps *c, bool perf_collects)
{
	if (!perf_collects || c->sampling_blocked || !c->perf.present)
		return OFFCPU_PROCESS;
	/* tracepoint samples with raw data: root, or paranoid -1; and perf
	 * finds the tracepoint's id in tracefs (absent in many containers) */
	bool tracefs = access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) == 0 ||
		       access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK) == 0;
	if (!c->replay && (c->root || c->paranoid <= -1) && tracefs)
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
		return "perf context switches + sched:sched_switch call stacks: wall, CPU and "
		       "off-CPU time per thread, off-CPU time by function and call path";
	case OFFCPU_SWITCHES:
		return "perf context switches: wall, CPU and off-CPU time per thread; off-CPU "
		       "time not attributed to functions (the scheduler tracepoint needs root "
		       "and tracefs)";
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
		return "run as root (or sudo sysctl kernel.perf_event_paranoid=-1), with tracefs "
		       "mounted (mount -t tracefs nodev /sys/kernel/tracing), for off-CPU call stacks";
	default:
		return "let perf sample (" CAPS_PARANOID_REMEDY ") for the per-thread budget";
	}
}
