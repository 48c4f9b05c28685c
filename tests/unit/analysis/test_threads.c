// SPDX-License-Identifier: BSD-3-Clause
// MPI runtime helper threads (analysis/threads.c) and the time budget under
// MPI (analysis/time_budget.c, report/time_view.c), on a pivot shaped like a
// real Run (LAMMPS under srun, Open MPI with yield_when_idle): each rank has
// its main thread (tid == pid) and two runtime threads asleep in libevent for
// the whole run, one sampled once, one never sampled. The never-sampled
// thread must be a helper too (the old rule read samples only), the budget's
// totals and off-CPU Hotspots are the application's threads, the helpers'
// time is said on its own line, application + helpers = every thread, and
// the Ranks section counts the same helpers. Threads that are not helpers
// (an application frame on the stack, real CPU time, no stack at all, the
// main thread, a process without ranks) stay the application's.
#include "harness.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "analysis/threads.h"
#include "analysis/time_budget.h"
#include "common/text.h"
#include "ingest/switches.h"
#include "model/model.h"
#include "report/ranks_view.h"
#include "report/time_view.h"

#define S 1e9
#define MS 1e6

static const char *const LIBEVENT = "/usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7.0.1";
static const char *const LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";
static const char *const APP = "/usr/bin/lmp";

static void measure(struct pivot *p, int64_t hotspot, int64_t locus, const char *counter,
		    double v)
{
	CHECK(pivot__add_measurement(p, &(struct measurement){
						.hotspot = hotspot, .locus = locus,
						.counter = (char *)counter, .value = v,
						.unit = (char *)"ns", .quality = QUALITY_MEASURED,
						.sample_count = hotspot == PIVOT_NONE ? -1
										     : (int64_t)(v / MS),
						.coverage = -1}) >= 0);
}

/* A thread's context-switch budget, as ingest/switches.c writes it. */
static void budget(struct pivot *p, int64_t l, double wall, double cpu, double preempted)
{
	measure(p, PIVOT_NONE, l, TIME_WALL_COUNTER, wall);
	measure(p, PIVOT_NONE, l, TIME_CPU_COUNTER, cpu);
	measure(p, PIVOT_NONE, l, TIME_OFFCPU_COUNTER, wall - cpu);
	measure(p, PIVOT_NONE, l, TIME_PREEMPTED_COUNTER, preempted);
}

/* An off-CPU stack, innermost frame first: modules[i], functions[i]. */
static void stack(struct pivot *p, int64_t l, const char *counter, double v, size_t n,
		  const char *const *modules, const char *const *functions)
{
	int64_t s = pivot__add_stack(p, &(struct stack){.locus = l, .counter = (char *)counter,
							 .value = v, .unit = (char *)"ns",
							 .sample_count = 1});
	CHECK(s >= 0);
	for (size_t i = 0; i < n; i++)
		CHECK(pivot__add_stack_frame(p, &(struct stack_frame){
							.stack = s, .depth = (int)i,
							.module = (char *)modules[i],
							.function = (char *)functions[i]}) >= 0);
}

/* Asleep in libevent's epoll loop: kernel, libc, libevent (no name). */
static void event_loop_stack(struct pivot *p, int64_t l, double v)
{
	const char *const mod[] = {"[kernel.kallsyms]", LIBC, LIBEVENT};
	const char *const fn[] = {"do_epoll_wait", "epoll_wait", NULL};
	stack(p, l, OFFCPU_COUNTER, v, 3, mod, fn);
}

/* Blocked in the application's own code (a sleep it asked for). */
static void app_stack(struct pivot *p, int64_t l, double v)
{
	const char *const mod[] = {"[kernel.kallsyms]", LIBC, APP};
	const char *const fn[] = {"do_nanosleep", "clock_nanosleep", "wait_a_bit"};
	stack(p, l, OFFCPU_COUNTER, v, 3, mod, fn);
}

static int64_t thread(struct pivot *p, int rank, int64_t pid, int64_t tid)
{
	int64_t l = pivot__intern_locus(p, rank < 2 ? "n1" : "n2", rank, tid);
	p->loci[l].pid = pid;
	return l;
}

