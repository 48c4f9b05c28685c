// SPDX-License-Identifier: BSD-3-Clause
/* The caching executor: whole calls and per-line calls answered again from
 * the cache, only the missing items run, a changed file or a failure never
 * served stale, a damaged cache ignored. A stand-in tool logs each stdin it
 * gets, so the test sees exactly what ran. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "exec/exec.h"
#include "harness.h"
#define TMPDIR_TAG "exec-cache"
#include "tmpdir.h"

/* ans:<item> per stdin line ("two" answers two lines: a broken tool); each
 * call appends "call" and its stdin to <dir>/log. Exit 3 on item "fail". */
static const char TOOL[] = "#!/bin/sh\n"
			   "d=$(dirname \"$0\")\n"
			   "echo call >> \"$d/log\"\n"
			   "st=0\n"
			   "while IFS= read -r l; do\n"
			   "  echo \"$l\" >> \"$d/log\"\n"
			   "  [ \"$l\" = fail ] && st=3\n"
			   "  [ \"$l\" = two ] && echo extra\n"
			   "  echo \"ans:$l $1\"\n"
			   "done\n"
			   "exit $st\n";

struct fixture {
	char *dir, *tool, *obj, *objarg, *cache, *log;
	struct executor *x;
};

static void fixture__init(struct fixture *f)
{
	struct err e = {0};
	f->dir = tmpdir();
	f->tool = fs_join(f->dir, "tool.sh");
	f->obj = fs_join(f->dir, "module.so");
	f->objarg = xasprintf("--obj=%s", f->obj);
	f->cache = fs_join(f->dir, "cache");
	f->log = fs_join(f->dir, "log");
	CHECK_INT(fs_write_atomic(f->tool, TOOL, strlen(TOOL), &e), 0);
	CHECK_INT(chmod(f->tool, 0755), 0);
	CHECK_INT(fs_write_atomic(f->obj, "v1", 2, &e), 0);
	f->x = executor__new_caching_take(executor__new_real(), f->cache);
	CHECK(f->x != NULL);
}

static void fixture__release(struct fixture *f)
{
	executor__free(f->x);
	xfree(f->dir);
	xfree(f->tool);
	xfree(f->obj);
	xfree(f->objarg);
	xfree(f->cache);
	xfree(f->log);
}

/* The log's content since the last call (then emptied). */
static char *take_log(struct fixture *f)
{
	char *s = NULL;
	if (fs_read_file(f->log, 1 << 20, &s, NULL) != 0)
		s = xstrdup("");
	unlink(f->log);
	return s;
}

static struct exec_result call(struct fixture *f, const char *in, bool per_line,
			       const char *salt)
{
	const char *argv[] = {f->tool, f->objarg, NULL};
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .stdin_data = in, .stdin_len = strlen(in), .cacheable = true,
				  .cache_per_line = per_line, .cache_salt = salt};
	struct exec_result r;
	struct err e = {0};
	CHECK_INT(executor__run(f->x, &rq, &r, &e), 0);
	return r;
}

static void expect(struct fixture *f, const char *in, bool per_line, const char *out,
		   const char *log)
{
	struct exec_result r = call(f, in, per_line, NULL);
	CHECK_INT(r.exit_code, 0);
	CHECK_STR(r.out, out);
	char *l = take_log(f);
	CHECK_STR(l, log);
	xfree(l);
	exec_result__release(&r);
}

static void t_per_line(void)
{
	struct fixture f;
	fixture__init(&f);
	char *o = xasprintf("ans:0x1 %1$s\nans:0x2 %1$s\n", f.objarg);
	expect(&f, "0x1\n0x2\n", true, o, "call\n0x1\n0x2\n");
	xfree(o);
	/* 0x2 known: only 0x3 runs, the answer keeps the items' order */
	o = xasprintf("ans:0x3 %1$s\nans:0x2 %1$s\n", f.objarg);
	expect(&f, "0x3\n0x2\n", true, o, "call\n0x3\n");
	xfree(o);
	/* every item known: nothing runs */
	o = xasprintf("ans:0x2 %1$s\nans:0x1 %1$s\nans:0x3 %1$s\n", f.objarg);
	expect(&f, "0x2\n0x1\n0x3\n", true, o, "");
	xfree(o);
	/* the module rebuilt (new size and mtime): everything runs again */
	struct err e = {0};
	CHECK_INT(fs_write_atomic(f.obj, "v2 longer", 9, &e), 0);
	o = xasprintf("ans:0x1 %1$s\n", f.objarg);
	expect(&f, "0x1\n", true, o, "call\n0x1\n");
	xfree(o);
	fixture__release(&f);
	done();
}

