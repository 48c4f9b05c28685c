// SPDX-License-Identifier: BSD-3-Clause
/* The caching executor keys a tool by the libraries the loader would load
 * into it (exec/tool_identity.c): a stand-in tool, built here with cc,
 * finds its own libanswer.so.1 through RUNPATH $ORIGIN/lib, prints that
 * library's answer and logs each real run. LD_LIBRARY_PATH naming another
 * build of the library must miss (and the new answer is the other
 * library's), naming a directory without it must still hit; LD_PRELOAD
 * misses; a tool using DT_RPATH (searched before LD_LIBRARY_PATH) is not
 * redirected and keeps hitting. Paths hold spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "exec/exec.h"
#include "harness.h"
#define TMPDIR_TAG "exec-toolid"
#include "tmpdir.h"

static const char LIB_SRC[] = "const char *answer(void) { return ANSWER; }\n";
static const char TOOL_SRC[] =
	"#include <stdio.h>\n"
	"const char *answer(void);\n"
	"#include <stdlib.h>\n"
	"int main(void)\n"
	"{\n"
	"\tconst char *log = getenv(\"TOOL_LOG\");\n"
	"\tFILE *f = log ? fopen(log, \"a\") : NULL;\n"
	"\tif (!f)\n"
	"\t\treturn 2;\n"
	"\tfputs(\"run\\n\", f);\n"
	"\tfclose(f);\n"
	"\tprintf(\"answer:%s\\n\", answer());\n"
	"\treturn 0;\n"
	"}\n";

struct fixture {
	char *top, *dir, *log, *cache, *other, *empty, *tool, *tool_rpath;
	struct executor *real, *x;
};

/* Runs cc argv (real executor); fails the case with cc's stderr. */
static void cc(struct fixture *f, const char *const *argv)
{
	struct exec_request rq = {.argv = argv, .capture_stderr = true, .timeout_s = 300};
	struct exec_result r;
	struct err e = {0};
	CHECK_INT(executor__run(f->real, &rq, &r, &e), 0);
	if (r.exit_code != 0)
		fprintf(stderr, "cc failed: %s\n", r.err ? r.err : "");
	CHECK_INT(r.exit_code, 0);
	exec_result__release(&r);
}

static void build_lib(struct fixture *f, const char *dir, const char *answer)
{
	char *src = fs_join(f->dir, "answer.c"), *out = fs_join(dir, "libanswer.so.1");
	char *def = xasprintf("-DANSWER=\"%s\"", answer);
	struct err e = {0};
	CHECK_INT(mkdir(dir, 0755), 0);
	CHECK_INT(fs_write_atomic(src, LIB_SRC, strlen(LIB_SRC), &e), 0);
	const char *argv[] = {"cc", "-shared", "-fPIC", def, "-Wl,-soname,libanswer.so.1",
			      "-o", out, src, NULL};
	cc(f, argv);
	xfree(src), xfree(out), xfree(def);
}

/* The tool, linked to lib/libanswer.so.1 with RUNPATH (new_dtags) or RPATH. */
static char *build_tool(struct fixture *f, const char *name, bool new_dtags)
{
	char *src = fs_join(f->dir, "tool.c"), *out = fs_join(f->dir, name);
	char *libdir = fs_join(f->dir, "lib"), *lib = fs_join(libdir, "libanswer.so.1");
	struct err e = {0};
	CHECK_INT(fs_write_atomic(src, TOOL_SRC, strlen(TOOL_SRC), &e), 0);
	const char *argv[] = {"cc", "-o", out, src, lib, "-Wl,-rpath,$ORIGIN/lib",
			      new_dtags ? "-Wl,--enable-new-dtags" : "-Wl,--disable-new-dtags",
			      NULL};
	cc(f, argv);
	xfree(src), xfree(libdir), xfree(lib);
	return out;
}

