// SPDX-License-Identifier: BSD-3-Clause
// The OpenMP view from the frames (analysis/openmp.c, no OMPT): work in the
// outlined functions, wait in the runtime; only the application's threads
// are OpenMP threads (a foreign process's thread waiting in libc's futex,
// as a sanitizer's tracer task did, is not "thread 2 waits 100%").
#include "harness.h"

#include <string.h>

#include "analysis/openmp.h"
#include "ingest/switches.h"
#include "model/model.h"

#define APP "/app/omp"
#define LIBOMP "/usr/lib/x86_64-linux-gnu/libomp.so.5"
#define LIBGOMP "/usr/lib/x86_64-linux-gnu/libgomp.so.1"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static int64_t locus(struct pivot *p, int64_t pid, int64_t tid)
{
	return pivot__add_locus(p, &(struct locus){.node = (char *)"n", .rank = -1, .thread = tid,
						   .pid = pid});
}

/* A stack of n frames (innermost first): "function@module" pairs. */
static void stack(struct pivot *p, int64_t l, const char *counter, double ns,
		  const char *const *fr, int n)
{
	int64_t s = pivot__add_stack(p, &(struct stack){.locus = l, .counter = (char *)counter,
							.value = ns, .unit = (char *)"ns",
							.sample_count = 1});
	for (int i = 0; i < n; i++)
		pivot__add_stack_frame(p, &(struct stack_frame){.stack = s, .depth = i,
								.module = (char *)fr[2 * i + 1],
								.offset = 16u * (unsigned)i,
								.function = (char *)fr[2 * i]});
}

static const struct omp_thread *thread_of(const struct omp_region *r, int64_t l)
{
	for (size_t i = 0; i < r->nr_threads; i++)
		if (r->threads[i].locus == l)
			return &r->threads[i];
	return NULL;
}

static void t_foreign_thread(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t t0 = locus(&p, 100, 100), t1 = locus(&p, 100, 101);
	int64_t relay = locus(&p, 90, 90), tracer = locus(&p, 90, 91);
	int64_t io = locus(&p, 100, 102); /* the application's own non-OpenMP thread */
	static const char *const work[] = {".omp_outlined.", APP, "__kmp_invoke_microtask", LIBOMP};
	static const char *const futex[] = {"futex_wait", "[kernel.kallsyms]", "syscall", LIBC};
	stack(&p, t0, "task-clock", 3e8, work, 2);
	stack(&p, t1, "task-clock", 1e8, work, 2);
	stack(&p, t1, OFFCPU_COUNTER, 2e8, futex, 2); /* libomp's wait in libc */
	stack(&p, tracer, OFFCPU_COUNTER, 5e8, futex, 2);
	stack(&p, relay, OFFCPU_COUNTER, 4e8, futex, 2);
	stack(&p, io, OFFCPU_COUNTER, 6e8, futex, 2);
	struct omp_view v;
	CHECK_INT(omp_view_build(&p, "task-clock", &v), 0);
	CHECK_STR(v.runtime, "libomp");
	CHECK_INT(v.nr_regions, 1);
	const struct omp_region *r = &v.regions[0];
	CHECK_INT(r->nr_threads, 2);
	CHECK(!thread_of(r, tracer) && !thread_of(r, relay) && !thread_of(r, io));
	const struct omp_thread *a = thread_of(r, t0), *b = thread_of(r, t1);
	CHECK(a && b);
	if (a && b) {
		CHECK_INT(a->thread, 0);
		CHECK_INT(b->thread, 1);
		CHECK(b->wait_ns == 2e8 && b->work_ns == 1e8 && a->work_ns == 3e8);
		CHECK(!b->wait_split && !v.wait_split); /* one region: nothing to split */
	}
	omp_view__release(&v);
	pivot__release(&p);
}

/* A libgomp worker that never got work but ran the runtime (an idle member
 * of the team) is still an OpenMP thread; its number counts the threads
 * kept only. */
static void t_idle_worker(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t t0 = locus(&p, 100, 100), other = locus(&p, 100, 101), t1 = locus(&p, 100, 102);
	static const char *const work[] = {"main._omp_fn.0", APP, "GOMP_parallel", LIBGOMP};
	static const char *const barrier[] = {"schedule", "[kernel.kallsyms]", "gomp_barrier_wait_end",
					      LIBGOMP};
	static const char *const sleep[] = {"schedule", "[kernel.kallsyms]", "clock_nanosleep", LIBC};
	stack(&p, t0, "task-clock", 3e8, work, 2);
	stack(&p, other, OFFCPU_COUNTER, 9e8, sleep, 2);
	stack(&p, t1, OFFCPU_COUNTER, 3e8, barrier, 2);
	struct omp_view v;
	CHECK_INT(omp_view_build(&p, "task-clock", &v), 0);
	CHECK_STR(v.runtime, "libgomp");
	CHECK_INT(v.nr_regions, 1);
	const struct omp_region *r = &v.regions[0];
	CHECK_INT(r->nr_threads, 2);
	const struct omp_thread *b = thread_of(r, t1);
	CHECK(b && b->thread == 1 && b->wait_ns == 3e8 && b->work_ns == 0);
	CHECK(!thread_of(r, other));
	omp_view__release(&v);
	pivot__release(&p);
}