static void t_broken_tool(void)
{
	struct fixture f;
	fixture__init(&f);
	/* two lines for one item: the per-line split cannot hold, the whole
	 * call runs and its own answer is returned untouched */
	char *o = xasprintf("extra\nans:two %1$s\nans:0x9 %1$s\n", f.objarg);
	expect(&f, "two\n0x9\n", true, o, "call\ntwo\n0x9\ncall\ntwo\n0x9\n");
	expect(&f, "two\n0x9\n", true, o, "call\ntwo\n0x9\ncall\ntwo\n0x9\n");
	xfree(o);
	fixture__release(&f);
	done();
}

static void t_whole_and_failures(void)
{
	struct fixture f;
	fixture__init(&f);
	char *o = xasprintf("ans:v %s\n", f.objarg);
	expect(&f, "v\n", false, o, "call\nv\n");
	expect(&f, "v\n", false, o, "");
	xfree(o);
	/* a failure is not kept... */
	for (int i = 0; i < 2; i++) {
		struct exec_result r = call(&f, "fail\n", false, NULL);
		CHECK_INT(r.exit_code, 3);
		char *l = take_log(&f);
		CHECK_STR(l, "call\nfail\n");
		xfree(l);
		exec_result__release(&r);
	}
	/* ...unless the caller salted it with the state it depends on */
	for (int i = 0; i < 2; i++) {
		struct exec_result r = call(&f, "fail\n", false, "boot 1");
		CHECK_INT(r.exit_code, 3);
		char *l = take_log(&f);
		CHECK_STR(l, i == 0 ? "call\nfail\n" : "");
		xfree(l);
		exec_result__release(&r);
	}
	fixture__release(&f);
	done();
}

/* Every cache file truncated to garbage: misses, never wrong answers. */
static void t_damaged(void)
{
	struct fixture f;
	fixture__init(&f);
	char *o = xasprintf("ans:0x1 %1$s\n", f.objarg);
	expect(&f, "0x1\n", true, o, "call\n0x1\n");
	char *w = xasprintf("ans:w %s\n", f.objarg);
	expect(&f, "w\n", false, w, "call\nw\n");
	char *cmd = xasprintf("find %s -type f -exec sh -c 'printf \"junk\\t\" > \"$1\"' _ {} \\;",
			      f.cache);
	CHECK_INT(system(cmd), 0);
	expect(&f, "0x1\n", true, o, "call\n0x1\n");
	expect(&f, "w\n", false, w, "call\nw\n");
	xfree(cmd);
	xfree(o);
	xfree(w);
	fixture__release(&f);
	done();
}

/* Entries edited in place (same lengths, key intact: what a forger with
 * write access does), or handed to another user, are misses: the answer
 * is the tool's, never the forged one (issue 28: FORGED_BY_TESTER). */
static void t_forged(void)
{
	struct fixture f;
	fixture__init(&f);
	char *o = xasprintf("ans:0x1 %1$s\n", f.objarg);
	expect(&f, "0x1\n", true, o, "call\n0x1\n");
	char *w = xasprintf("ans:w %s\n", f.objarg);
	expect(&f, "w\n", false, w, "call\nw\n");
	expect(&f, "w\n", false, w, ""); /* the control: a hit runs nothing */
	char *cmd = xasprintf("find %s -type f ! -name seal.key -exec sed -i 's/ans:/BAD:/' {} +",
			      f.cache);
	CHECK_INT(system(cmd), 0);
	expect(&f, "0x1\n", true, o, "call\n0x1\n");
	expect(&f, "w\n", false, w, "call\nw\n");
	expect(&f, "w\n", false, w, ""); /* rewritten, sealed again */
	if (geteuid() == 0) { /* another user's entry (uid 65534: nobody) */
		xfree(cmd);
		cmd = xasprintf("find %s -type f ! -name seal.key -exec chown 65534 {} +", f.cache);
		CHECK_INT(system(cmd), 0);
		expect(&f, "w\n", false, w, "call\nw\n");
	}
	xfree(cmd);
	xfree(o);
	xfree(w);
	fixture__release(&f);
	done();
}