struct fixture {
	struct pivot p;
	int64_t work, kern, event;          /* Hotspots */
	int64_t main_l[2], once[2], never[2]; /* Loci by rank */
};

/* 2 ranks, 19 s each: the main thread 3 s on CPU (15 s preempted, 1 s in
 * wait_a_bit), a runtime thread sampled once and one never sampled, both
 * asleep in libevent for the whole run. */
static void build(struct fixture *f)
{
	struct pivot *p = &f->p;
	pivot__init(p);
	f->work = pivot__add_hotspot(p, &(struct hotspot){.module = (char *)APP, .name =
							   (char *)"compute", .level = RESOLUTION_FUNCTION,
							   .has_offset = true});
	f->kern = pivot__add_hotspot(p, &(struct hotspot){.module = (char *)"[kernel.kallsyms]",
							   .name = (char *)"schedule",
							   .level = RESOLUTION_FUNCTION, .has_offset = true});
	f->event = pivot__add_hotspot(p, &(struct hotspot){.module = (char *)LIBEVENT,
							    .level = RESOLUTION_UNRESOLVED,
							    .offset = 0x1234, .has_offset = true});
	for (int r = 0; r < 2; r++) {
		int64_t pid = 24700 + 100 * r;
		f->main_l[r] = thread(p, r, pid, pid);
		f->once[r] = thread(p, r, pid, pid + 30);
		f->never[r] = thread(p, r, pid, pid + 40);
		measure(p, f->work, f->main_l[r], "task-clock", 2900 * MS);
		measure(p, f->kern, f->main_l[r], "task-clock", 100 * MS);
		budget(p, f->main_l[r], 19 * S, 3 * S, 15 * S);
		app_stack(p, f->main_l[r], 1 * S);
		measure(p, f->event, f->once[r], "task-clock", 1 * MS);
		budget(p, f->once[r], 19 * S, 2 * MS, 0);
		event_loop_stack(p, f->once[r], 19 * S - 2 * MS);
		budget(p, f->never[r], 19 * S, 0.1 * MS, 0);
		event_loop_stack(p, f->never[r], 19 * S - 0.1 * MS);
	}
}

static void t_unsampled_helpers(void)
{
	struct fixture f;
	build(&f);
	struct locus_roles roles;
	CHECK_INT(locus_roles(&f.p, "task-clock", &roles), 0);
	for (int r = 0; r < 2; r++) {
		CHECK(!locus_roles__is_helper(&roles, f.main_l[r]));
		CHECK(locus_roles__is_helper(&roles, f.once[r]));
		/* never sampled: only its switches and its stacks say what it is */
		CHECK(locus_roles__is_helper(&roles, f.never[r]));
	}
	CHECK_INT(roles.nr_helpers, 4);
	CHECK_INT(roles.nr_app, 2);
	CHECK_NEAR(roles.helper_time, 2 * MS, 1e-3); /* sampled time: the sampled helper's */
	locus_roles__release(&roles);
	pivot__release(&f.p);
}

/* Threads beside the main ones that are not helpers: whatever their
 * samples, a frame of the application on their stacks, real CPU time
 * without samples, or no evidence at all keeps them the application's. */
