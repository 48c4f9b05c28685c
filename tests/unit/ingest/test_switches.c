// SPDX-License-Identifier: BSD-3-Clause
// The switch log on synthetic context switches: per-thread wall, CPU,
// off-CPU and preempted time, records out of order (perf sorts per round
// only), a thread that starts runnable, off-CPU intervals attributed to the
// stack taken at the switch out, and the time-budget analysis over them.
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/time_budget.h"
#include "common/alloc.h"
#include "common/err.h"
#include "doctor/offcpu.h"
#include "ingest/perf_data.h"
#include "ingest/perf_script.h"
#include "ingest/switches.h"
#include "model/model.h"
#include "tools/perf.h"
#include "test_perf_util.h"

extern char **environ;

#define MS 1000000ull

static double measurement(const struct pivot *p, int64_t tid, const char *counter)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot == PIVOT_NONE && p->loci[m->locus].thread == tid &&
		    !strcmp(m->counter, counter))
			return m->value;
	}
	return -1;
}

static int stack(struct switch_log *l, int64_t tid, uint64_t t, const char *mod, uint64_t off)
{
	struct ingest_frame f[2] = {
		{.module = "[kernel.kallsyms]", .module_len = 17, .offset = 0x100, .has_offset = true},
		{.module = mod, .module_len = strlen(mod), .offset = off, .has_offset = true}};
	struct ingest_sample s = {.pid = 10, .tid = tid, .time_ns = t, .event = "sched:sched_switch",
				  .event_len = 18, .hit = f[0], .callchain = f, .nr_callchain = 2};
	return switch_log__stack(l, &s);
}

static void t_budget(void)
{
	struct switch_log *l = switch_log__new();
	CHECK(l != NULL);
	switch_log__enable(l);
	/* main thread 10: exec at 0, sleeps 100..400 (stack A), preempted
	 * 500..550, exits at 1000; records given out of order */
	CHECK_INT(switch_log__event(l, 10, 10, 1000 * MS, SWITCH_EXIT), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 400 * MS, SWITCH_IN), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 100 * MS, SWITCH_OUT), 0);
	CHECK_INT(stack(l, 10, 100 * MS - 1000, "/bin/app", 0x40), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 0, SWITCH_START), 0); /* no time: ignored */
	CHECK_INT(switch_log__event(l, 10, 10, 1 * MS, SWITCH_START), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 500 * MS, SWITCH_OUT_PREEMPT), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 550 * MS, SWITCH_IN), 0);
	/* thread 11: forked at 200, runnable until 250, blocks 300..600 without
	 * a stack, exits at 700 */
	CHECK_INT(switch_log__event(l, 10, 11, 200 * MS, SWITCH_START), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 250 * MS, SWITCH_IN), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 300 * MS, SWITCH_OUT), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 600 * MS, SWITCH_IN), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 700 * MS, SWITCH_EXIT), 0);
	struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = -1};
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	CHECK_INT(switch_log__emit(l, &o, &p, &e), 0);
	CHECK_NEAR(measurement(&p, 10, TIME_WALL_COUNTER), 999 * MS, 0);
	CHECK_NEAR(measurement(&p, 10, TIME_OFFCPU_COUNTER), 350 * MS, 0);
	CHECK_NEAR(measurement(&p, 10, TIME_PREEMPTED_COUNTER), 50 * MS, 0);
	CHECK_NEAR(measurement(&p, 10, TIME_CPU_COUNTER), 649 * MS, 0);
	CHECK_NEAR(measurement(&p, 11, TIME_WALL_COUNTER), 500 * MS, 0);
	CHECK_NEAR(measurement(&p, 11, TIME_OFFCPU_COUNTER), 350 * MS, 0);
	CHECK_NEAR(measurement(&p, 11, TIME_PREEMPTED_COUNTER), 50 * MS, 0);
	CHECK_INT(p.nr_stacks, 1); /* thread 10's sleep; thread 11's block has none */
	CHECK_STR(p.stacks[0].counter, OFFCPU_COUNTER);
	CHECK_NEAR(p.stacks[0].value, 300 * MS, 0);
	CHECK_INT(p.nr_stack_frames, 2);
	CHECK_STR(p.stack_frames[1].module, "/bin/app");
	CHECK_INT(p.stack_frames[1].offset, 0x40);
	/* the analysis: attribution names the frames, as stage_attribute would */
	p.stack_frames[0].function = xstrdup("do_nanosleep");
	p.stack_frames[1].function = xstrdup("nap");
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK(tb.available && tb.have_stacks);
	CHECK_NEAR(tb.wall_ns, 999 * MS, 0);
	CHECK_NEAR(tb.offcpu_ns, 700 * MS, 0);
	CHECK_NEAR(tb.preempted_ns, 100 * MS, 0);
	CHECK_INT(tb.nr_hot, 3);
	CHECK_STR(tb.hot[0].name, "nap");
	CHECK_STR(tb.hot[0].cause, "sleep");
	CHECK(tb.hot[0].attributed && !tb.hot[1].attributed && !tb.hot[2].attributed);
	CHECK_NEAR(tb.hot[1].time_ns + tb.hot[2].time_ns, 400 * MS, 0); /* preempted + no stack */
	time_budget__release(&tb);
	pivot__release(&p);
	switch_log__free(l);
}

