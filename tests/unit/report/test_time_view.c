// SPDX-License-Identifier: BSD-3-Clause
// Counting-only MPI ranks in the time budget (report/time_view.c,
// analysis/time_budget.c): a rank Locus with perf stat's task-clock and
// duration_time gets wall and CPU measured and off-CPU = wall - CPU
// estimated; CPU beyond wall (several threads) leaves off-CPU unavailable;
// no duration_time (an older Run) leaves wall unavailable; never per thread
// (threads null with its reason); a sampled rank's Measurements are not read
// as a counted rank's.
#include "harness.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/time_budget.h"
#include "common/text.h"
#include "model/model.h"
#include "report/time_view.h"

static void measure(struct pivot *p, int64_t locus, const char *counter, double v)
{
	pivot__add_measurement(p, &(struct measurement){
					  .hotspot = PIVOT_NONE, .locus = locus, .counter = (char *)counter,
					  .value = v, .unit = (char *)"ns", .quality = QUALITY_MEASURED,
					  .sample_count = -1, .coverage = -1});
}

static json_t *row_of(json_t *rows, int rank)
{
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r)
		if (json_integer_value(json_object_get(r, "rank")) == rank)
			return r;
	return NULL;
}

static const char *quality(json_t *row, const char *key)
{
	return json_string_value(json_object_get(json_object_get(row, key), "quality"));
}

static void t_counted_ranks(void)
{
	struct pivot p;
	pivot__init(&p);
	int64_t r0 = pivot__intern_locus(&p, "n", 0, -1), r1 = pivot__intern_locus(&p, "n", 1, -1);
	int64_t r2 = pivot__intern_locus(&p, "n", 2, -1), r3 = pivot__intern_locus(&p, "n", 3, -1);
	measure(&p, r0, "mpi_time", 1e8); /* a sampled rank: its MPI probe only */
	measure(&p, r1, "task-clock", 5e8);
	measure(&p, r1, "duration_time", 2e9);
	measure(&p, r2, "task-clock", 3e9); /* two threads busy for 1.5 s each */
	measure(&p, r2, "duration_time", 2e9);
	measure(&p, r3, "task-clock", 4e8); /* perf stat without duration_time */
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK_INT(tb.nr_counted, 3);
	json_t *o = time_view_payload(&tb, &p, NULL);
	json_t *rows = json_object_get(o, "counted_ranks");
	CHECK_INT(json_array_size(rows), 3);
	CHECK_INT(json_integer_value(json_object_get(o, "counted_ranks_total")), 3);
	CHECK(json_object_get(o, "counted_ranks_rule") == NULL); /* all listed */
	CHECK(row_of(rows, 0) == NULL);
	json_t *a = row_of(rows, 1), *b = row_of(rows, 2), *c = row_of(rows, 3);
	CHECK(a && b && c);
	if (a && b && c) {
		CHECK(json_is_null(json_object_get(a, "threads")));
		CHECK(strstr(json_string_value(json_object_get(a, "threads_reason")), "per thread"));
		CHECK_STR(quality(a, "wall_ns"), "measured");
		CHECK_STR(quality(a, "cpu_ns"), "measured");
		CHECK_STR(quality(a, "offcpu_ns"), "estimated");
		CHECK(json_real_value(json_object_get(json_object_get(a, "offcpu_ns"), "value")) ==
		      1.5e9);
		CHECK_STR(quality(b, "offcpu_ns"), "unavailable");
		CHECK(json_is_null(json_object_get(json_object_get(b, "offcpu_ns"), "value")));
		CHECK_STR(quality(c, "wall_ns"), "unavailable");
		CHECK_STR(quality(c, "offcpu_ns"), "unavailable");
		CHECK_STR(quality(c, "cpu_ns"), "measured");
	}
	json_decref(o);
	struct text_lines out = {0};
	struct launch_time lt = {.wall_s = NAN, .cpu_s = -1};
	CHECK_INT(time_view_lines(&tb, &lt, &p, &out), 0);
	bool head = false, one = false, two = false, three = false;
	for (size_t i = 0; i < out.n; i++) {
		head |= strstr(out.v[i], "time of the 3 counting-only ranks (perf stat): per rank, "
					 "not per thread") != NULL;
		one |= strstr(out.v[i], "rank 1: wall 2 s; on CPU 0.5 s (25.0% of wall time), off "
					"CPU 1.5 s (estimated") != NULL;
		two |= strstr(out.v[i], "rank 2: wall 2 s; CPU 3 s over several threads; off-CPU "
					"time unavailable") != NULL;
		three |= strstr(out.v[i], "rank 3: CPU 0.4 s; wall and off-CPU time unavailable") !=
			 NULL;
	}
	CHECK(head && one && two && three);
	text_lines__release(&out);
	time_budget__release(&tb);
	pivot__release(&p);
}

