// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include "common/err.h"
#include "regions/callstack.h"
#include "regions/regions_inspect.h"
#include "regions/regions_run.h"
#include "regions/summary.h"
#include "regions/trace_bytes.h"
#include "regions/trace_set.h"

#include <sys/stat.h>

/* Each case runs in its own forked child, so each makes its own directory. */
static char dir[64];

static void fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/nunatak-summary-XXXXXX");
	if (!mkdtemp(dir))
		exit(1);
}

static void save(const char *name, int version, bool big, int32_t rank,
		 const struct tb_region *r, size_t nr, const struct tb_thread *th, size_t nth)
{
	char path[256];
	struct tb t = {.big = big};
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tb_spt(&t, version, rank, r, nr, th, nth);
	CHECK_INT(tb_save(&t, path), 0);
	free(t.b);
}

static const struct region_summary *find(const struct summary *s, const struct trace_set *ts,
					 const char *name)
{
	for (uint32_t i = 0; i < ts->nr_regions; i++)
		if (strcmp(ts->regions[i].name, name) == 0)
			return &s->r[i];
	return NULL;
}

static void summarize(struct trace_set *ts, struct summary *s)
{
	const char *in[] = {dir};
	struct err e = {0};
	struct rank_filter all = {0};
	CHECK_INT(trace_set__open(ts, in, 1, &e), 0);
	int rc = regions_summarize(ts, &all, s, NULL, &e);
	if (rc)
		fprintf(stderr, "%s\n", e.msg);
	CHECK_INT(rc, 0);
}

/* Two ranks in two byte orders and versions merge by region name. */
static void t_merge(void)
{
	const struct tb_call m0[] = {{1000, 2000, 0}}, w0[] = {{1100, 1300, 0}, {1400, 1900, 0}};
	const struct tb_call m1[] = {{50, 450, 0}}, w1[] = {{100, 400, 0}};
	const struct tb_region r0[] = {{"main", NULL, -1, m0, 1}, {"work", "w.c", 3, w0, 2}};
	const struct tb_region r1[] = {{"work", NULL, -1, w1, 1}, {"main", NULL, -1, m1, 1}};
	fresh_dir();
	save("x_rank00000.spt", 2, false, 0, r0, 2, NULL, 0);
	save("x_rank00001.spt", 1, true, 1, r1, 2, NULL, 0);
	struct trace_set ts;
	struct summary s;
	summarize(&ts, &s);
	CHECK_INT(s.nr_loaded, 2);
	CHECK_INT(s.nr_calls, 5);
	const struct region_summary *w = find(&s, &ts, "work"), *m = find(&s, &ts, "main");
	CHECK(w && m);
	CHECK_INT(w->calls, 3);
	CHECK_INT(w->total_ns, 200 + 500 + 300);
	CHECK_INT(w->min_ns, 200);
	CHECK_INT(w->max_ns, 500);
	CHECK_INT(m->exclusive_ns, (1000 - 700) + (400 - 300));
	CHECK_INT(w->rank_cov[0], 700);
	CHECK_INT(w->rank_cov[1], 300);
	CHECK_INT(w->parent_ns, 1000 + 400); /* one main call per rank */
	CHECK_INT(m->parent_ns, 1000 + 400); /* top level: the rank sessions */
	CHECK_INT(summary__session_total(&s), 1400);
	CHECK_INT(summary__wall_ns(&s), 1000);
	/* std of {200, 500, 300}: sqrt(((200-333.3)^2 + ...)/3) */
	CHECK_NEAR(region_summary__std(w), 124.7219128924647, 1e-6);
	CHECK_STR(ts.regions[1].file, "w.c"); /* v2 source kept though rank 1 is v1 */
	summary__release(&s);
	trace_set__release(&ts);
	tb_rmdir(dir);
}

/* Recursion: coverage counts the outermost calls only; total counts all. */
static void t_recursion_coverage(void)
{
	const struct tb_call f[] = {{0, 100, 0}, {10, 60, 0}, {20, 30, 0}};
	const struct tb_region r[] = {{"f", NULL, -1, f, 3}};
	fresh_dir();
	save("r_rank00000.spt", 2, false, 0, r, 1, NULL, 0);
	struct trace_set ts;
	struct summary s;
	summarize(&ts, &s);
	const struct region_summary *x = find(&s, &ts, "f");
	CHECK_INT(x->total_ns, 160);
	CHECK_INT(x->coverage_ns, 100);
	CHECK_INT(x->exclusive_ns, 100);
	summary__release(&s);
	trace_set__release(&ts);
	tb_rmdir(dir);
}

/* Lanes interleave in close order; each enclosing call still counts once,
 * and a session region defines the session. */