static void t_not_helpers(void)
{
	struct fixture f;
	build(&f);
	struct pivot *p = &f.p;
	int64_t pid = 24700;
	int64_t watchdog = thread(p, 0, pid, pid + 50); /* sleeps in its own loop */
	budget(p, watchdog, 19 * S, 0.1 * MS, 0);
	app_stack(p, watchdog, 19 * S - 0.1 * MS);
	int64_t busy = thread(p, 0, pid, pid + 51); /* 5% on CPU, never sampled */
	budget(p, busy, 19 * S, 0.95 * S, 0);
	event_loop_stack(p, busy, 18.05 * S);
	int64_t bare = thread(p, 0, pid, pid + 52); /* switches only, no stack */
	budget(p, bare, 19 * S, 0.1 * MS, 0);
	int64_t writer = thread(p, 0, pid, pid + 53); /* runs in libc, blocks in app code */
	measure(p, f.kern, writer, "task-clock", 40 * MS);
	budget(p, writer, 19 * S, 40 * MS, 0);
	app_stack(p, writer, 19 * S - 40 * MS);
	/* a third rank whose main thread sleeps in libevent, never sampled */
	int64_t idle_main = thread(p, 2, 25000, 25000);
	budget(p, idle_main, 19 * S, 0.1 * MS, 0);
	event_loop_stack(p, idle_main, 19 * S - 0.1 * MS);
	struct locus_roles roles;
	CHECK_INT(locus_roles(p, "task-clock", &roles), 0);
	CHECK(!locus_roles__is_helper(&roles, watchdog));
	CHECK(!locus_roles__is_helper(&roles, busy));
	CHECK(!locus_roles__is_helper(&roles, bare));
	CHECK(!locus_roles__is_helper(&roles, writer));
	CHECK(!locus_roles__is_helper(&roles, idle_main));
	CHECK_INT(roles.nr_helpers, 4);
	CHECK_INT(roles.nr_app, 7); /* 2 main threads and the 5 above */
	locus_roles__release(&roles);
	/* without process ids nothing tells the main thread: nothing is set aside */
	for (size_t l = 0; l < p->nr_loci; l++)
		p->loci[l].pid = 0;
	CHECK_INT(locus_roles(p, "task-clock", &roles), 0);
	CHECK_INT(roles.nr_helpers, 0);
	locus_roles__release(&roles);
	pivot__release(p);
}

static json_t *row_of(json_t *rows, int64_t tid)
{
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r)
		if (json_integer_value(json_object_get(r, "thread")) == tid)
			return r;
	return NULL;
}

static double value(json_t *o, const char *key)
{
	return json_number_value(json_object_get(json_object_get(o, key), "value"));
}

static bool has_line(const struct text_lines *t, const char *needle)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(t->v[i], needle))
			return true;
	return false;
}

static void check_budget_payload(const struct fixture *f, const struct time_budget *tb)
{
	json_t *o = time_view_payload(tb, &f->p, NULL);
	CHECK_NEAR(value(o, "cpu_ns"), 6 * S, 1);
	CHECK(strstr(json_string_value(json_object_get(json_object_get(o, "cpu_ns"), "formula")),
		     "application threads"));
	CHECK_INT(json_integer_value(json_object_get(o, "application_threads")), 2);
	json_t *h = json_object_get(o, "helper_threads");
	CHECK_INT(json_integer_value(json_object_get(h, "count")), 4);
	CHECK_INT(json_integer_value(json_object_get(h, "per_rank_min")), 2);
	CHECK_INT(json_integer_value(json_object_get(h, "per_rank_max")), 2);
	CHECK_NEAR(value(h, "thread_time_ns"), 76 * S, 1);
	CHECK(strstr(json_string_value(json_object_get(h, "rule")), "without samples"));
	json_t *rows = json_object_get(o, "loci");
	CHECK_INT(json_array_size(rows), 6);
	CHECK(json_is_false(json_object_get(row_of(rows, 24700), "helper")));
	CHECK(json_is_true(json_object_get(row_of(rows, 24740), "helper")));
	CHECK(json_is_true(json_object_get(row_of(rows, 24840), "helper")));
	json_decref(o);
	json_t *hot = time_view_offcpu_payload(tb);
	size_t i;
	json_t *r;
	json_array_foreach(hot, i, r)
		CHECK(!strstr(json_string_value(json_object_get(r, "name")), "libevent"));
	json_decref(hot);
}

/* The budget under MPI: totals over the application's threads, the
 * helpers apart, and the two add up to every thread. */
