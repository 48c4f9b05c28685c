// SPDX-License-Identifier: BSD-3-Clause
// The switch log on synthetic context switches: per-thread wall, CPU,
// off-CPU and preempted time, records out of order (perf sorts per round
// only), a thread that starts runnable, off-CPU intervals attributed to the
// stack taken at the switch out, and the time-budget analysis over them.
#include "harness.h"

#include <errno.h>

#include "analysis/time_budget.h"
#include "common/alloc.h"
#include "common/err.h"
#include "ingest/switches.h"
#include "model/model.h"

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

static const struct test_case cases[] = {
	{"intervals", "each off-CPU interval, for regions to meet", t_intervals},
	{"budget", "wall/CPU/off-CPU/preempted per thread, stacks, analysis", t_budget},
	{"disabled", "no context switches recorded: nothing, budget unavailable", t_disabled},
	{"causes", "cause of an off-CPU stack from its frames", t_causes},
};

TEST_MAIN(cases)