static void fixture__init(struct fixture *f)
{
	char *cc_path = NULL;
	if (exec_which("cc", &cc_path) != 0)
		SKIP("no C compiler (cc) to build the stand-in tool");
	xfree(cc_path);
	unsetenv("LD_LIBRARY_PATH"); /* the case sets the child's environment itself */
	unsetenv("LD_PRELOAD");
	f->top = tmpdir();
	f->dir = fs_join(f->top, "a dir with spaces");
	CHECK_INT(mkdir(f->dir, 0755), 0);
	f->log = fs_join(f->dir, "run log");
	CHECK_INT(setenv("TOOL_LOG", f->log, 1), 0); /* inherited: not in the key */
	f->cache = fs_join(f->dir, "cache");
	f->other = fs_join(f->dir, "other lib");
	f->empty = fs_join(f->dir, "empty lib");
	CHECK_INT(mkdir(f->empty, 0755), 0);
	f->real = executor__new_real();
	CHECK(f->real != NULL);
	char *own = fs_join(f->dir, "lib");
	build_lib(f, own, "own");
	xfree(own);
	build_lib(f, f->other, "other");
	f->tool = build_tool(f, "tool", true);
	f->tool_rpath = build_tool(f, "tool_rpath", false);
	f->x = executor__new_caching_take(executor__new_real(), f->cache);
	CHECK(f->x != NULL);
}

static void fixture__release(struct fixture *f)
{
	executor__free(f->x);
	executor__free(f->real);
	xfree(f->top), xfree(f->dir), xfree(f->log), xfree(f->cache), xfree(f->other), xfree(f->empty);
	xfree(f->tool), xfree(f->tool_rpath);
}

/* One cacheable call of tool with env edits `set`; checks its answer and
 * whether it really ran (the log grew) or was served from the cache. */
static void expect(struct fixture *f, const char *tool, const char *set, const char *answer,
		   bool ran)
{
	const char *argv[] = {tool, NULL};
	const char *env_set[] = {set, NULL};
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .cacheable = true, .timeout_s = 300,
				  .env_set = set ? env_set : NULL};
	struct exec_result r;
	struct err e = {0};
	unlink(f->log);
	CHECK_INT(executor__run(f->x, &rq, &r, &e), 0);
	if (r.exit_code != 0)
		fprintf(stderr, "tool failed: %s\n", r.err ? r.err : "");
	CHECK_INT(r.exit_code, 0);
	char *want = xasprintf("answer:%s\n", answer);
	CHECK_STR(r.out, want);
	struct stat st;
	CHECK_INT(stat(f->log, &st) == 0, ran);
	xfree(want);
	exec_result__release(&r);
}

/* The environment nunatak itself runs in (a `module load`), which its tools
 * inherit: not an env edit of the request, so not in the key by itself. */
static void env(const char *name, const char *value)
{
	if (value)
		CHECK_INT(setenv(name, value, 1), 0);
	else
		CHECK_INT(unsetenv(name), 0);
}

static void t_ld_library_path(void)
{
	struct fixture f;
	fixture__init(&f);
	char *empty2 = xasprintf("%s:%s/::", f.empty, f.empty);
	expect(&f, f.tool, NULL, "own", true);
	expect(&f, f.tool, NULL, "own", false); /* the cache answers */
	/* another build of the library first in LD_LIBRARY_PATH: a miss */
	env("LD_LIBRARY_PATH", f.other);
	expect(&f, f.tool, NULL, "other", true);
	expect(&f, f.tool, NULL, "other", false);
	/* directories without it redirect nothing: the same key as unset */
	env("LD_LIBRARY_PATH", empty2);
	expect(&f, f.tool, NULL, "own", false);
	env("LD_LIBRARY_PATH", "");
	expect(&f, f.tool, NULL, "own", false);
	/* the redirecting library rebuilt (new identity): a miss again in the
	 * next Run (a new executor; one Run takes its libraries as unchanged) */
	char *lib = fs_join(f.other, "libanswer.so.1");
	CHECK_INT(unlink(lib), 0);
	CHECK_INT(rmdir(f.other), 0);
	build_lib(&f, f.other, "rebuilt");
	executor__free(f.x);
	f.x = executor__new_caching_take(executor__new_real(), f.cache);
	CHECK(f.x != NULL);
	env("LD_LIBRARY_PATH", f.other);
	expect(&f, f.tool, NULL, "rebuilt", true);
	/* a request's own edit removing it is followed too */
	const char *argv[] = {f.tool, NULL}, *unset[] = {"LD_LIBRARY_PATH", NULL};
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .cacheable = true,
				  .timeout_s = 300, .env_unset = unset};
	struct exec_result r;
	struct err e = {0};
	CHECK_INT(executor__run(f.x, &rq, &r, &e), 0);
	CHECK_STR(r.out, "answer:own\n");
	exec_result__release(&r);
	env("LD_LIBRARY_PATH", NULL);
	expect(&f, f.tool, NULL, "own", false);
	xfree(lib), xfree(empty2);
	fixture__release(&f);
	done();
}