static void t_budget_helpers(void)
{
	struct fixture f;
	build(&f);
	struct time_budget tb;
	CHECK_INT(time_budget_build(&f.p, &tb), 0);
	CHECK(tb.available && tb.ranks);
	CHECK_INT(tb.nr_loci, 6);
	CHECK_INT(tb.nr_app, 2);
	CHECK_NEAR(tb.wall_ns, 19 * S, 1);
	CHECK_NEAR(tb.cpu_ns, 6 * S, 1);
	CHECK_NEAR(tb.offcpu_ns, 32 * S, 1);
	CHECK_NEAR(tb.preempted_ns, 30 * S, 1);
	CHECK_NEAR(tb.attributed_ns, 2 * S, 1);
	const struct helper_time *h = &tb.helpers;
	CHECK_INT(h->threads, 4);
	CHECK_INT(h->ranks, 2);
	CHECK_NEAR(h->cpu_ns, 4.2 * MS, 1);
	CHECK_NEAR(h->offcpu_ns, 76 * S - 4.2 * MS, 1);
	/* application + helpers = every thread's time */
	double all = 0;
	for (size_t i = 0; i < tb.nr_loci; i++)
		all += tb.loci[i].cpu_ns + tb.loci[i].offcpu_ns;
	CHECK_NEAR(tb.cpu_ns + tb.offcpu_ns + h->cpu_ns + h->offcpu_ns, all, 1);
	CHECK_NEAR(all, 6 * 19 * S, 1);
	/* the application's off-CPU Hotspots: its sleep first, no libevent */
	CHECK(tb.nr_hot >= 1);
	CHECK_STR(tb.hot[0].name, "wait_a_bit");
	CHECK_STR(tb.hot[0].cause, "sleep");
	for (size_t i = 0; i < tb.nr_hot; i++)
		CHECK(!strstr(tb.hot[i].name, "libevent"));
	CHECK(h->nr_hot == 1 && strstr(h->hot[0].name, "libevent_core") && !strcmp(h->hot[0].cause, "MPI"));
	check_budget_payload(&f, &tb);
	struct text_lines t = {0};
	struct launch_time lt = {.wall_s = NAN, .cpu_s = -1};
	CHECK_INT(time_view_lines(&tb, &lt, &f.p, &t), 0);
	CHECK(strstr(t.v[0], "time: wall 19 s over 2 application threads (38 thread-s); on CPU 6 s "
			     "(15.8% of the threads' wall time), off CPU 32 s (84.2%: 2 s blocked, "
			     "30 s preempted)") == t.v[0]);
	CHECK(has_line(&t, "  off CPU in `wait_a_bit` (sleep): 2 s - 6.2% of off-CPU time"));
	CHECK(has_line(&t, "  4 MPI runtime helper threads (2 per rank: progress, event loops): 76 "
			   "thread-s, on CPU 0.0042 s, off CPU 76 s (100.0% of their thread time), "
			   "blocked mostly in `libevent_core-2.1.so.7.0.1` (MPI, 100.0% of their "
			   "off-CPU time); not counted above"));
	text_lines__release(&t);
	time_budget__release(&tb);
	pivot__release(&f.p);
}

/* The Ranks section and the coverage count the helpers the budget sets
 * apart, the never-sampled ones included. */
static void t_ranks_agree(void)
{
	struct fixture f;
	build(&f);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&f.p, 2, &ri), 0);
	CHECK_INT(ri.nr_threads, 2);
	CHECK_INT(ri.nr_helpers, 4);
	CHECK_INT(ri.rows[0].nr_helpers, 2);
	CHECK_INT(ri.rows[1].nr_helpers, 2);
	struct text_lines t = {0};
	CHECK_INT(ranks_view_lines(&ri, &t), 0);
	CHECK(has_line(&t, "  threads: one application thread per rank; 4 MPI runtime helper "
			   "threads seen beside them"));
	text_lines__release(&t);
	rank_imbalance__release(&ri);
	struct analysis a;
	CHECK_INT(analysis_run(&f.p, NULL, 0, 30, &a), 0);
	CHECK_INT(a.nr_loci, 2);
	CHECK_INT(a.nr_helper_loci, 4);
	analysis__release(&a);
	pivot__release(&f.p);
}

/* Without ranks nothing is a helper and the budget is every thread's, as
 * before: no helper field, "threads" not "application threads". */
