// SPDX-License-Identifier: BSD-3-Clause
// The real executor's merging of per-line calls (exec.h merge_slot,
// exec/merge.c): calls equal but for one argument run as one process and
// each gets exactly its own lines; a failed merged process is run again
// call by call so the fault stays with its call; a timeout is every member's.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"

/* A per-line tool: `--obj=M` then "ADDR" lines, or `"M" ADDR` lines
 * without it; answers "M ADDR" per line, logs each start to $1; a module
 * named crash* exits 3, hang* becomes a sleep the timeout ends. */
static const char TOOL[] =
	"echo run >> \"$1\"\n"
	"if [ -n \"$2\" ]; then m=${2#--obj=}; while read a; do\n"
	"  case $m in crash*) exit 3;; hang*) exec sleep 60;; esac; echo \"$m $a\"; done\n"
	"else while read q a; do m=${q#\\\"}; m=${m%\\\"}\n"
	"  case $m in crash*) exit 3;; hang*) exec sleep 60;; esac; echo \"$m $a\"; done; fi\n";

struct fx {
	char dir[64], *log;
	const char *argv[8][7];
	char *obj[8], *prefix[8];
	struct exec_request rq[8];
	struct exec_result res[8];
};

static void fx_init(struct fx *f, const char *const *mods, const char *const *in, size_t n)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/nunatak-merge-XXXXXX");
	CHECK(mkdtemp(f->dir) != NULL);
	f->log = xasprintf("%s/log", f->dir);
	for (size_t i = 0; i < n; i++) {
		f->obj[i] = xasprintf("--obj=%s", mods[i]);
		f->prefix[i] = xasprintf("\"%s\" ", mods[i]);
		const char *a[] = {"sh", "-c", TOOL, "tool", f->log, f->obj[i], NULL};
		memcpy(f->argv[i], a, sizeof(a));
		f->rq[i] = (struct exec_request){.argv = f->argv[i], .capture_stdout = true,
						 .capture_stderr = true, .stdin_data = in[i],
						 .stdin_len = strlen(in[i]), .cache_per_line = true,
						 .merge_slot = 5, .merge_prefix = f->prefix[i],
						 .timeout_s = 120};
	}
}

static int runs(const struct fx *f)
{
	FILE *fp = fopen(f->log, "r");
	int n = 0, ch;
	while (fp && (ch = fgetc(fp)) != EOF)
		n += ch == '\n';
	if (fp)
		fclose(fp);
	return n;
}

static void fx_release(struct fx *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		exec_result__release(&f->res[i]);
		xfree(f->obj[i]);
		xfree(f->prefix[i]);
	}
	unlink(f->log);
	rmdir(f->dir);
	xfree(f->log);
}

static void t_merged(void)
{
	const char *mods[] = {"/m/a", "/m/b", "/m/c", "/m/d"};
	const char *in[] = {"0x1\n0x2\n", "0x3\n", "0x4\n0x5\n0x6\n", ""};
	struct fx f;
	fx_init(&f, mods, in, 4);
	/* a call that may not merge, between them, keeps its own process */
	const char *cat[] = {"cat", NULL};
	f.rq[3] = (struct exec_request){.argv = cat, .capture_stdout = true,
					.capture_stderr = true, .stdin_data = "raw\n",
					.stdin_len = 4};
	struct executor *x = executor__new_real();
	struct err e = {0};
	CHECK_INT(executor__run_batch(x, f.rq, 4, f.res, &e), 0);
	CHECK_STR(f.res[0].out, "/m/a 0x1\n/m/a 0x2\n");
	CHECK_STR(f.res[1].out, "/m/b 0x3\n");
	CHECK_STR(f.res[2].out, "/m/c 0x4\n/m/c 0x5\n/m/c 0x6\n");
	CHECK_STR(f.res[3].out, "raw\n");
	for (int i = 0; i < 4; i++)
		CHECK(f.res[i].exit_code == 0 && !f.res[i].timed_out);
	CHECK_INT(runs(&f), 1); /* one tool process for the three calls */
	/* alone (no merge slot) the same calls answer the same */
	for (int i = 0; i < 3; i++) {
		struct exec_result r;
		struct exec_request q = f.rq[i];
		q.merge_slot = 0;
		CHECK_INT(executor__run(x, &q, &r, &e), 0);
		CHECK_STR(r.out, f.res[i].out);
		exec_result__release(&r);
	}
	CHECK_INT(runs(&f), 4);
	executor__free(x);
	fx_release(&f, 4);
}

static void t_fault_stays_own(void)
{
	const char *mods[] = {"/m/a", "crash", "/m/c"};
	const char *in[] = {"0x1\n", "0x2\n", "0x3\n"};
	struct fx f;
	fx_init(&f, mods, in, 3);
	struct executor *x = executor__new_real();
	struct err e = {0};
	CHECK_INT(executor__run_batch(x, f.rq, 3, f.res, &e), 0);
	CHECK(f.res[0].exit_code == 0 && f.res[2].exit_code == 0);
	CHECK_STR(f.res[0].out, "/m/a 0x1\n");
	CHECK_STR(f.res[2].out, "/m/c 0x3\n");
	CHECK_INT(f.res[1].exit_code, 3);
	CHECK_INT(runs(&f), 4); /* merged once, then each alone */
	executor__free(x);
	fx_release(&f, 3);
}

static void t_timeout_shared(void)
{
	const char *mods[] = {"/m/a", "hang", "/m/c"};
	const char *in[] = {"0x1\n", "0x2\n", "0x3\n"};
	struct fx f;
	fx_init(&f, mods, in, 3);
	for (int i = 0; i < 3; i++)
		f.rq[i].timeout_s = 5; /* the sleep is 60 s: no race with a loaded machine */
	struct executor *x = executor__new_real();
	struct err e = {0};
	CHECK_INT(executor__run_batch(x, f.rq, 3, f.res, &e), 0);
	for (int i = 0; i < 3; i++)
		CHECK(f.res[i].timed_out && f.res[i].out);
	CHECK_STR(f.res[2].out, ""); /* nothing answered for it before the hang */
	CHECK_INT(runs(&f), 1);   /* not run again: the wait would multiply */
	executor__free(x);
	fx_release(&f, 3);
}

static const struct test_case cases[] = {
	{"merged", "equal calls share one process, each gets its own lines", t_merged},
	{"fault_stays_own", "a failed merged process is run call by call", t_fault_stays_own},
	{"timeout_shared", "a timeout is every member's, not run again", t_timeout_shared},
};

TEST_MAIN(cases)
