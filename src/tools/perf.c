// SPDX-License-Identifier: BSD-3-Clause
#include "tools/perf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

/* Zen 2/3/4 only (REFERENCE.md §3): fixed periods, prefetch events excluded
 * because they disturb what they measure (20x observer effect on Zen 2). */
static const struct counter_event zen2_events[] = {
	{"fp_ret_sse_avx_ops.all", 4999999, "flops"},
	{"ls_refills_from_sys.ls_mabresp_lcl_dram", 100003, "dram_bytes"},
	{"ls_refills_from_sys.ls_mabresp_rmt_dram", 100003, "dram_bytes"},
};
static const struct counter_event zen34_events[] = {
	{"fp_ret_sse_avx_ops.all", 4999999, "flops"},
	{"ls_dmnd_fills_from_sys.mem_io_local", 100003, "dram_bytes"},
	{"ls_dmnd_fills_from_sys.mem_io_remote", 100003, "dram_bytes"},
};
static const struct counter_group zen2 = {"zen2", zen2_events, 3, true};
static const struct counter_group zen3 = {"zen3", zen34_events, 3, true};
static const struct counter_group zen4 = {"zen4", zen34_events, 3, true};
/* Intel server cores from Skylake-SP on: each fp_arith_inst_retired event
 * counts instructions of one width, weighted into FLOPs at ingestion (1, 2,
 * 4, 8 double; 1, 4, 8, 16 single; FMA counted twice by the hardware). DRAM:
 * the per-process sampled loads served by DRAM (uncore IMC counters are
 * system-wide, not per process). Ten events on 4-8 programmable counters:
 * perf multiplexes them (said in the ingest reasons). */
static const struct counter_event intel_sp_events[] = {
	{"fp_arith_inst_retired.scalar_double", 4999999, "flops_dp"},
	{"fp_arith_inst_retired.128b_packed_double", 4999999, "flops_dp"},
	{"fp_arith_inst_retired.256b_packed_double", 4999999, "flops_dp"},
	{"fp_arith_inst_retired.512b_packed_double", 4999999, "flops_dp"},
	{"fp_arith_inst_retired.scalar_single", 4999999, "flops_sp"},
	{"fp_arith_inst_retired.128b_packed_single", 4999999, "flops_sp"},
	{"fp_arith_inst_retired.256b_packed_single", 4999999, "flops_sp"},
	{"fp_arith_inst_retired.512b_packed_single", 4999999, "flops_sp"},
	{"mem_load_l3_miss_retired.local_dram", 100003, "dram_bytes"},
	{"mem_load_l3_miss_retired.remote_dram", 100003, "dram_bytes"},
};
static const struct counter_group intel_sp = {"intel-sp", intel_sp_events, 10, false};
/* Arm Neoverse with the Armv8.6 FP operation events (V1, N2, V2; not N1). */
static const struct counter_event neoverse_events[] = {
	{"fp_scale_ops_spec", 4999999, "flops"},
	{"fp_fixed_ops_spec", 4999999, "flops"},
	{"ll_cache_miss_rd", 100003, "dram_bytes"},
};
static const struct counter_group neoverse = {"neoverse", neoverse_events, 3, false};

int perf_parse_version(const char *out, struct perf_version *v)
{
	memset(v, 0, sizeof(*v));
	const char *p = out ? strstr(out, "perf version ") : NULL;
	if (!p)
		return -EINVAL;
	p += strlen("perf version ");
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	size_t n = 0;
	while (p[n] && !isspace((unsigned char)p[n]) && n + 1 < sizeof(v->text))
		n++;
	memcpy(v->text, p, n);
	v->text[n] = '\0';
	char *end;
	long major = strtol(p, &end, 10), minor = 0, patch = 0;
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	minor = strtol(end + 1, &end, 10);
	if (*end == '.' && isdigit((unsigned char)end[1]))
		patch = strtol(end + 1, &end, 10);
	if (major > 9999 || minor > 9999 || patch > 99999)
		return -EINVAL; /* not a version perf ever printed */
	v->major = (int)major;
	v->minor = (int)minor;
	v->patch = (int)patch;
	return 0;
}

bool perf_version__at_least(const struct perf_version *v, int major, int minor)
{
	return v->major > major || (v->major == major && v->minor >= minor);
}

bool perf_sampling_forbidden(int paranoid, bool root)
{
	return !root && paranoid >= 3;
}

/* Reads the first "key : value" integer of a cpuinfo text; -1 when absent. */
static long cpuinfo_int(const char *cpuinfo, const char *key)
{
	size_t klen = strlen(key);
	for (const char *l = cpuinfo; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, klen) != 0)
			continue;
		const char *q = l + klen;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		return strtol(q + 1, NULL, 0); /* Arm writes "0x41", "0xd4f" */
	}
	return -1;
}

