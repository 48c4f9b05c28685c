/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The perf adapter: builds argv for `perf --version`, `perf record`,
 * `perf script` and `perf buildid-list`, parses perf's version, decides
 * whether sampling is blocked and which counter group the microarchitecture
 * has. It never spawns: the pipeline runs these argv through the executor
 * (REFERENCE.md §3, STYLE.md §10).
 *
 * Versions seen: "perf version 6.1.55" (Debian 12), "perf version 6.14.11"
 * (corpus), "perf version 5.15.0-91-generic"-style suffixes on Ubuntu, and
 * "perf version 6.8.12.g1234" from source builds. Only the leading
 * major.minor[.patch] digits matter.
 */
#ifndef NUNATAK_TOOLS_PERF_H
#define NUNATAK_TOOLS_PERF_H

#include <stdbool.h>

#define PERF_DEFAULT_FREQ 997
/* --call-graph for DWARF stacks: a 4 KiB user-stack copy per sample bounds
 * its cost (collect/stacks.h, machine/sample_cost.h measure with it). */
#define PERF_DWARF_CALL_GRAPH "dwarf,4096"
/* The fields perf script is asked for, exactly those of the corpus; perf
 * older than 6.4 has no dsoff ("Invalid field requested"), and ingestion then
 * computes the module offset itself from the mmap events. */
#define PERF_SCRIPT_FIELDS "comm,pid,tid,time,period,event,ip,sym,symoff,dso,dsoff"
#define PERF_SCRIPT_FIELDS_NO_DSOFF "comm,pid,tid,time,period,event,ip,sym,symoff,dso"

struct perf_version {
	int major, minor, patch;
	char text[48]; /* as printed, e.g. "6.1.55" */
};

struct perf_tool {
	bool present;
	char *path;                 /* as configured / found ("perf" or a path); owned */
	struct perf_version version;
};

/* One event of a counter group, at a fixed sampling period. */
struct counter_event {
	const char *event;      /* perf event name, e.g. "fp_ret_sse_avx_ops.all" */
	long period;
	const char *canonical;  /* "flops", "dram_bytes" */
};

struct counter_group {
	const char *uarch;      /* "zen2", "zen3", "zen4", "intel-sp", "neoverse" */
	const struct counter_event *events;
	int nr_events;
	bool validated;         /* checked against perf stat on real hardware; the
				   ingest reasons of the others say they never were */
};

/* Parses `perf --version` output. Returns 0, or -EINVAL when no
 * "perf version X.Y" is found. */
int perf_parse_version(const char *out, struct perf_version *v);
bool perf_version__at_least(const struct perf_version *v, int major, int minor);

/* Sampling blocked for this process: non-root with perf_event_paranoid >= 3. */
bool perf_sampling_forbidden(int paranoid, bool root);

/* The counter group of the microarchitecture described by a /proc/cpuinfo
 * text: AMD family 23 model >= 0x30: zen2; family 25: zen3/zen4 (validated
 * at 99.9 % of perf stat); Intel server cores from Skylake-SP on (family 6
 * models 0x55, 0x6A, 0x6C, 0x8F, 0xCF, 0xAD, 0xAE): fp_arith_inst_retired.*
 * into flops_dp/flops_sp and mem_load_l3_miss_retired.{local,remote}_dram
 * into dram_bytes; Arm Neoverse V1/N2/V2 (implementer 0x41, parts 0xd40,
 * 0xd49, 0xd4f): fp_{scale,fixed}_ops_spec into flops and ll_cache_miss_rd
 * into dram_bytes. The Intel and Arm groups were never validated on real
 * hardware (validated=false, and their Measurements say so). NULL for every
 * other CPU: time-only sampling then. */
const struct counter_group *perf_counter_group(const char *cpuinfo);

/* The software event counting context switches, sampled at every one, with
 * the kernel and user stack of the thread leaving the CPU. */