static void t_counted_at_scale(void)
{
	/* 4000 counted ranks: the payload lists 64, the first 32 and the 32 with
	 * the largest off-CPU share (ranks 1000-1031 here), and says so */
	struct pivot p;
	pivot__init(&p);
	for (int r = 0; r < 4000; r++) {
		int64_t l = pivot__intern_locus(&p, "n", r, -1);
		measure(&p, l, "task-clock", r >= 1000 && r < 1032 ? 1e8 : 9e8);
		measure(&p, l, "duration_time", 1e9);
	}
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK_INT(tb.nr_counted, 4000);
	json_t *o = time_view_payload(&tb, &p, NULL);
	json_t *rows = json_object_get(o, "counted_ranks");
	CHECK_INT(json_array_size(rows), 64);
	CHECK_INT(json_integer_value(json_object_get(o, "counted_ranks_total")), 4000);
	CHECK(strstr(json_string_value(json_object_get(o, "counted_ranks_rule")), "largest off-CPU"));
	CHECK(row_of(rows, 0) && row_of(rows, 31) && !row_of(rows, 32));
	CHECK(row_of(rows, 1000) && row_of(rows, 1031) && !row_of(rows, 1032) && !row_of(rows, 999));
	json_decref(o);
	time_budget__release(&tb);
	pivot__release(&p);
}

/* Thread Loci with their budgets: each row of the payload carries the
 * thread's name (null when none was recorded), and the summary's line of
 * the busiest threads says each tid with its name, by on-CPU time. */
static void t_thread_names(void)
{
	struct pivot p;
	pivot__init(&p);
	static const struct {
		int64_t tid;
		const char *name;
		double cpu;
	} th[] = {{11, "w\xff" "z", 0.5e9}, {12, "<b>&\"x", 0.9e9}, {13, NULL, 0.1e9}};
	for (size_t i = 0; i < 3; i++) {
		int64_t l = pivot__intern_locus(&p, "n", -1, th[i].tid);
		p.loci[l].pid = 11;
		if (th[i].name)
			CHECK_INT(locus__set_name(&p.loci[l], th[i].name, strlen(th[i].name)), 0);
		measure(&p, l, "wall_time", 1e9);
		measure(&p, l, "cpu_time", th[i].cpu);
		measure(&p, l, "offcpu_time", 1e9 - th[i].cpu);
		measure(&p, l, "offcpu_preempted", 0);
	}
	struct time_budget tb;
	CHECK_INT(time_budget_build(&p, &tb), 0);
	CHECK_INT(tb.nr_app, 3);
	json_t *o = time_view_payload(&tb, &p, NULL);
	json_t *rows = json_object_get(o, "loci");
	CHECK_INT(json_array_size(rows), 3);
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		json_int_t tid = json_integer_value(json_object_get(r, "thread"));
		json_t *name = json_object_get(r, "name");
		CHECK(name != NULL); /* the key is there, null when unnamed */
		if (tid == 11)
			CHECK_STR(json_string_value(name), "w\\xffz");
		else if (tid == 12)
			CHECK_STR(json_string_value(name), "<b>&\"x");
		else
			CHECK(tid == 13 && json_is_null(name));
	}
	char *dump = json_dumps(o, 0); /* the stray byte reached JSON as text */
	CHECK(dump && strstr(dump, "\"name\": \"w\\\\xffz\""));
	free(dump);
	json_decref(o);
	struct text_lines out = {0};
	struct launch_time lt = {.wall_s = NAN, .cpu_s = -1};
	CHECK_INT(time_view_lines(&tb, &lt, &p, &out), 0);
	bool line = false;
	for (size_t k = 0; k < out.n; k++)
		line |= strcmp(out.v[k], "  on CPU by thread: 12 <b>&\"x 0.9 s, 11 w\\xffz 0.5 s, "
					 "13 0.1 s") == 0;
	CHECK(line);
	text_lines__release(&out);
	time_budget__release(&tb);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"thread_names", "each thread's name in the payload (null when none) and the summary",
	 t_thread_names},
	{"counted_at_scale", "beyond 64 counted ranks: the first and the off-CPU outliers, said",
	 t_counted_at_scale},
	{"counted_ranks", "a counting-only rank's time per rank, with its Quality and reasons",
	 t_counted_ranks},
};
TEST_MAIN(cases)