static const struct counter_group *intel_group(long family, long model)
{
	static const long sp[] = {0x55, 0x6a, 0x6c, 0x8f, 0xcf, 0xad, 0xae};
	for (size_t i = 0; family == 6 && i < sizeof(sp) / sizeof(sp[0]); i++)
		if (model == sp[i])
			return &intel_sp;
	return NULL;
}

const struct counter_group *perf_counter_group(const char *cpuinfo)
{
	if (cpuinfo && strstr(cpuinfo, "GenuineIntel"))
		return intel_group(cpuinfo_int(cpuinfo, "cpu family"), cpuinfo_int(cpuinfo, "model"));
	if (cpuinfo && strstr(cpuinfo, "CPU implementer") && cpuinfo_int(cpuinfo, "CPU implementer") == 0x41) {
		long part = cpuinfo_int(cpuinfo, "CPU part");
		return part == 0xd40 || part == 0xd49 || part == 0xd4f ? &neoverse : NULL;
	}
	if (!cpuinfo || !strstr(cpuinfo, "AuthenticAMD"))
		return NULL;
	long family = cpuinfo_int(cpuinfo, "cpu family");
	long model = cpuinfo_int(cpuinfo, "model");
	if (family == 23)
		return model >= 0x30 ? &zen2 : NULL; /* Zen 1 has no validated group */
	if (family == 25) {
		if ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
		    (model >= 0xa0 && model <= 0xaf))
			return &zen4;
		return &zen3;
	}
	return NULL;
}

struct argv_builder {
	char **v;
	size_t n, cap;
	bool failed;
};

static void ab_push(struct argv_builder *b, char *s)
{
	if (!s || b->failed || xgrow((void **)&b->v, &b->cap, b->n + 2, sizeof(char *)) < 0) {
		xfree(s);
		b->failed = true;
		return;
	}
	b->v[b->n++] = s;
	b->v[b->n] = NULL;
}

static void ab_add(struct argv_builder *b, const char *s)
{
	ab_push(b, xstrdup(s));
}

static char **ab_finish(struct argv_builder *b)
{
	if (b->failed) {
		for (size_t i = 0; i < b->n; i++)
			xfree(b->v[i]);
		xfree(b->v);
		return NULL;
	}
	return b->v;
}

char **perf_argv_version(const char *perf)
{
	struct argv_builder b = {0};
	ab_add(&b, perf);
	ab_add(&b, "--version");
	return ab_finish(&b);
}

char **perf_argv_record(const struct perf_record_opts *o, char *const *cmd)
{
	struct argv_builder b = {0};
	ab_add(&b, o->perf);
	ab_add(&b, "record");
	bool blocking = o->offcpu_stacks && o->offcpu_blocking;
	if (!blocking) {
		ab_add(&b, "--freq");
		ab_push(&b, xasprintf("%d", o->freq));
	}
	/* Without -e perf samples cycles where the PMU has them; task-clock is
	 * the time base we analyse, and it works on every machine. With the
	 * scheduler's tracepoint, the frequency is task-clock's own term (a
	 * global --freq would make the tracepoint sample at that frequency);
	 * the counter group has its periods, and perf.data names the event
	 * "task-clock/freq=N/" (ingest_counter_canon: task-clock). */
	ab_add(&b, "-e");
	if (blocking)
		ab_push(&b, xasprintf("task-clock/freq=%d/", o->freq));
	else
		ab_add(&b, "task-clock");
	for (int i = 0; o->group && i < o->group->nr_events; i++) {
		ab_add(&b, "-e");
		ab_push(&b, xasprintf("%s/period=%ld/", o->group->events[i].event,
				      o->group->events[i].period));
	}
	if (blocking) {
		/* blocking switch-outs only, filtered in the kernel (perf.h) */
		ab_add(&b, "-e");
		ab_add(&b, OFFCPU_BLOCKING_EVENT);
		ab_add(&b, "--filter");
		ab_add(&b, OFFCPU_BLOCKING_FILTER);
	} else if (o->offcpu_stacks) {
		/* every switch out (period 1: the sched:sched_switch tracepoint
		 * would follow --freq and skip switches under load), with fp
		 * stacks whatever --call-graph says: a dwarf stack copy (8 KiB)
		 * at every switch would cost more than the switch itself */
		ab_add(&b, "-e");
		ab_add(&b, OFFCPU_STACK_EVENT);
	}
	if (o->call_graph) {
		ab_add(&b, "--call-graph");
		ab_add(&b, o->call_graph);
	}
	if (o->switch_events)
		ab_add(&b, "--switch-events");
	if (o->clock_monotonic) {
		ab_add(&b, "-k");
		ab_add(&b, "CLOCK_MONOTONIC");
	}
	if (o->no_bpf_event)
		ab_add(&b, "--no-bpf-event");
	/* -N: no copy of every sampled binary into ~/.debug; the build-ids we
	 * need are still written into perf.data's header. */
	ab_add(&b, "--no-buildid-cache");
	/* perf record prints "[ perf record: Woken up ...]" on stderr; -q keeps
	 * the application's stderr as it would be without nunatak. */
	ab_add(&b, "--quiet");
	ab_add(&b, "--output");
	ab_add(&b, o->output);
	ab_add(&b, "--");
	for (size_t i = 0; cmd && cmd[i]; i++)
		ab_add(&b, cmd[i]);
	return ab_finish(&b);
}