static void t_no_ranks(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t m = pivot__intern_locus(&p, "n1", -1, 500), w = pivot__intern_locus(&p, "n1", -1, 501);
	p.loci[m].pid = p.loci[w].pid = 500;
	budget(&p, m, 2 * S, 1 * S, 0);
	budget(&p, w, 2 * S, 0.1 * MS, 0);
	event_loop_stack(&p, w, 2 * S - 0.1 * MS);
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK(!tb.ranks);
	CHECK_INT(tb.nr_app, 2);
	CHECK_INT(tb.helpers.threads, 0);
	CHECK_NEAR(tb.cpu_ns + tb.offcpu_ns, 4 * S, 1);
	json_t *o = time_view_payload(&tb, &p, NULL);
	CHECK(json_object_get(o, "helper_threads") == NULL);
	CHECK(json_object_get(o, "application_threads") == NULL);
	CHECK(json_object_get(json_array_get(json_object_get(o, "loci"), 0), "helper") == NULL);
	CHECK_STR(json_string_value(json_object_get(json_object_get(o, "cpu_ns"), "formula")),
		  "sum over threads of cpu_ns");
	json_decref(o);
	struct text_lines t = {0};
	struct launch_time lt = {.wall_s = NAN, .cpu_s = -1};
	CHECK_INT(time_view_lines(&tb, &lt, &p, &t), 0);
	CHECK(strstr(t.v[0], "time: wall 2 s over 2 threads (4 thread-s)") == t.v[0]);
	CHECK(!has_line(&t, "helper"));
	CHECK(has_line(&t, "off CPU in `libevent_core-2.1.so.7.0.1` (MPI)"));
	text_lines__release(&t);
	time_budget__release(&tb);
	pivot__release(&p);
}

/* Under MPI without context switches there is no thread budget to split:
 * no helper_threads in the budget (the Ranks section still counts the
 * sampled helper), never a helper count of 0 beside it. */
static void t_mpi_no_switches(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t ev = pivot__add_hotspot(&p, &(struct hotspot){.module = (char *)LIBEVENT,
							       .level = RESOLUTION_UNRESOLVED,
							       .offset = 0x1234, .has_offset = true});
	int64_t work = pivot__add_hotspot(&p, &(struct hotspot){.module = (char *)APP, .name =
								 (char *)"compute", .level = RESOLUTION_FUNCTION,
								 .has_offset = true});
	int64_t m = thread(&p, 0, 300, 300), h = thread(&p, 0, 300, 301);
	measure(&p, work, m, "task-clock", 500 * MS);
	measure(&p, ev, h, "task-clock", 3 * MS);
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK(tb.ranks && !tb.available);
	struct launch_time lt = {.wall_s = 1.0, .cpu_s = 0.5};
	json_t *o = time_view_payload(&tb, &p, &lt);
	CHECK(json_object_get(o, "helper_threads") == NULL);
	CHECK(json_object_get(o, "application_threads") == NULL);
	json_decref(o);
	time_budget__release(&tb);
	struct rank_imbalance ri;
	CHECK_INT(imbalance_ranks(&p, 1, &ri), 0);
	CHECK_INT(ri.nr_helpers, 1);
	CHECK_INT(ri.nr_threads, 1);
	rank_imbalance__release(&ri);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"mpi_no_switches", "under MPI without switches the budget splits no thread",
	 t_mpi_no_switches},
	{"unsampled_helpers", "runtime threads never sampled are helpers by their switches and stacks",
	 t_unsampled_helpers},
	{"not_helpers", "application frames, CPU time, no evidence, the main thread: not helpers",
	 t_not_helpers},
	{"budget_helpers", "the budget is the application's threads, helpers said apart, sums add up",
	 t_budget_helpers},
	{"ranks_agree", "the Ranks section and the coverage count the budget's helpers",
	 t_ranks_agree},
	{"no_ranks", "without ranks the budget is every thread's, unchanged", t_no_ranks},
};
TEST_MAIN(cases)