static void unstacked(struct pivot *p, int64_t l, double ns)
{
	pivot__add_measurement(p, &(struct measurement){.hotspot = PIVOT_NONE, .locus = l,
							.counter = (char *)TIME_PREEMPTED_UNSTACKED_COUNTER,
							.value = ns, .unit = (char *)"ns",
							.quality = QUALITY_MEASURED, .sample_count = 3,
							.coverage = -1});
}

/* Stacks of blocking switch-outs only (an MPI rank): a thread's preempted
 * time has no stack; it is spread over the thread's work and wait in
 * proportion to them, and the view says how much there was (the page and
 * summary mark work and wait estimated). A thread with none is unchanged;
 * without the counter (a stack at every switch-out) nothing is spread. */
static void t_unstacked(void)
{
	for (int with = 0; with < 2; with++) {
		struct pivot p;
		pivot__init(&p);
		int64_t t0 = locus(&p, 100, 100), t1 = locus(&p, 100, 101);
		static const char *const work[] = {"main._omp_fn.0", APP, "GOMP_parallel", LIBGOMP};
		static const char *const barrier[] = {"schedule", "[kernel.kallsyms]",
						      "gomp_barrier_wait_end", LIBGOMP};
		stack(&p, t0, "task-clock", 3e8, work, 2);
		stack(&p, t1, "task-clock", 1e8, work, 2);
		stack(&p, t1, OFFCPU_COUNTER, 3e8, barrier, 2);
		if (with) {
			unstacked(&p, t1, 2e8); /* t1: work 1e8 + wait 3e8, 2e8 more: x1.5 */
			unstacked(&p, t0, 0);
		}
		struct omp_view v;
		CHECK_INT(omp_view_build(&p, "task-clock", &v), 0);
		CHECK_INT(v.nr_regions, 1);
		const struct omp_thread *a = thread_of(&v.regions[0], t0),
					*b = thread_of(&v.regions[0], t1);
		CHECK(a && b);
		if (a && b) {
			CHECK_NEAR(a->work_ns, 3e8, 1);
			CHECK_NEAR(b->work_ns, with ? 1.5e8 : 1e8, 1);
			CHECK_NEAR(b->wait_ns, with ? 4.5e8 : 3e8, 1);
			CHECK_NEAR(v.regions[0].time_ns, with ? 6e8 : 4e8, 1);
		}
		CHECK_NEAR(v.unstacked_ns, with ? 2e8 : 0, 1);
		omp_view__release(&v);
		pivot__release(&p);
	}
}

/* Two regions of opposite imbalance (thread 0 works 3x in the first,
 * thread 1 3x in the second): each thread's wait in libgomp, which no frame
 * ties to a region, goes to the region where it had to wait (its deficit),
 * estimated, not to the one where it worked most; a wait whose stack holds
 * the outlined function is that region's. A thread with a single region
 * keeps its whole wait there, not estimated. */
static void t_two_regions(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t t0 = locus(&p, 100, 100), t1 = locus(&p, 100, 101);
	static const char *const r0[] = {"main._omp_fn.0", APP, "GOMP_parallel", LIBGOMP};
	static const char *const r1[] = {"main._omp_fn.1", APP, "GOMP_parallel", LIBGOMP};
	static const char *const pool[] = {"schedule", "[kernel.kallsyms]", "(caller unknown)",
					   LIBGOMP};
	static const char *const named[] = {"schedule", "[kernel.kallsyms]", "gomp_barrier_wait_end",
					    LIBGOMP, "main._omp_fn.1", APP};
	stack(&p, t0, "task-clock", 3e8, r0, 2);
	stack(&p, t1, "task-clock", 1e8, r0, 2);
	stack(&p, t0, "task-clock", 1e8, r1, 2);
	stack(&p, t1, "task-clock", 3e8, r1, 2);
	stack(&p, t1, OFFCPU_COUNTER, 2e8, pool, 2);
	stack(&p, t0, OFFCPU_COUNTER, 2e8, pool, 2);
	stack(&p, t1, OFFCPU_COUNTER, 5e7, named, 3);
	struct omp_view v;
	CHECK_INT(omp_view_build(&p, "task-clock", &v), 0);
	CHECK_INT(v.nr_regions, 2);
	CHECK(v.wait_measured && v.wait_split);
	for (size_t i = 0; i < v.nr_regions; i++) {
		const struct omp_region *r = &v.regions[i];
		const struct omp_thread *a = thread_of(r, t0), *b = thread_of(r, t1);
		CHECK(a && b);
		if (!a || !b)
			continue;
		if (!strcmp(r->name, "main._omp_fn.0")) {
			CHECK(b->wait_ns == 2e8 && b->wait_split); /* thread 1 waited here */
			CHECK(a->wait_ns == 0 && a->wait_split); /* none of its pool: a choice too */
			CHECK(a->work_ns == 3e8 && b->work_ns == 1e8);
		} else {
			CHECK_STR(r->name, "main._omp_fn.1");
			CHECK(a->wait_ns == 2e8 && a->wait_split);
			CHECK(b->wait_ns == 5e7 && b->wait_split); /* its named wait only */
			CHECK(r->time_ns == 3e8 + 5e7);
		}
	}
	omp_view__release(&v);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"unstacked", "preempted time without a stack spread over work and wait, said",
	 t_unstacked},
	{"two_regions", "waits split between regions by the thread's deficit in each",
	 t_two_regions},
	{"foreign_thread", "a thread outside the application's OpenMP threads is none of them",
	 t_foreign_thread},
	{"idle_worker", "a worker that only ran the runtime is kept, numbered among the kept",
	 t_idle_worker},
};
TEST_MAIN(cases)
