// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include "tools/perf.h"

static int argv_len(char **v)
{
	int n = 0;
	while (v && v[n])
		n++;
	return n;
}

static int argv_find(char **v, const char *s)
{
	for (int i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return i;
	return -1;
}

static void t_version(void)
{
	struct perf_version v;
	CHECK_INT(perf_parse_version("perf version 6.1.187\n", &v), 0);
	CHECK_INT(v.major, 6);
	CHECK_INT(v.minor, 1);
	CHECK_INT(v.patch, 187);
	CHECK_STR(v.text, "6.1.187");
	CHECK(!perf_version__at_least(&v, 6, 4));
	CHECK_INT(perf_parse_version("perf version 6.14.11", &v), 0);
	CHECK(perf_version__at_least(&v, 6, 4));
	CHECK_INT(perf_parse_version("perf version 5.15.0-91-generic\n", &v), 0);
	CHECK_INT(v.major, 5);
	CHECK_INT(v.minor, 15);
	CHECK_STR(v.text, "5.15.0-91-generic");
	CHECK_INT(perf_parse_version("perf version 6.8.12.g1234abc", &v), 0);
	CHECK_INT(v.patch, 12);
	CHECK(perf_parse_version("bash: perf: command not found", &v) < 0);
	CHECK(perf_parse_version("perf version x", &v) < 0);
	CHECK(perf_parse_version("perf version 6.", &v) < 0);
	CHECK(perf_parse_version("perf version 99999999999999999999.1", &v) < 0);
	CHECK(perf_parse_version("", &v) < 0);
	CHECK(perf_parse_version(NULL, &v) < 0);
}

static void t_paranoid(void)
{
	CHECK(!perf_sampling_forbidden(2, false));
	CHECK(perf_sampling_forbidden(3, false));
	CHECK(perf_sampling_forbidden(4, false));
	CHECK(!perf_sampling_forbidden(4, true));
}

static void t_record_time_only(void)
{
	char a0[] = "./app", a1[] = "-x", a2[] = "1";
	char *cmd[] = {a0, a1, a2, NULL};
	struct perf_record_opts o = {.perf = "perf", .freq = 997, .clock_monotonic = true,
				     .output = "/r/collect/perf.data"};
	char **v = perf_argv_record(&o, cmd);
	CHECK(v);
	CHECK_STR(v[0], "perf");
	CHECK_STR(v[1], "record");
	int f = argv_find(v, "--freq");
	CHECK(f > 0);
	CHECK_STR(v[f + 1], "997");
	int k = argv_find(v, "-k");
	CHECK(k > 0);
	CHECK_STR(v[k + 1], "CLOCK_MONOTONIC");
	int ev = argv_find(v, "-e");
	CHECK_STR(v[ev + 1], "task-clock");
	int out = argv_find(v, "--output");
	CHECK_STR(v[out + 1], "/r/collect/perf.data");
	int dd = argv_find(v, "--");
	CHECK(dd > out);
	CHECK_STR(v[dd + 1], "./app");
	CHECK_STR(v[dd + 3], "1");
	CHECK_INT(argv_len(v), dd + 4);
	/* exactly one -e: time only */
	int nr_e = 0;
	for (int i = 0; v[i]; i++)
		nr_e += strcmp(v[i], "-e") == 0;
	CHECK_INT(nr_e, 1);
	perf_argv__free(v);
}

static int count(char **v, const char *s)
{
	int n = 0;
	for (int i = 0; v[i]; i++)
		n += strcmp(v[i], s) == 0;
	return n;
}

/* The switches' stacks: at every switch-out (context-switches, --freq
 * global), or of blocking switch-outs only (the scheduler's tracepoint with
 * its filter right after it, the frequency in task-clock's term: a global
 * --freq would make the tracepoint sample at 997 Hz). */
static void t_record_offcpu(void)
{
	char a0[] = "./app";
	char *cmd[] = {a0, NULL};
	static const char zen2[] = "vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n";
	struct perf_record_opts o = {.perf = "perf", .freq = 997, .output = "p.data",
				     .switch_events = true, .offcpu_stacks = true,
				     .call_graph = "dwarf,4096", .group = perf_counter_group(zen2)};
	char **v = perf_argv_record(&o, cmd);
	CHECK(v);
	CHECK_STR(v[argv_find(v, "--freq") + 1], "997");
	CHECK_STR(v[argv_find(v, "-e") + 1], "task-clock");
	int cs = argv_find(v, OFFCPU_STACK_EVENT);
	CHECK(cs > 0 && cs < argv_find(v, "--"));
	CHECK_STR(v[cs - 1], "-e");
	CHECK(argv_find(v, OFFCPU_BLOCKING_EVENT) < 0);
	CHECK(argv_find(v, "--filter") < 0);
	CHECK(argv_find(v, "--switch-events") > 0);
	perf_argv__free(v);

	o.offcpu_blocking = true;
	v = perf_argv_record(&o, cmd);
	CHECK(v);
	CHECK_INT(argv_find(v, "--freq"), -1);
	CHECK_INT(count(v, "-F"), 0);
	int tc = argv_find(v, "task-clock/freq=997/");
	CHECK(tc > 0);
	CHECK_STR(v[tc - 1], "-e");
	CHECK_INT(argv_find(v, "task-clock"), -1);
	int tp = argv_find(v, "sched:sched_switch/call-graph=fp/");
	CHECK(tp > 0 && tp < argv_find(v, "--"));
	CHECK_STR(v[tp - 1], "-e");
	CHECK_STR(v[tp + 1], "--filter"); /* perf applies --filter to the -e before it */
	CHECK_STR(v[tp + 2], "prev_state != 0");
	CHECK_INT(count(v, "--filter"), 1);
	CHECK_INT(argv_find(v, OFFCPU_STACK_EVENT), -1);
	CHECK(argv_find(v, "--switch-events") > 0);
	/* the counter group keeps its own periods; the stacks their mode */
	CHECK(argv_find(v, "fp_ret_sse_avx_ops.all/period=4999999/") > 0);
	CHECK_STR(v[argv_find(v, "--call-graph") + 1], "dwarf,4096");
	CHECK_INT(count(v, "-e"), 2 + o.group->nr_events);
	perf_argv__free(v);

	/* blocking asked without the stacks: neither event */
	o.offcpu_stacks = false;
	v = perf_argv_record(&o, cmd);
	CHECK_STR(v[argv_find(v, "--freq") + 1], "997");
	CHECK_INT(argv_find(v, OFFCPU_BLOCKING_EVENT), -1);
	CHECK_INT(argv_find(v, OFFCPU_STACK_EVENT), -1);
	CHECK_INT(argv_find(v, "--filter"), -1);
	perf_argv__free(v);
}

static const char zen2_cpuinfo[] = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n"
				   "model\t\t: 49\nmodel name\t: AMD EPYC 7702 64-Core Processor\n";

static void t_groups(void)
{
	const struct counter_group *g = perf_counter_group(zen2_cpuinfo);
	CHECK(g);
	CHECK_STR(g->uarch, "zen2");
	CHECK_INT(g->nr_events, 3);
	CHECK_STR(g->events[0].event, "fp_ret_sse_avx_ops.all");
	CHECK_INT(g->events[0].period, 4999999);
	CHECK_STR(g->events[1].event, "ls_refills_from_sys.ls_mabresp_lcl_dram");
	g = perf_counter_group("vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n");
	CHECK(g);
	CHECK_STR(g->uarch, "zen4");
	g = perf_counter_group("vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n");
	CHECK_STR(g->uarch, "zen3");
	CHECK(!perf_counter_group("vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 1\n"));
	CHECK_STR(perf_counter_group("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n")->uarch, "intel-sp");
	CHECK(!perf_counter_group("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 158\n"));
	CHECK(!perf_counter_group(NULL));
	CHECK(!perf_counter_group(""));

	/* The group argv matches the corpus's roofline recording. */
	char w0[] = "./workload";
	char *cmd[] = {w0, NULL};
	struct perf_record_opts o = {.perf = "perf", .freq = 997,
				     .group = perf_counter_group(zen2_cpuinfo), .output = "p.data"};
	char **v = perf_argv_record(&o, cmd);
	int ev = argv_find(v, "fp_ret_sse_avx_ops.all/period=4999999/");
	CHECK(ev > 0);
	CHECK_STR(v[ev - 1], "-e");
	CHECK(argv_find(v, "ls_refills_from_sys.ls_mabresp_rmt_dram/period=100003/") > ev);
	CHECK(argv_find(v, "-k") < 0);
	CHECK(argv_find(v, "--no-bpf-event") < 0);
	perf_argv__free(v);
	o.no_bpf_event = true;
	v = perf_argv_record(&o, cmd);
	CHECK(argv_find(v, "--no-bpf-event") > 0 && argv_find(v, "--no-bpf-event") < argv_find(v, "--"));
	perf_argv__free(v);
}

static void t_script_and_buildid(void)
{
	char **v = perf_argv_script("/usr/bin/perf", "d/perf.data", true);
	CHECK_STR(v[0], "/usr/bin/perf");
	CHECK_STR(v[1], "script");
	CHECK_STR(v[argv_find(v, "--input") + 1], "d/perf.data");
	CHECK_STR(v[argv_find(v, "--fields") + 1],
		  "comm,pid,tid,time,period,event,ip,sym,symoff,dso,dsoff");
	CHECK(argv_find(v, "--show-mmap-events") < 0);
	perf_argv__free(v);
	v = perf_argv_script("perf", "d/perf.data", false);
	CHECK(argv_find(v, "--show-mmap-events") > 0);
	CHECK(strstr(v[argv_find(v, "--fields") + 1], "dsoff") == NULL);
	perf_argv__free(v);
	v = perf_argv_buildid_list("perf", "x.data");
	CHECK_INT(argv_len(v), 4);
	CHECK_STR(v[1], "buildid-list");
	CHECK_STR(v[3], "x.data");
	perf_argv__free(v);
	v = perf_argv_version("perf");
	CHECK_STR(v[1], "--version");
	perf_argv__free(v);
}

static void t_rejected(void)
{
	CHECK(perf_record_rejected(129, false));
	CHECK(!perf_record_rejected(3, true));  /* the app exited 3: perf.data exists */
	CHECK(!perf_record_rejected(0, true));
	CHECK(!perf_record_rejected(0, false));
}

static const struct test_case cases[] = {
	{"version", "perf --version parsing across distributions", t_version},
	{"paranoid", "perf_event_paranoid >= 3 blocks non-root only", t_paranoid},
	{"record_time_only", "perf record argv without a counter group", t_record_time_only},
	{"record_offcpu", "the switches' stacks: every switch-out, or blocking ones only", t_record_offcpu},
	{"groups", "Zen counter groups from cpuinfo, none elsewhere", t_groups},
	{"script_buildid", "perf script / buildid-list argv", t_script_and_buildid},
	{"rejected", "a rejection is a failure with no perf.data", t_rejected},
};
TEST_MAIN(cases)
