// SPDX-License-Identifier: BSD-3-Clause
// Run directory: naming cascade and sanitising, timestamped creation with
// collision suffixes, .gitignore, -o exact paths, discovery of the newest Run.
#include "store/rundir.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "common/err.h"
#include <ftw.h>

#include "harness.h"
#include "common/fsutil.h"

#define TMPDIR_TAG "rundir"
#include "tmpdir.h"

static void t_sanitize(void)
{
	static const char *const cases[][2] = {
		{"solver", "solver"},
		{"my solver v2", "my-solver-v2"},
		{"a/b\\c::d", "a-b-c-d"},
		{"caf\xc3\xa9 run", "caf-run"}, {"caf\xc3\xa9-run", "caf--run"},
		{"x..y_z-1.0", "x..y_z-1.0"},
		{"  lead", "-lead"},
		{"..", "run"},
		{"", "run"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = rundir_sanitize_name(cases[i][0]);
		CHECK_STR(s, cases[i][1]);
		free(s);
	}
}

static void t_cascade(void)
{
	char *n = rundir_pick_name("flag name", "cfg", "/home/u/proj", "/opt/bin/solver");
	CHECK_STR(n, "flag-name");
	free(n);
	n = rundir_pick_name("", "cfg", "/home/u/proj", "/opt/bin/solver");
	CHECK_STR(n, "cfg");
	free(n);
	n = rundir_pick_name(NULL, NULL, "/home/u/my proj/", "/opt/bin/solver");
	CHECK_STR(n, "my-proj");
	free(n);
	n = rundir_pick_name(NULL, NULL, NULL, "./bin/solver.x");
	CHECK_STR(n, "solver.x");
	free(n);
	n = rundir_pick_name(NULL, NULL, NULL, NULL);
	CHECK_STR(n, "run");
	free(n);
}

static void t_create_collisions(void)
{
	char *root = tmpdir(), *runs = fs_join(root, "deep/runs"), *a, *b, *c;
	struct err e = {0};
	struct tm tm = {.tm_year = 126, .tm_mon = 10, .tm_mday = 29, .tm_hour = 14, .tm_min = 5,
			.tm_sec = 7, .tm_isdst = -1};
	time_t t = mktime(&tm);
	CHECK_INT(rundir_create(runs, "solver", t, &a, &e), 0);
	CHECK_INT(rundir_create(runs, "solver", t, &b, &e), 0);
	CHECK_INT(rundir_create(runs, "solver", t, &c, &e), 0);
	char want[512];
	snprintf(want, sizeof(want), "%s/solver-20261129-140507", runs);
	CHECK_STR(a, want);
	snprintf(want, sizeof(want), "%s/solver-20261129-140507-2", runs);
	CHECK_STR(b, want);
	snprintf(want, sizeof(want), "%s/solver-20261129-140507-3", runs);
	CHECK_STR(c, want);
	struct stat st;
	CHECK(stat(c, &st) == 0 && S_ISDIR(st.st_mode));
	char *gi = fs_join(runs, ".gitignore"), *text = NULL;
	CHECK_INT(fs_read_file(gi, 100, &text, NULL), 0);
	CHECK_STR(text, "*\n");
	/* An existing .gitignore is the user's: left alone. */
	CHECK_INT(fs_write_atomic(gi, "mine\n", 5, &e), 0);
	free(a);
	CHECK_INT(rundir_create(runs, "other", t, &a, &e), 0);
	free(text);
	CHECK_INT(fs_read_file(gi, 100, &text, NULL), 0);
	CHECK_STR(text, "mine\n");
	done();
}

static void t_create_fails(void)
{
	/* runs_dir is a file: a clear error naming it. */
	char *root = tmpdir(), *file = fs_join(root, "f"), *out = NULL;
	struct err e = {0};
	CHECK_INT(fs_write_atomic(file, "x", 1, &e), 0);
	CHECK(rundir_create(file, "solver", time(NULL), &out, &e) < 0);
	CHECK_STR(e.code, "run.create");
	CHECK(strstr(e.msg, file) != NULL);
	CHECK(out == NULL);
	done();
}

static void t_exact(void)
{
	char *root = tmpdir(), *p = fs_join(root, "a/b/run1");
	struct err e = {0};
	CHECK_INT(rundir_create_exact(p, &e), 0);
	CHECK_INT(rundir_create_exact(p, &e), 0); /* empty: accepted */
	char *f = fs_join(p, "manifest.json");
	CHECK_INT(fs_write_atomic(f, "{}", 2, &e), 0);
	CHECK(rundir_create_exact(p, &e) < 0); /* a previous Run is never overwritten */
	CHECK_STR(e.code, "run.create");
	CHECK(strstr(e.msg, "not empty") != NULL);
	done();
}

static void make_run(const char *runs, const char *name, bool manifest)
{
	char *d = fs_join(runs, name);
	struct err e = {0};
	CHECK_INT(fs_mkdir_p(d), 0);
	if (manifest) {
		char *f = fs_join(d, "manifest.json");
		CHECK_INT(fs_write_atomic(f, "{}", 2, &e), 0);
		free(f);
	}
	free(d);
}

static void t_latest(void)
{
	char *runs = tmpdir(), *out = NULL;
	struct err e = {0};
	CHECK(rundir_find_latest(runs, &out, &e) < 0);
	CHECK_STR(e.code, "run.none");
	CHECK(strstr(e.msg, "nunatak run") != NULL);
	make_run(runs, "zeta-20260101-000000", true);
	make_run(runs, "alpha-20261129-140507", true);
	make_run(runs, "alpha-20261129-140507-9", true);
	make_run(runs, "alpha-20261129-140507-10", true);
	make_run(runs, "beta-20271231-235959", false); /* no manifest: not a Run */
	CHECK_INT(rundir_find_latest(runs, &out, &e), 0);
	char want[512];
	/* Newest by time, not by name ("zeta" sorts last); -10 after -9. */
	snprintf(want, sizeof(want), "%s/alpha-20261129-140507-10", runs);
	CHECK_STR(out, want);
	done();
}

static const struct test_case cases[] = {
	{"sanitize", "[^A-Za-z0-9._-]+ becomes '-'; dots alone are refused", t_sanitize},
	{"cascade", "--name > config > git toplevel > target basename", t_cascade},
	{"create_collisions", "same second gives -2, -3; .gitignore written once", t_create_collisions},
	{"create_fails", "an impossible runs_dir is a named error", t_create_fails},
	{"exact", "-o creates parents; refuses a non-empty directory", t_exact},
	{"latest", "newest Run by stamp and collision number, manifest required", t_latest},
};
TEST_MAIN(cases)