#define OFFCPU_STACK_EVENT "context-switches/period=1,call-graph=fp/"
/* The same stacks for blocking switch-outs only: the scheduler's tracepoint
 * (root or CAP_PERFMON, a readable tracefs), filtered in the kernel on the
 * state the thread leaves in. prev_state is 0 exactly for a switch-out in
 * state R without kernel preemption: sched_yield, and a thread preempted on
 * its way back to user space (schedule() from the return to user mode);
 * blocking reports its state bit, a preemption inside the kernel
 * TASK_REPORT_MAX (TASK_STATE_MAX before 4.14): nonzero. An Open MPI rank
 * oversubscribed on its cores yields ~37 k times a second; a stack at each
 * cost ~3.35 us (issue 27). The tracepoint has no period term (perf 6.1:
 * only call-graph and stack-size), so it samples every switch that passes
 * the filter unless a global --freq applies to it: the argv then gives the
 * frequency to task-clock alone (-e task-clock/freq=N/). */
#define OFFCPU_BLOCKING_EVENT "sched:sched_switch/call-graph=fp/"
#define OFFCPU_BLOCKING_FILTER "prev_state != 0"

struct perf_record_opts {
	const char *perf;       /* tool path */
	int freq;
	bool clock_monotonic;   /* -k CLOCK_MONOTONIC: samples share the regions' clock */
	const struct counter_group *group; /* NULL: time only (no -e at all) */
	const char *call_graph; /* "fp", "lbr", "dwarf", or NULL: no call stacks */
	const char *output;     /* perf.data path */
	/* perf >= 5.1: --no-bpf-event. Synthesizing BPF program events costs
	 * ~1 s per launch on kernels with many BPF programs (measured here:
	 * `perf record -- true` 1.25 s -> 0.27 s) and annotates nothing we use. */
	bool no_bpf_event;
	/* --switch-events: a record per context switch of the application's
	 * threads (ingest/switches.h), the per-thread time budget. */
	bool switch_events;
	/* -e OFFCPU_STACK_EVENT: the blocking thread's stack at each switch
	 * out (root, or perf_event_paranoid <= 1: doctor/offcpu.h). */
	bool offcpu_stacks;
	/* with offcpu_stacks: -e OFFCPU_BLOCKING_EVENT --filter
	 * OFFCPU_BLOCKING_FILTER instead of OFFCPU_STACK_EVENT (the stacks of
	 * blocking switch-outs only), and task-clock/freq=N/ for --freq N */
	bool offcpu_blocking;
};

/*
 * argv builders: each returns a NULL-terminated argv (caller frees with
 * perf_argv__free()), or NULL when out of memory. perf record's argv ends
 * with `-- <cmd...>`.
 */
char **perf_argv_version(const char *perf);
char **perf_argv_record(const struct perf_record_opts *o, char *const *cmd);
/* dsoff: perf_version__at_least(v, 6, 4). */
/* `perf stat -x , -o /dev/null -e task-clock -e <each event of g> -- true`:
 * opens the group once, before the application runs, so that a PMU lacking
 * the events (a VM without a virtual PMU, a kernel without the driver) drops
 * the group up front instead of costing a rejected perf record. */
char **perf_argv_probe(const char *perf, const struct counter_group *g);
/* The remedy for a counter group the PMU refused, for this CPU: a virtual
 * machine ("hypervisor" in the cpuinfo flags) needs a virtual PMU; bare metal
 * needs the PMU driver. */
const char *perf_group_remedy(const char *cpuinfo);
enum perf_remedy_kind { PERF_REMEDY_VIRTUAL_PMU, PERF_REMEDY_PMU_DRIVER };
enum perf_remedy_kind perf_group_remedy_kind(const char *cpuinfo);
char **perf_argv_script(const char *perf, const char *input, bool dsoff);
char **perf_argv_buildid_list(const char *perf, const char *input);
/* `perf record -q -e task-clock -o OUT -- true`: does perf record at all
 * here (permission, perf_event_open in a container)? Its stderr is ours. */
char **perf_argv_record_probe(const char *perf, const char *out);
/* `perf stat -x, -e EVENTS [-o OUT_CSV] -- <cmd...>` (counting mode: a rank
 * that may not sample, doctor's "does the PMU count" check). */
char **perf_argv_stat(const char *perf, const char *events, const char *out_csv,
		      char *const *cmd);
void perf_argv__free(char **argv);

/* perf refused its options (an unknown event, -k on an old kernel): perf
 * fails fast before launching the application, so it exited non-zero and
 * wrote no perf.data. An application exiting non-zero still leaves a
 * readable perf.data, so it never looks like a rejection. */
bool perf_record_rejected(int exit_code, bool perf_data_written);


#endif