char **perf_argv_probe(const char *perf, const struct counter_group *g)
{
	struct argv_builder b = {0};
	ab_add(&b, perf);
	ab_add(&b, "stat");
	ab_add(&b, "-x");
	ab_add(&b, ",");
	ab_add(&b, "-o");
	ab_add(&b, "/dev/null");
	ab_add(&b, "-e");
	ab_add(&b, "task-clock");
	for (int i = 0; g && i < g->nr_events; i++) {
		ab_add(&b, "-e");
		ab_add(&b, g->events[i].event);
	}
	ab_add(&b, "--");
	ab_add(&b, "true");
	return ab_finish(&b);
}

/* "flags : fpu vme ... hypervisor ...": the CPU runs under a hypervisor. */
static bool cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
	const char *l = cpuinfo ? strstr(cpuinfo, "\nflags") : NULL;
	const char *end = l ? strchr(l + 1, '\n') : NULL;
	size_t n = strlen(flag);
	for (const char *p = l; p && end && (p = strstr(p, flag)) && p < end; p += n)
		if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

enum perf_remedy_kind perf_group_remedy_kind(const char *cpuinfo)
{
	return cpuinfo_has_flag(cpuinfo, "hypervisor") ? PERF_REMEDY_VIRTUAL_PMU
						       : PERF_REMEDY_PMU_DRIVER;
}

const char *perf_group_remedy(const char *cpuinfo)
{
	if (perf_group_remedy_kind(cpuinfo) == PERF_REMEDY_VIRTUAL_PMU)
		return "this is a virtual machine without a virtual PMU: run on bare metal, or "
		       "ask for a VM that exposes the PMU (KVM: -cpu host,pmu=on; libvirt: "
		       "<pmu state='on'/>; cloud: a bare-metal or PMU-enabled instance type)";
	return "the kernel exposes no PMU driver for this CPU "
	       "(/sys/bus/event_source/devices/cpu): use a kernel with it, then check `perf list`";
}

char **perf_argv_script(const char *perf, const char *input, bool dsoff)
{
	struct argv_builder b = {0};
	ab_add(&b, perf);
	ab_add(&b, "script");
	ab_add(&b, "--input");
	ab_add(&b, input);
	if (!dsoff) {
		/* Ingestion computes dsoff itself from the maps (ingest/perf_script.h). */
		ab_add(&b, "--show-mmap-events");
		ab_add(&b, "--show-task-events");
	}
	ab_add(&b, "--fields");
	ab_add(&b, dsoff ? PERF_SCRIPT_FIELDS : PERF_SCRIPT_FIELDS_NO_DSOFF);
	return ab_finish(&b);
}

char **perf_argv_buildid_list(const char *perf, const char *input)
{
	struct argv_builder b = {0};
	ab_add(&b, perf);
	ab_add(&b, "buildid-list");
	ab_add(&b, "--input");
	ab_add(&b, input);
	return ab_finish(&b);
}

char **perf_argv_record_probe(const char *perf, const char *out)
{
	struct argv_builder b = {0};
	const char *fixed[] = {perf, "record", "-q", "-e", "task-clock", "-o", out, "--", "true"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		ab_add(&b, fixed[i]);
	return ab_finish(&b);
}

char **perf_argv_stat(const char *perf, const char *events, const char *out_csv,
		      char *const *cmd)
{
	struct argv_builder b = {0};
	ab_add(&b, perf);
	ab_add(&b, "stat");
	ab_add(&b, "-x,");
	ab_add(&b, "-e");
	ab_add(&b, events);
	if (out_csv) {
		ab_add(&b, "-o");
		ab_add(&b, out_csv);
	}
	ab_add(&b, "--");
	for (size_t i = 0; cmd && cmd[i]; i++)
		ab_add(&b, cmd[i]);
	return ab_finish(&b);
}

void perf_argv__free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		xfree(argv[i]);
	xfree(argv);
}

bool perf_record_rejected(int exit_code, bool perf_data_written)
{
	return exit_code != 0 && !perf_data_written;
}