/* A log never enabled (no context_switch bit in the recording) writes
 * nothing: the budget is then unavailable, never 0. */
static void t_disabled(void)
{
	struct switch_log *l = switch_log__new();
	CHECK_INT(switch_log__event(l, 1, 1, 5 * MS, SWITCH_START), 0);
	struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = -1};
	struct pivot p;
	pivot__init(&p);
	CHECK_INT(switch_log__emit(l, &o, &p, NULL), 0);
	CHECK_INT(p.nr_measurements, 0);
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK(!tb.available);
	time_budget__release(&tb);
	pivot__release(&p);
	switch_log__free(l);
}

static void t_causes(void)
{
	const char *f1[] = {"__schedule", "futex_wait", "pthread_mutex_lock"};
	const char *m1[] = {"[kernel.kallsyms]", "[kernel.kallsyms]", "/lib/libc.so.6"};
	CHECK_STR(offcpu_cause(f1, m1, 3), "lock");
	const char *f2[] = {"__schedule", "io_schedule", "ext4_sync_file"};
	CHECK_STR(offcpu_cause(f2, m1, 3), "I/O");
	const char *f3[] = {"__schedule", "x", "MPI_Recv"};
	const char *m3[] = {"[kernel.kallsyms]", "[kernel.kallsyms]", "/usr/lib/libmpi.so.40"};
	CHECK_STR(offcpu_cause(f3, m3, 3), "MPI");
	const char *f4[] = {NULL, NULL};
	CHECK_STR(offcpu_cause(f4, m1, 2), "other");
}

struct ivs {
	int64_t tid[8];
	uint64_t a[8], b[8];
	int n;
};

static int collect(void *ctx, int64_t pid, int64_t tid, uint64_t start, uint64_t end)
{
	struct ivs *v = ctx;
	CHECK_INT(pid, 10);
	if (v->n == 8)
		return -E2BIG;
	v->tid[v->n] = tid;
	v->a[v->n] = start;
	v->b[v->n++] = end;
	return 0;
}

/* The intervals regions meet with (regions/meet_run.c): the same as the
 * budget's, in time order per thread, a runnable start and an end off the
 * CPU included. */
