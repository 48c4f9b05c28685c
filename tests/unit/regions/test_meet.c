// SPDX-License-Identifier: BSD-3-Clause
/* Samples meet regions: the per-lane timeline (regions/meet.h) built from
 * hand-made traces, and the perf.data clock check. */
#include "harness.h"

#include "common/alloc.h"
#include "common/err.h"
#include "regions/callstack.h"
#include "regions/meet.h"
#include "regions/trace_bytes.h"
#include "regions/trace_set.h"

static char dir[] = "/tmp/nunatak-meet-XXXXXX";

struct built {
	struct trace_set ts;
	struct rank_data rd;
	struct calls c;
	struct path_tree pt;
	struct region_timeline tl;
	struct err e;
};

static void build(struct built *b, const char *name, int version, const struct tb_region *r,
		  size_t nr, const struct tb_thread *th, size_t nth)
{
	char path[256];
	static bool made; /* the random suffix may itself end in 'X' */
	struct tb t = {0};
	if (!made) {
		CHECK(mkdtemp(dir) != NULL);
		made = true;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tb_spt(&t, version, 0, r, nr, th, nth);
	CHECK_INT(tb_save(&t, path), 0);
	free(t.b);
	memset(b, 0, sizeof(*b));
	const char *in[] = {path};
	CHECK_INT(trace_set__open(&b->ts, in, 1, &b->e), 0);
	CHECK_INT(trace_set__load(&b->ts, 0, &b->rd, &b->e), 0);
	path_tree__init(&b->pt);
	CHECK_INT(calls__build(&b->c, &b->rd, &b->ts, &b->pt, &b->e), 0);
	CHECK_INT(region_timeline__build(&b->tl, &b->c, &b->rd, &b->e), 0);
}

static void release(struct built *b)
{
	region_timeline__release(&b->tl);
	calls__release(&b->c);
	path_tree__release(&b->pt);
	rank_data__release(&b->rd);
	trace_set__release(&b->ts);
	tb_rmdir(dir);
}

/* The call path open on thread tid of process pid at t, or "-" outside. */
static char got[256];
static const char *at(const struct built *b, int64_t pid, int64_t tid, int64_t t)
{
	int32_t lane = region_timeline__lane(&b->tl, pid, tid);
	int32_t node = region_timeline__at(&b->tl, lane, t);
	if (node < 0)
		return lane < 0 ? "no lane" : "-";
	char *p = path_tree__path(&b->pt, &b->ts, node);
	snprintf(got, sizeof(got), "%s", p ? p : "?");
	xfree(p);
	return got;
}

static void t_nesting_v2(void)
{
	const struct tb_call m[] = {{0, 100, 0}}, a[] = {{10, 40, 0}, {50, 90, 0}},
			     bb[] = {{20, 30, 0}}, s[] = {{90, 95, 0}};
	const struct tb_region r[] = {{"main", "m.c", 1, m, 1}, {"a", NULL, -1, a, 2},
				      {"b", NULL, -1, bb, 1}, {"sib", NULL, -1, s, 1}};
	struct built b;
	build(&b, "v2_rank00000.spt", 2, r, TB_NR(r), NULL, 0);
	CHECK_INT(b.tl.nr_lanes, 1);
	CHECK_INT(b.tl.lanes[0].tid, -1);
	/* v2: one lane, the process's main thread: tid == pid */
	CHECK_STR(at(&b, 7, 7, -5), "-");
	CHECK_STR(at(&b, 7, 7, 0), "main");
	CHECK_STR(at(&b, 7, 7, 5), "main");
	CHECK_STR(at(&b, 7, 7, 10), "main > a");
	CHECK_STR(at(&b, 7, 7, 25), "main > a > b");
	CHECK_STR(at(&b, 7, 7, 30), "main > a"); /* [start, end): b has ended */
	CHECK_STR(at(&b, 7, 7, 45), "main");
	CHECK_STR(at(&b, 7, 7, 89), "main > a");
	CHECK_STR(at(&b, 7, 7, 90), "main > sib"); /* a ends where sib starts */
	CHECK_STR(at(&b, 7, 7, 95), "main");
	CHECK_STR(at(&b, 7, 7, 100), "-");
	CHECK_STR(at(&b, 7, 7, 1000), "-");
	CHECK_STR(at(&b, 7, 8, 25), "no lane"); /* another thread of the process */
	release(&b);
}

static void t_threads_v3(void)
{
	/* Two threads overlapping in time; lane = index in the thread table. */
	const struct tb_call x[] = {{0, 50, 0}}, y[] = {{10, 60, 1}}, z[] = {{20, 30, 1}},
			     w[] = {{20, 40, 0}, {40, 45, 0}};
	const struct tb_region r[] = {{"x", NULL, -1, x, 1}, {"y", NULL, -1, y, 1},
				      {"z", NULL, -1, z, 1}, {"w", NULL, -1, w, 2}};
	const struct tb_thread th[] = {{100, "main"}, {200, "worker"}};
	struct built b;
	build(&b, "v3_rank00000.spt", 3, r, TB_NR(r), th, TB_NR(th));
	CHECK_INT(b.tl.nr_lanes, 2);
	CHECK_STR(at(&b, 100, 100, 25), "x > w");
	CHECK_STR(at(&b, 100, 200, 25), "y > z");
	CHECK_STR(at(&b, 100, 200, 30), "y");
	CHECK_STR(at(&b, 100, 100, 40), "x > w"); /* back-to-back calls of one region */
	CHECK_STR(at(&b, 100, 100, 47), "x");
	CHECK_STR(at(&b, 100, 100, 55), "-");      /* x closed; y is another thread's */
	CHECK_STR(at(&b, 100, 200, 55), "y");
	CHECK_STR(at(&b, 100, 200, 5), "-");
	CHECK_STR(at(&b, 300, 300, 25), "no lane"); /* v3 names tids: pid == tid is no match */
	release(&b);
}

static const struct test_case cases[] = {
	{"nesting_v2", "v2: innermost open call at a time, main thread only", t_nesting_v2},
	{"threads_v3", "v3: each thread its own lane, matched by tid", t_threads_v3},
};
TEST_MAIN(cases)
