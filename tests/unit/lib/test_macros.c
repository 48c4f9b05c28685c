/* SPDX-License-Identifier: BSD-3-Clause */
/* The convenience macros, compiled with SP_ENABLE (their disabled form is
 * compiled by the examples' *_disabled builds). */
#define SP_ENABLE
#include <sys/stat.h>

#include "harness.h"
#include "scope_profiler.h"
#include "spt_parse.h"

static int depth_seen;

static void scoped(int n)
{
	SP_SCOPE("scoped");
	if (n > 0)
		scoped(n - 1); /* recursion: nested calls of one region */
	depth_seen++;
}

static void t_macros(void)
{
	char dir[] = "/tmp/sp-macro-XXXXXX", prefix[64], spt[96];
	CHECK(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/m", dir);
	snprintf(spt, sizeof(spt), "%s_rank00000.spt", prefix);
	setenv("SCOPE_PROFILER_HDF5", "0", 1);
	sp_init(prefix, NULL);
	for (int i = 0; i < 2; i++) {
		SP_BEGIN(tag, "tagged");
		scoped(2);
		SP_END(tag);
	}
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	struct tspt_region *s = tspt_find(&t, "scoped"), *g = tspt_find(&t, "tagged");
	CHECK(s && g);
	CHECK_INT(s->n, 6);
	CHECK_INT(g->n, 2);
	CHECK(strstr(s->file, "test_macros.c"));
	CHECK(s->line > 0);
	/* Sorted by start although recursion ends the innermost call first. */
	for (int i = 1; i < 6; i++)
		CHECK(s->starts[i] >= s->starts[i - 1]);
	/* The outermost recursive call encloses the two inner ones. */
	CHECK(s->starts[0] <= s->starts[1] && s->ends[1] <= s->ends[0]);
	CHECK(s->starts[1] <= s->starts[2] && s->ends[2] <= s->ends[1]);
	CHECK_INT(depth_seen, 6);
	unlink(spt);
	rmdir(dir);
}

static const struct test_case cases[] = {
	{"macros", "SP_SCOPE / SP_BEGIN / SP_END record with SP_ENABLE", t_macros},
};
TEST_MAIN(cases)