static void t_intervals(void)
{
	struct switch_log *l = switch_log__new();
	CHECK(l != NULL);
	switch_log__enable(l);
	CHECK_INT(switch_log__event(l, 10, 10, 400 * MS, SWITCH_IN), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 100 * MS, SWITCH_OUT), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 1 * MS, SWITCH_START), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 500 * MS, SWITCH_OUT_PREEMPT), 0);
	CHECK_INT(switch_log__event(l, 10, 10, 900 * MS, SWITCH_EXIT), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 200 * MS, SWITCH_START), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 250 * MS, SWITCH_IN), 0);
	CHECK_INT(switch_log__event(l, 10, 11, 700 * MS, SWITCH_EXIT), 0);
	struct ivs v = {0};
	CHECK_INT(switch_log__intervals(l, collect, &v), 0);
	CHECK_INT(v.n, 3);
	CHECK_INT(v.tid[0], 10); /* slept 100..400 */
	CHECK_INT(v.a[0], 100 * MS);
	CHECK_INT(v.b[0], 400 * MS);
	CHECK_INT(v.tid[1], 10); /* preempted at 500, ended off the CPU at 900 */
	CHECK_INT(v.a[1], 500 * MS);
	CHECK_INT(v.b[1], 900 * MS);
	CHECK_INT(v.tid[2], 11); /* started runnable 200..250 */
	CHECK_INT(v.a[2], 200 * MS);
	CHECK_INT(v.b[2], 250 * MS);
	/* an error of the callback stops the walk and is returned */
	struct ivs full = {.n = 8};
	CHECK_INT(switch_log__intervals(l, collect, &full), -E2BIG);
	switch_log__free(l);
}

static int run(const char *const argv[], const char *out)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int st = -1;
	if (posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0)
		waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char tp_dir[] = "/tmp/nunatak-test-swtp-XXXXXX";

static void tp_cleanup(void)
{
	static const char *const files[] = {"ys", "x.data", "x.data.old", "x.txt", "truth.txt"};
	char path[96];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tp_dir, files[i]);
		unlink(path);
	}
	rmdir(tp_dir);
}

/* Per-thread sums of a Locus-level counter: value and sample_count. */
static double total(const struct pivot *p, const char *counter, int64_t tid, int64_t *n)
{
	double v = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot == PIVOT_NONE && !strcmp(m->counter, counter) &&
		    (tid < 0 || p->loci[m->locus].thread == tid)) {
			v += m->value;
			if (n)
				*n += m->sample_count > 0 ? m->sample_count : 0;
		}
	}
	return v;
}

/* Records yield_sleep (yields ping-ponged on one CPU, two threads spinning
 * on it, one 200 ms sleep) the way a rank shim does, with the stacks of
 * blocking switch-outs only, and reads it back directly (the task-clock and
 * tracepoint events' trailers differ) and through perf script. */
static void record_yield_sleep(char *bin, char *data, size_t cap)
{
	const char *pv[] = {"perf", "--version", NULL}, *cv[] = {"cc", "--version", NULL};
	if (run(pv, NULL) != 0)
		SKIP("perf not installed");
	if (run(cv, NULL) != 0)
		SKIP("no C compiler (cc)");
	char why[160];
	if (!offcpu_blocking_usable(why, sizeof(why)))
		SKIP(why);
	if (!mkdtemp(tp_dir))
		FAIL_INPUT("no temp dir");
	atexit(tp_cleanup);
	char truth[96];
	snprintf(bin, cap, "%s/ys", tp_dir);
	snprintf(data, cap, "%s/x.data", tp_dir);
	snprintf(truth, sizeof(truth), "%s/truth.txt", tp_dir);
	const char *cc[] = {"cc", "-O1", "-g", "-fno-omit-frame-pointer", "-pthread", "-o", bin,
			    TEST_SOURCE_DIR "/tests/fixtures/offcpu/yield_sleep.c", NULL};
	CHECK_INT(run(cc, NULL), 0);
	char *cmd[] = {bin, (char *)"20000", truth, (char *)"200", NULL};
	struct perf_record_opts ro = {.perf = "perf", .freq = PERF_DEFAULT_FREQ,
				      .clock_monotonic = true, .call_graph = "fp", .output = data,
				      .no_bpf_event = true, .switch_events = true,
				      .offcpu_stacks = true, .offcpu_blocking = true};
	char **argv = perf_argv_record(&ro, cmd);
	CHECK(argv != NULL);
	int rc = run((const char *const *)argv, NULL);
	perf_argv__free(argv);
	if (rc != 0)
		SKIP("perf record refused sched:sched_switch with its filter here");
}