static void t_lanes_session(void)
{
	const struct tb_call sess[] = {{0, 1000, 0}}, p[] = {{10, 500, 0}, {20, 600, 1}},
			     c[] = {{30, 40, 0}, {35, 45, 1}, {50, 60, 0}, {55, 65, 1}};
	const struct tb_region r[] = {{"scope_profiler.session", NULL, -1, sess, 1},
				      {"p", NULL, -1, p, 2}, {"c", NULL, -1, c, 4}};
	const struct tb_thread th[] = {{1, "a"}, {2, "b"}};
	fresh_dir();
	save("l_rank00000.spt", 3, false, 0, r, 3, th, 2);
	struct trace_set ts;
	struct summary s;
	summarize(&ts, &s);
	const struct region_summary *cc = find(&s, &ts, "c"), *pp = find(&s, &ts, "p");
	CHECK_INT(cc->calls, 4);
	CHECK_INT(cc->parent_ns, 490 + 580); /* the two p calls, once each */
	CHECK_INT(s.session_ns[0], 1000);
	CHECK_INT(pp->parent_ns, 1000 + 1000); /* p is top level on lane 1: the session */
	summary__release(&s);
	trace_set__release(&ts);
	tb_rmdir(dir);
}

static void t_unsorted_restart(void)
{
	/* Region b is written out of start order: the optimistic merge restarts
	 * with sorting and the totals are still exact. */
	const struct tb_call a[] = {{0, 100, 0}}, b[] = {{50, 60, 0}, {10, 20, 0}, {30, 40, 0}};
	const struct tb_region r[] = {{"a", NULL, -1, a, 1}, {"b", NULL, -1, b, 3}};
	fresh_dir();
	save("u_rank00000.spt", 2, true, 0, r, 2, NULL, 0);
	struct trace_set ts;
	struct summary s;
	summarize(&ts, &s);
	CHECK_INT(find(&s, &ts, "a")->exclusive_ns, 70);
	CHECK_INT(find(&s, &ts, "b")->calls, 3);
	CHECK_INT(find(&s, &ts, "b")->first_start_ns, 10);
	CHECK_INT(s.nr_calls, 4);
	summary__release(&s);
	trace_set__release(&ts);
	tb_rmdir(dir);
}

static void t_ties_fast(void)
{
	/* The child's region sits in the first slot and starts with its parent:
	 * the fast merge, which takes equal starts in slot order, must notice
	 * the tie and settle it by the full key (longer first), not report a
	 * nesting error or make the child the parent. Zero-length child too. */
	const struct tb_call c[] = {{0, 50, 0}, {200, 200, 0}}, p[] = {{0, 100, 0}, {200, 300, 0}};
	const struct tb_call x[] = {{400, 500, 0}}, y[] = {{400, 500, 0}};
	const struct tb_region r[] = {{"c", NULL, -1, c, 2}, {"p", NULL, -1, p, 2},
				      {"x", NULL, -1, x, 1}, {"y", NULL, -1, y, 1}};
	fresh_dir();
	save("t_rank00000.spt", 2, false, 0, r, TB_NR(r), NULL, 0);
	struct trace_set ts;
	struct summary s;
	summarize(&ts, &s);
	const struct region_summary *cc = find(&s, &ts, "c"), *pp = find(&s, &ts, "p");
	CHECK_INT(pp->calls, 2);
	CHECK_INT(pp->exclusive_ns, 200 - 50);
	CHECK_INT(cc->calls, 2);
	CHECK_INT(cc->exclusive_ns, 50);
	CHECK_INT(cc->parent_ns, 100 + 100);
	/* identical intervals nest in region order: x (first interned) holds y */
	CHECK_INT(find(&s, &ts, "x")->exclusive_ns, 0);
	CHECK_INT(find(&s, &ts, "y")->exclusive_ns, 100);
	CHECK_INT(find(&s, &ts, "y")->parent_ns, 100);
	CHECK_INT(s.nr_calls, 6);
	summary__release(&s);
	trace_set__release(&ts);
	tb_rmdir(dir);
}

/* Random well-nested traces: a few lanes, a clock of 1 or 1000 ns (ties
 * between parents and children, zero-length calls), 2..40 regions (the
 * scan below 17, the heap above). */
struct rnd_trace {
	struct tb_call *calls[40];
	size_t n[40], cap[40];
	int nreg;
	uint64_t x;
	int64_t tick;
};

static uint64_t rnd(struct rnd_trace *t, uint64_t m)
{
	t->x ^= t->x << 13;
	t->x ^= t->x >> 7;
	t->x ^= t->x << 17;
	return t->x % m;
}

