// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include "common/err.h"
#include "regions/callstack.h"
#include "regions/trace_bytes.h"
#include "regions/trace_set.h"

static char dir[] = "/tmp/nunatak-callstack-XXXXXX";

static void cleanup(void)
{
	tb_rmdir(dir);
}

static const char *write_trace(const char *name, int version, bool big, int32_t rank,
			       const struct tb_region *r, size_t nr, const struct tb_thread *th,
			       size_t nth)
{
	static char path[256];
	static bool made; /* the random suffix may itself end in 'X' */
	struct tb t = {.big = big};
	if (!made) {
		CHECK(mkdtemp(dir) != NULL);
		made = true;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tb_spt(&t, version, rank, r, nr, th, nth);
	CHECK_INT(tb_save(&t, path), 0);
	free(t.b);
	return path;
}

struct built {
	struct trace_set ts;
	struct rank_data rd;
	struct calls c;
	struct path_tree pt;
	struct err e;
	int rc;
};

static void build(struct built *b, const char *path)
{
	memset(b, 0, sizeof(*b));
	const char *in[] = {path};
	CHECK_INT(trace_set__open(&b->ts, in, 1, &b->e), 0);
	CHECK_INT(trace_set__load(&b->ts, 0, &b->rd, &b->e), 0);
	path_tree__init(&b->pt);
	b->rc = calls__build(&b->c, &b->rd, &b->ts, &b->pt, &b->e);
}

static const char *name_of(const struct built *b, size_t i)
{
	return b->ts.regions[b->c.region[i]].name;
}

static void t_nesting(void)
{
	const struct tb_call m[] = {{0, 100, 0}}, a[] = {{10, 40, 0}, {50, 90, 0}},
			     bb[] = {{20, 30, 0}}, s[] = {{90, 95, 0}};
	const struct tb_region r[] = {{"main", "m.c", 1, m, 1}, {"a", NULL, -1, a, 2},
				      {"b", NULL, -1, bb, 1}, {"sib", NULL, -1, s, 1}};
	struct built b;
	build(&b, write_trace("n_rank00000.spt", 2, false, 0, r, TB_NR(r), NULL, 0));
	CHECK_INT(b.rc, 0);
	CHECK_INT(b.c.n, 5);
	/* start order: main, a, b, a, sib (sib starts where a ends: a sibling) */
	CHECK_STR(name_of(&b, 0), "main");
	CHECK_STR(name_of(&b, 2), "b");
	CHECK_STR(name_of(&b, 4), "sib");
	CHECK_INT(b.c.parent[0], -1);
	CHECK_INT(b.c.parent[1], 0);
	CHECK_INT(b.c.parent[2], 1);
	CHECK_INT(b.c.parent[3], 0);
	CHECK_INT(b.c.parent[4], 0);
	CHECK_INT(b.c.depth[2], 2);
	CHECK_INT(b.c.excl[0], 100 - 30 - 40 - 5);
	CHECK_INT(b.c.excl[1], 20);
	CHECK_INT(b.c.excl[3], 40);
	CHECK_INT(b.c.call_index[3], 1);
	CHECK(b.c.node[1] == b.c.node[3]); /* same call path */
	char *p = path_tree__path(&b.pt, &b.ts, (int32_t)b.c.node[2]);
	CHECK_STR(p, "main > a > b");
	free(p);
	cleanup();
}

static void t_nesting_error(void)
{
	const struct tb_call a[] = {{0, 100, 0}}, bb[] = {{50, 150, 0}};
	const struct tb_region r[] = {{"a", NULL, -1, a, 1}, {"b", NULL, -1, bb, 1}};
	struct built b;
	const char *path = write_trace("o_rank00002.spt", 1, false, 2, r, TB_NR(r), NULL, 0);
	build(&b, path);
	CHECK(b.rc < 0);
	CHECK_STR(b.e.code, "regions.nesting");
	char want[512];
	snprintf(want, sizeof(want),
		 "%s: rank 2 lane 0: regions do not nest: 'b' [50, 150] ns starts inside 'a' "
		 "[0, 100] ns and ends after it (a mismatched begin/end, or threads recorded "
		 "without lanes)",
		 path);
	want[255] = '\0'; /* struct err keeps 255 characters */
	CHECK_STR(b.e.msg, want);
	cleanup();
}

static void t_recursion(void)
{
	const struct tb_call f[] = {{0, 100, 0}, {10, 80, 0}, {20, 50, 0}}, l[] = {{30, 40, 0}};
	const struct tb_region r[] = {{"fib", NULL, -1, f, 3}, {"leaf", NULL, -1, l, 1}};
	struct built b;
	build(&b, write_trace("r_rank00000.spt", 1, true, 0, r, TB_NR(r), NULL, 0));
	CHECK_INT(b.rc, 0);
	CHECK_INT(b.c.depth[3], 3);
	CHECK_INT(b.c.excl[0], 30);
	CHECK_INT(b.c.excl[2], 20);
	CHECK_INT(b.c.excl[3], 10);
	CHECK_INT(b.pt.n, 4);
	char *p = path_tree__path(&b.pt, &b.ts, (int32_t)b.c.node[3]);
	CHECK_STR(p, "fib > fib > fib > leaf");
	free(p);
	cleanup();
}

static void t_ties_and_unsorted(void)
{
	/* Same start: the longer call is the parent; identical intervals nest in
	 * region order. Region "c" is written out of order. */
	const struct tb_call a[] = {{0, 100, 0}}, bb[] = {{0, 100, 0}},
			     c[] = {{60, 70, 0}, {0, 50, 0}};
	const struct tb_region r[] = {{"a", NULL, -1, a, 1}, {"b", NULL, -1, bb, 1},
				      {"c", NULL, -1, c, 2}};
	struct built b;
	build(&b, write_trace("t_rank00000.spt", 2, false, 0, r, TB_NR(r), NULL, 0));
	CHECK_INT(b.rc, 0);
	CHECK_STR(name_of(&b, 0), "a");
	CHECK_STR(name_of(&b, 1), "b");
	CHECK_STR(name_of(&b, 2), "c");
	CHECK_INT(b.c.parent[1], 0);
	CHECK_INT(b.c.parent[2], 1);
	CHECK_INT(b.c.call_index[2], 1);
	CHECK_INT(b.c.start[3], 60);
	CHECK_INT(b.c.excl[1], 100 - 50 - 10);
	CHECK_INT(b.c.excl[0], 0);
	cleanup();
}

static void t_lanes(void)
{
	/* Lanes overlap freely; within a lane calls nest. */
	const struct tb_call w[] = {{0, 50, 0}, {10, 80, 1}}, in[] = {{20, 30, 0}, {40, 60, 1}};
	const struct tb_region r[] = {{"work", NULL, -1, w, 2}, {"inner", NULL, -1, in, 2}};
	const struct tb_thread th[] = {{11, "main"}, {12, "worker"}};
	struct built b;
	build(&b, write_trace("l_rank00000.spt", 3, true, 0, r, TB_NR(r), th, 2));
	CHECK_INT(b.rc, 0);
	CHECK_INT(b.c.nr_lanes, 2);
	CHECK_INT(b.c.parent[2], 0); /* inner@20 in work@0 (lane 0) */
	CHECK_INT(b.c.parent[3], 1); /* inner@40 in work@10 (lane 1) */
	CHECK_INT(b.c.lane[3], 1);
	CHECK_STR(b.rd.lanes[1].name, "worker");
	CHECK_INT(b.rd.lanes[1].tid, 12);

	/* The same calls without lanes (v2) overlap: refused. */
	build(&b, write_trace("l2_rank00000.spt", 2, false, 0, r, TB_NR(r), NULL, 0));
	CHECK(b.rc < 0);
	CHECK_STR(b.e.code, "regions.nesting");

	/* A lane outside the thread table is a corrupt file, with its offset. */
	const struct tb_call bad[] = {{0, 5, 9}};
	const struct tb_region rb[] = {{"x", NULL, -1, bad, 1}};
	build(&b, write_trace("l3_rank00000.spt", 3, false, 0, rb, 1, th, 2));
	CHECK(b.rc < 0);
	CHECK_STR(b.e.code, "trace.corrupt");
	CHECK(strstr(b.e.msg, "byte 61: expected a lane 0..1 (thread table), found 9") != NULL);
	cleanup();
}

static void t_negative_duration(void)
{
	const struct tb_call a[] = {{100, 50, 0}};
	const struct tb_region r[] = {{"a", NULL, -1, a, 1}};
	struct built b;
	build(&b, write_trace("d_rank00000.spt", 1, false, 0, r, 1, NULL, 0));
	CHECK(b.rc < 0);
	CHECK_STR(b.e.code, "regions.negative_duration");
	CHECK(strstr(b.e.msg, "byte 37: call 0 of region 'a' ends (50 ns) before it starts "
			      "(100 ns)") != NULL);
	cleanup();
}

static void t_duplicate_rank(void)
{
	const struct tb_call a[] = {{0, 5, 0}};
	const struct tb_region r[] = {{"a", NULL, -1, a, 1}};
	char p1[300], p2[300];
	snprintf(p1, sizeof(p1), "%s", write_trace("x_rank00001.spt", 2, false, 1, r, 1, NULL, 0));
	snprintf(p2, sizeof(p2), "%s", write_trace("y_rank00001.spt", 1, true, 1, r, 1, NULL, 0));
	const char *in[] = {p2, p1};
	struct trace_set ts;
	struct err e = {0};
	CHECK(trace_set__open(&ts, in, 2, &e) < 0);
	CHECK_STR(e.code, "trace.duplicate_rank");
	char want[700];
	snprintf(want, sizeof(want), "%s and %s both claim rank 1: pass the traces of one run only",
		 p1, p2);
	CHECK_STR(e.msg, want);
	cleanup();
}

static const struct test_case cases[] = {
	{"nesting", "containment gives parents, depths, paths and exact exclusive ns", t_nesting},
	{"nesting_error", "a partial overlap names both calls", t_nesting_error},
	{"recursion", "recursive calls nest with distinct call paths", t_recursion},
	{"ties", "equal starts, identical intervals and unsorted regions", t_ties_and_unsorted},
	{"lanes", "v3 lanes reconstruct separately; bad lanes are corrupt", t_lanes},
	{"negative", "a call ending before it starts is refused", t_negative_duration},
	{"duplicate_rank", "two files with one rank are refused, naming both", t_duplicate_rank},
};
TEST_MAIN(cases)