static void t_tracepoint_recording(void)
{
	char bin[96], data[96];
	record_yield_sleep(bin, data, sizeof(bin));
	struct ingest_opts o = {.sz = sizeof(o), .node = "n", .rank = 0};
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	struct err e = {0};
	CHECK_INT(ingest_perf_data_file(data, &o, &p, &st, &e), 0); /* directly, no fallback */
	CHECK(st.nr_samples > 0);
	int64_t main_tid = -1, switches = 0, unstacked_n = 0;
	for (size_t l = 0; l < p.nr_loci; l++)
		if (p.loci[l].thread == p.loci[l].pid && p.loci[l].pid > 0)
			main_tid = p.loci[l].thread;
	CHECK(main_tid > 0);
	double pre = total(&p, TIME_PREEMPTED_COUNTER, -1, NULL);
	double unst = total(&p, TIME_PREEMPTED_UNSTACKED_COUNTER, -1, &unstacked_n);
	total(&p, TIME_OFFCPU_COUNTER, -1, &switches);
	/* 40 000 yields on one CPU: most of them switch */
	CHECK(switches >= 4000);
	/* the yields' and user-mode preemptions' intervals: no stack */
	CHECK(unst > 0 && unst <= pre + 1);
	CHECK(unst >= 0.9 * pre);
	CHECK(unstacked_n >= switches / 2);
	/* the main thread spun 200 ms sharing its CPU: preempted, unstacked */
	double main_pre = total(&p, TIME_PREEMPTED_COUNTER, main_tid, NULL);
	CHECK(main_pre >= 20 * MS);
	CHECK(total(&p, TIME_PREEMPTED_UNSTACKED_COUNTER, main_tid, NULL) >= 0.9 * main_pre);
	/* stacks for the blocking switch-outs only: far fewer than switches,
	 * and the 200 ms sleep's among them, in the program's own code */
	int64_t stacked = 0;
	bool slept = false;
	for (size_t i = 0; i < p.nr_stacks; i++) {
		const struct stack *k = &p.stacks[i];
		if (strcmp(k->counter, OFFCPU_COUNTER) && strcmp(k->counter, OFFCPU_PREEMPTED_COUNTER))
			continue; /* the time base's */
		stacked += k->sample_count;
		if (strcmp(k->counter, OFFCPU_COUNTER) || p.loci[k->locus].thread != main_tid ||
		    k->value < 150 * MS)
			continue;
		for (size_t f = 0; f < p.nr_stack_frames; f++)
			slept |= p.stack_frames[f].stack == (int64_t)i && p.stack_frames[f].module &&
				 !strcmp(p.stack_frames[f].module, bin);
	}
	CHECK(stacked >= 1 && stacked * 20 <= switches);
	CHECK(slept);
	/* perf script's text (the fallback path): the tracepoint's stacks are
	 * no CPU samples there either */
	char txt[96];
	snprintf(txt, sizeof(txt), "%s/x.txt", tp_dir);
	char **sargv = perf_argv_script("perf", data, false);
	CHECK_INT(run((const char *const *)sargv, txt), 0);
	perf_argv__free(sargv);
	size_t len;
	char *buf = slurp(txt, &len);
	CHECK(buf && strstr(buf, "sched:sched_switch"));
	struct pivot q;
	pivot__init(&q);
	struct ingest_stats st2 = {0};
	CHECK_INT(ingest_perf_script(buf, len, &o, &q, &st2, &e), 0);
	CHECK_INT(st2.nr_samples, st.nr_samples);
	for (size_t i = 0; i < q.nr_measurements; i++)
		CHECK(strncmp(q.measurements[i].counter, "sched", 5) != 0);
	free(buf);
	ingest_stats__release(&st);
	ingest_stats__release(&st2);
	pivot__release(&q);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"tracepoint_recording", "a real recording with sched:sched_switch filtered: yields and "
	 "preemptions unstacked, the sleep's stack kept, read directly and via perf script "
	 "(skips w/o perf, cc, root/tracefs)", t_tracepoint_recording},
	{"intervals", "each off-CPU interval, for regions to meet", t_intervals},
	{"budget", "wall/CPU/off-CPU/preempted per thread, stacks, analysis", t_budget},
	{"disabled", "no context switches recorded: nothing, budget unavailable", t_disabled},
	{"causes", "cause of an off-CPU stack from its frames", t_causes},
};

TEST_MAIN(cases)
