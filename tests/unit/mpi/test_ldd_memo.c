// SPDX-License-Identifier: BSD-3-Clause
/* ldd's answers kept between Runs (mpi/ldd_memo.h, issue 27): a second call
 * on unchanged files starts no ldd, and every change the loader's answer
 * depends on (the program, a library it resolved, a file added beside one,
 * LD_LIBRARY_PATH or a file added in one of its directories) starts it
 * again; an answer with a library not found, or an entry nunatak did not
 * seal, is never used. ldd is a stand-in on PATH that logs its calls and
 * prints a fixed answer naming files of the test's own tree. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "exec/exec.h"
#include "mpi/ldd_memo.h"
#include "harness.h"
#define TMPDIR_TAG "ldd-memo"
#include "tmpdir.h"

struct tree {
	char *dir, *prog, *lib, *libdir, *log, *answer;
	struct executor *x;
};

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	CHECK_INT(fclose(f), 0);
	CHECK_INT(chmod(path, mode), 0);
}

/* How many times the stand-in ldd ran so far. */
static int calls(const struct tree *t)
{
	FILE *f = fopen(t->log, "r");
	int n = 0, c;
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/* The stand-in's answer names the library of the tree (and a loader), as
 * the real ldd's "NAME => PATH (0x...)" lines. */
static void answer(const struct tree *t, bool not_found)
{
	char *text = xasprintf("\tlinux-vdso.so.1 (0x00007ffd0a1f2000)\n"
			       "\tlibmpi.so.40 => %s (0x00007f3c1a000000)\n%s"
			       "\t%s/ld.so (0x00007f3c1b000000)\n",
			       t->lib, not_found ? "\tlibgone.so.1 => not found\n" : "",
			       t->libdir);
	write_file(t->answer, text, 0644);
	xfree(text);
}

static void setup(struct tree *t)
{
	t->dir = tmpdir();
	char *bin = xasprintf("%s/bin", t->dir), *ldd = xasprintf("%s/ldd", bin);
	t->libdir = xasprintf("%s/lib dir", t->dir); /* a space, as a user's tree may have */
	t->lib = xasprintf("%s/libmpi.so.40", t->libdir);
	t->prog = xasprintf("%s/app", t->dir);
	t->log = xasprintf("%s/ldd.log", t->dir);
	t->answer = xasprintf("%s/answer.txt", t->dir);
	CHECK_INT(mkdir(bin, 0755), 0);
	CHECK_INT(mkdir(t->libdir, 0755), 0);
	write_file(t->lib, "library v1", 0644);
	write_file(t->prog, "#!/bin/sh\n", 0755);
	char *script = xasprintf("#!/bin/sh\necho \"$1\" >> '%s'\ncat '%s'\n", t->log, t->answer);
	write_file(ldd, script, 0755);
	answer(t, false);
	char *path = xasprintf("%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	setenv("XDG_CACHE_HOME", t->dir, 1);
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("LD_PRELOAD");
	/* answers depending on a file changed within the last second are not
	 * kept (ldd_memo.h): the tree must be older than that first */
	struct timespec wait = {1, 200000000};
	while (nanosleep(&wait, &wait) != 0)
		;
	t->x = executor__new_real();
	CHECK(t->x != NULL);
	xfree(script);
	xfree(path);
	xfree(ldd);
	xfree(bin);
}

static void teardown(struct tree *t)
{
	executor__free(t->x);
	xfree(t->dir);
	xfree(t->prog);
	xfree(t->lib);
	xfree(t->libdir);
	xfree(t->log);
	xfree(t->answer);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("LD_LIBRARY_PATH");
	done();
}

/* One call; checks the answer is the stand-in's, and returns whether ldd
 * ran for it. */
static bool ran(struct tree *t, bool memo)
{
	int before = calls(t);
	char *text = ldd_memo_run(t->x, t->prog, memo);
	CHECK(text != NULL && strstr(text, t->lib) != NULL);
	xfree(text);
	return calls(t) == before + 1;
}

static void t_kept(void)
{
	struct tree t;
	setup(&t);
	CHECK(ran(&t, true));   /* first: ldd runs, its answer is kept */
	CHECK(!ran(&t, true));  /* unchanged: no ldd */
	CHECK(!ran(&t, true));
	CHECK(ran(&t, false));  /* recording or replay: always asked */
	teardown(&t);
}

static void t_library_changed(void)
{
	struct tree t;
	setup(&t);
	CHECK(ran(&t, true));
	CHECK(!ran(&t, true));
	/* the same size, another file: an upgrade renamed into place */
	char *tmp = xasprintf("%s.new", t.lib);
	write_file(tmp, "library v2", 0644);
	CHECK_INT(rename(tmp, t.lib), 0);
	CHECK(ran(&t, true));
	/* appended to in place */
	write_file(tmp, "", 0644);
	FILE *f = fopen(t.lib, "a");
	CHECK(f != NULL);
	fputs("more", f);
	fclose(f);
	CHECK(ran(&t, true));
	xfree(tmp);
	teardown(&t);
}

static void t_beside(void)
{
	struct tree t;
	setup(&t);
	CHECK(ran(&t, true));
	CHECK(!ran(&t, true));
	/* a library dropped beside the one resolved (the directory changes) */
	char *other = xasprintf("%s/libother.so", t.libdir);
	write_file(other, "x", 0644);
	CHECK(ran(&t, true));
	xfree(other);
	teardown(&t);
}

static void t_program(void)
{
	struct tree t;
	setup(&t);
	CHECK(ran(&t, true));
	CHECK(!ran(&t, true));
	write_file(t.prog, "#!/bin/sh\n# rebuilt\n", 0755); /* the program rebuilt */
	CHECK(ran(&t, true));
	teardown(&t);
}

static void t_library_path(void)
{
	struct tree t;
	setup(&t);
	char *extra = xasprintf("%s/extra", t.dir);
	CHECK_INT(mkdir(extra, 0755), 0);
	CHECK(ran(&t, true));
	CHECK(!ran(&t, true));
	setenv("LD_LIBRARY_PATH", extra, 1); /* another search path: asked again */
	CHECK(ran(&t, true));
	/* (that answer depends on `extra`, changed within the second: not kept) */
	struct timespec wait = {1, 200000000};
	while (nanosleep(&wait, &wait) != 0)
		;
	CHECK(ran(&t, true));
	CHECK(!ran(&t, true));
	/* a library appearing in a directory of LD_LIBRARY_PATH may shadow */
	char *lib = xasprintf("%s/libmpi.so.40", extra);
	write_file(lib, "shadow", 0644);
	CHECK(ran(&t, true));
	unsetenv("LD_LIBRARY_PATH");
	CHECK(!ran(&t, true)); /* the first answer, still true without it */
	xfree(lib);
	xfree(extra);
	teardown(&t);
}

static void t_not_found(void)
{
	struct tree t;
	setup(&t);
	answer(&t, true); /* the stand-in's output, not a file the answer depends on */
	CHECK(ran(&t, true));
	CHECK(ran(&t, true)); /* a library not found: never kept */
	teardown(&t);
}

/* Rewrites every kept entry with one byte changed in its text (a load
 * address: nothing else of the entry holds it). */
static int tamper(const char *dir)
{
	char *cmd = xasprintf("for f in '%s'/nunatak/ldd/*; do grep -q 0x00007f3c1a000000 \"$f\" && "
			      "sed -i 's/0x00007f3c1a000000/0x00007f3c1a000001/' \"$f\" || exit 1; "
			      "done", dir);
	int rc = system(cmd);
	xfree(cmd);
	return rc;
}

static void t_tampered(void)
{
	struct tree t;
	setup(&t);
	CHECK(ran(&t, true));
	CHECK(!ran(&t, true));
	CHECK_INT(tamper(t.dir), 0);
	CHECK(ran(&t, true)); /* not sealed by us: a miss (and the answer is ldd's own) */
	CHECK(!ran(&t, true));
	teardown(&t);
}

static const struct test_case cases[] = {
	{"kept", "an unchanged program's ldd answer is kept; recording or replay always asks",
	 t_kept},
	{"library_changed", "a resolved library replaced or changed in place is asked again",
	 t_library_changed},
	{"beside", "a file added beside a resolved library is asked again", t_beside},
	{"program", "a rebuilt program is asked again", t_program},
	{"library_path", "LD_LIBRARY_PATH changed, or a file added in one of its directories, "
			 "is asked again", t_library_path},
	{"not_found", "an answer with a library not found is never kept", t_not_found},
	{"tampered", "an entry nunatak did not seal is never used", t_tampered},
};
TEST_MAIN(cases)