static void rnd_nest(struct rnd_trace *t, int64_t s, int64_t e, int32_t lane, int depth)
{
	for (int64_t at = s; at < e && rnd(t, 5) != 0;) {
		int64_t a = at + (int64_t)rnd(t, 3) * t->tick, b = a + (int64_t)rnd(t, 40) * t->tick;
		if (a > e)
			break;
		b = b > e || rnd(t, 10) == 0 ? e : b;
		int r = (int)rnd(t, (uint64_t)t->nreg);
		if (t->n[r] == t->cap[r]) {
			t->cap[r] = t->cap[r] * 2 + 16;
			t->calls[r] = realloc(t->calls[r], t->cap[r] * sizeof(*t->calls[r]));
		}
		t->calls[r][t->n[r]++] = (struct tb_call){a, b, lane};
		if (depth < 6 && b > a)
			rnd_nest(t, a, b, lane, depth + 1);
		at = b + (rnd(t, 3) == 0 ? t->tick : 0);
	}
}

static int by_start(const void *a, const void *b)
{
	const struct tb_call *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Per region: calls, total, exclusive, min, max of the materialised calls. */
static void reference(const struct trace_set *ts, const struct calls *c, int64_t (*ref)[5])
{
	for (uint32_t r = 0; r < ts->nr_regions; r++)
		ref[r][0] = ref[r][1] = ref[r][2] = 0, ref[r][3] = INT64_MAX, ref[r][4] = INT64_MIN;
	for (size_t i = 0; i < c->n; i++) {
		int64_t *v = ref[c->region[i]], d = c->end[i] - c->start[i];
		v[0]++;
		v[1] += d;
		v[2] += c->excl[i];
		v[3] = d < v[3] ? d : v[3];
		v[4] = d > v[4] ? d : v[4];
	}
}

static void t_fast_matches_generic(void)
{
	/* inspect's merge (statistics only, ties in slot order until one shows)
	 * against the materialised calls of the generic merge, same trace. */
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct rnd_trace t = {.x = seed * 0x9e3779b97f4a7c15ULL, .tick = 1};
		t.nreg = 2 + (int)rnd(&t, 39);
		t.tick = rnd(&t, 2) ? 1 : 1000;
		int32_t lanes = 1 + (int32_t)rnd(&t, 3);
		for (int32_t l = 0; l < lanes; l++)
			for (int64_t at = 0, it = 0; it < 60; it++, at += 500 * t.tick)
				rnd_nest(&t, at, at + (1 + (int64_t)rnd(&t, 400)) * t.tick, l, 0);
		struct tb_region r[40];
		char names[40][8];
		for (int i = 0; i < t.nreg; i++) {
			qsort(t.calls[i], t.n[i], sizeof(*t.calls[i]), by_start);
			snprintf(names[i], sizeof(names[i]), "r%d", i);
			r[i] = (struct tb_region){names[i], NULL, -1, t.calls[i], t.n[i]};
		}
		const struct tb_thread th[] = {{1, "a"}, {2, "b"}, {3, "c"}};
		fresh_dir();
		save("f_rank00000.spt", lanes > 1 ? 3 : 2, seed % 4 == 0, 0, r, (size_t)t.nreg, th,
		     (size_t)lanes);
		struct trace_set ts;
		struct summary s;
		summarize(&ts, &s);
		struct rank_data rd;
		struct calls c;
		struct path_tree pt;
		struct err e = {0};
		path_tree__init(&pt);
		CHECK_INT(trace_set__load(&ts, 0, &rd, &e), 0);
		CHECK_INT(calls__build(&c, &rd, &ts, &pt, &e), 0);
		int64_t ref[40][5];
		reference(&ts, &c, ref);
		for (uint32_t i = 0; i < ts.nr_regions; i++) {
			const struct region_summary *x = &s.r[i];
			CHECK_INT(x->calls, ref[i][0]);
			CHECK_INT(x->total_ns, ref[i][1]);
			CHECK_INT(x->exclusive_ns, ref[i][2]);
			if (x->calls) {
				CHECK_INT(x->min_ns, ref[i][3]);
				CHECK_INT(x->max_ns, ref[i][4]);
			}
		}
		CHECK_INT(s.nr_calls, (int64_t)c.n);
		calls__release(&c);
		path_tree__release(&pt);
		rank_data__release(&rd);
		summary__release(&s);
		trace_set__release(&ts);
		tb_rmdir(dir);
		for (int i = 0; i < t.nreg; i++)
			free(t.calls[i]);
	}
}

static const struct test_case cases[] = {
	{"merge", "ranks in different versions and byte orders merge by name", t_merge},
	{"recursion", "coverage counts outermost calls, total counts all", t_recursion_coverage},
	{"lanes_session", "interleaved lanes count parents once; session region", t_lanes_session},
	{"unsorted", "an unsorted region restarts the merge with sorting", t_unsorted_restart},
	{"ties_fast", "equal starts in the fast merge: longer first, then region order",
	 t_ties_fast},
	{"fast_matches_generic", "40 random nested traces: inspect's merge = the materialised one",
	 t_fast_matches_generic},
};
TEST_MAIN(cases)