/* A lines file of many records (tens of kB: its seals checked from one
 * copied HMAC state, with the CPU's SHA instructions where it has them):
 * every record nunatak appended is a hit, the one edited in the middle of
 * the file a miss, and the answer keeps the items' order. */
static void t_many_records(void)
{
	struct fixture f;
	fixture__init(&f);
	enum { N = 300, FORGED = 150 };
	size_t cap = 16 * N, ol = 0, il = 0;
	char *in = xmalloc(cap), *out = xmalloc(cap * 8);
	CHECK(in && out);
	for (int i = 0; i < N; i++) {
		il += (size_t)snprintf(in + il, cap - il, "0x%x\n", 0x1000 + i);
		ol += (size_t)snprintf(out + ol, cap * 8 - ol, "ans:0x%x %s\n", 0x1000 + i,
				       f.objarg);
	}
	struct exec_result r = call(&f, in, true, NULL);
	CHECK_STR(r.out, out);
	exec_result__release(&r);
	char *l = take_log(&f);
	CHECK(strncmp(l, "call\n0x1000\n", 12) == 0);
	xfree(l);
	expect(&f, in, true, out, ""); /* every record's seal holds */
	char *cmd = xasprintf("find '%s/lines' -type f -exec sed -i 's/ans:0x%x /BAD:0x%x /' {} +",
			      f.cache, 0x1000 + FORGED, 0x1000 + FORGED);
	CHECK_INT(system(cmd), 0);
	char *forged = xasprintf("call\n0x%x\n", 0x1000 + FORGED);
	expect(&f, in, true, out, forged);
	expect(&f, in, true, out, ""); /* appended again, sealed */
	xfree(forged);
	xfree(cmd);
	xfree(in);
	xfree(out);
	fixture__release(&f);
	done();
}

/* A batch mixes a hit, a partial per-line miss and an uncacheable call. */
static void t_batch(void)
{
	struct fixture f;
	fixture__init(&f);
	char *o = xasprintf("ans:0x1 %1$s\n", f.objarg);
	expect(&f, "0x1\n", true, o, "call\n0x1\n");
	xfree(o);
	const char *argv[] = {f.tool, f.objarg, NULL};
	struct exec_request rq[3] = {
		{.argv = argv, .capture_stdout = true, .stdin_data = "0x1\n", .stdin_len = 4,
		 .cacheable = true, .cache_per_line = true},
		{.argv = argv, .capture_stdout = true, .stdin_data = "0x1\n0x5\n", .stdin_len = 8,
		 .cacheable = true, .cache_per_line = true},
		{.argv = argv, .capture_stdout = true, .stdin_data = "u\n", .stdin_len = 2},
	};
	struct exec_result res[3];
	struct err e = {0};
	CHECK_INT(executor__run_batch(f.x, rq, 3, res, &e), 0);
	char *a = xasprintf("ans:0x1 %s\n", f.objarg);
	char *b = xasprintf("ans:0x1 %1$s\nans:0x5 %1$s\n", f.objarg);
	char *c = xasprintf("ans:u %s\n", f.objarg);
	CHECK_STR(res[0].out, a);
	CHECK_STR(res[1].out, b);
	CHECK_STR(res[2].out, c);
	char *l = take_log(&f);
	CHECK(strstr(l, "0x5\n") && strstr(l, "u\n") && !strstr(l, "0x1\n"));
	xfree(l);
	for (int i = 0; i < 3; i++)
		exec_result__release(&res[i]);
	xfree(a);
	xfree(b);
	xfree(c);
	fixture__release(&f);
	done();
}

static const struct test_case cases[] = {
	{"per_line", "per-line calls run only the items not seen on the same file", t_per_line},
	{"broken_tool", "an answer that is not one line per item runs whole, uncached",
	 t_broken_tool},
	{"whole_and_failures", "whole calls cached; failures only when salted",
	 t_whole_and_failures},
	{"damaged", "a damaged cache is a miss, never a wrong answer", t_damaged},
	{"batch", "a batch answers hits, runs misses, keeps slots", t_batch},
	{"forged", "an entry edited or owned by another user is a miss, never its answer",
	 t_forged},
	{"many_records", "a file of many records: each appended one a hit, an edited one a miss",
	 t_many_records},
};

TEST_MAIN(cases)