static void t_preload_and_rpath(void)
{
	struct fixture f;
	fixture__init(&f);
	/* ld.so splits LD_PRELOAD at spaces: the preloaded copy's path has none */
	char *lib = fs_join(f.top, "libanswer.so.1"), *from = fs_join(f.other, "libanswer.so.1");
	char *bytes = NULL;
	size_t n = 0;
	struct err e = {0};
	CHECK_INT(fs_read_file(from, 1 << 24, &bytes, &n), 0);
	CHECK_INT(fs_write_atomic(lib, bytes, n, &e), 0);
	xfree(bytes), xfree(from);
	expect(&f, f.tool, NULL, "own", true);
	env("LD_PRELOAD", lib);
	expect(&f, f.tool, NULL, "other", true); /* the preloaded answer() wins */
	expect(&f, f.tool, NULL, "other", false);
	env("LD_PRELOAD", NULL);
	expect(&f, f.tool, NULL, "own", false);
	/* DT_RPATH without DT_RUNPATH is searched before LD_LIBRARY_PATH: the
	 * tool's own library still loads, the key is unchanged */
	expect(&f, f.tool_rpath, NULL, "own", true);
	env("LD_LIBRARY_PATH", f.other);
	expect(&f, f.tool_rpath, NULL, "own", false);
	expect(&f, f.tool, NULL, "other", true); /* while the RUNPATH tool is redirected */
	env("LD_LIBRARY_PATH", NULL);
	xfree(lib);
	fixture__release(&f);
	done();
}

/* A tool that is not ELF (a shell script, like ldd) may load anything from
 * LD_LIBRARY_PATH, or answer from it as ldd does: keyed by its raw value. */
static void t_script_tool(void)
{
	char *t = tmpdir(), *tool = fs_join(t, "ldd-like tool"), *log = fs_join(t, "run log");
	static const char script[] = "#!/bin/sh\n"
				     "echo run >> \"$TOOL_LOG\"\n"
				     "echo \"answer:${LD_LIBRARY_PATH:-none}\"\n";
	struct err e = {0};
	CHECK_INT(fs_write_atomic(tool, script, strlen(script), &e), 0);
	CHECK_INT(chmod(tool, 0755), 0);
	struct fixture f = {.log = log};
	f.cache = fs_join(t, "cache");
	f.x = executor__new_caching_take(executor__new_real(), f.cache);
	CHECK(f.x != NULL);
	env("TOOL_LOG", log);
	env("LD_PRELOAD", NULL);
	env("LD_LIBRARY_PATH", NULL);
	expect(&f, tool, NULL, "none", true);
	expect(&f, tool, NULL, "none", false);
	env("LD_LIBRARY_PATH", "/nonexistent/a");
	expect(&f, tool, NULL, "/nonexistent/a", true);
	env("LD_LIBRARY_PATH", "/nonexistent/b");
	expect(&f, tool, NULL, "/nonexistent/b", true);
	env("LD_LIBRARY_PATH", "/nonexistent/a");
	expect(&f, tool, NULL, "/nonexistent/a", false);
	env("LD_LIBRARY_PATH", NULL);
	expect(&f, tool, NULL, "none", false);
	executor__free(f.x);
	xfree(f.cache), xfree(t), xfree(tool), xfree(log);
	done();
}

static const struct test_case cases[] = {
	{"ld_library_path",
	 "a library LD_LIBRARY_PATH redirects is in the tool's key; a directory without it is not",
	 t_ld_library_path},
	{"preload_and_rpath", "LD_PRELOAD misses; DT_RPATH is searched before LD_LIBRARY_PATH",
	 t_preload_and_rpath},
	{"script_tool", "a tool that is not ELF is keyed by the raw LD_LIBRARY_PATH",
	 t_script_tool},
};

TEST_MAIN(cases)
