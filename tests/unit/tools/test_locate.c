// SPDX-License-Identifier: BSD-3-Clause
/* attrib_locate_in() over a tree of its own (lib/llvm-N/bin, bin) and a
 * scripted executor: which `--version` probes a first Run pays, in which
 * order, and that the choice is the one the plain order makes. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "tools/locate.h"

static char root[PATH_MAX];

struct fake {
	char calls[8][PATH_MAX];
	int nr_calls;
	const char *failing; /* argv[0] that exits 1; NULL: none */
	json_t *meta;        /* non-NULL: a replay's recorded meta.json */
};

/* The answers of this tree: PATH's link says what its target says. */
static const char *answer(const char *argv0)
{
	static char l19[PATH_MAX + 40];
	snprintf(l19, sizeof(l19), "%s/lib/llvm-19/bin/llvm-symbolizer", root);
	char target[PATH_MAX];
	if (strcmp(argv0, "llvm-symbolizer") == 0) {
		char link[PATH_MAX + 40];
		snprintf(link, sizeof(link), "%s/bin/llvm-symbolizer", root);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			return NULL;
		target[n] = '\0';
		argv0 = target;
	}
	if (strstr(argv0, "/llvm-19/"))
		return "Ubuntu LLVM version 19.1.7\n  Optimized build.\n";
	if (strstr(argv0, "/llvm-14/"))
		return "LLVM (http://llvm.org/):\n  LLVM version 14.0.6\n";
	return NULL;
}

static int fake_run(struct executor *x, const struct exec_request *req, struct exec_result *res,
		    struct err *e)
{
	(void)e;
	struct fake *f = x->priv;
	memset(res, 0, sizeof(*res));
	CHECK(req->argv[1] && strcmp(req->argv[1], "--version") == 0);
	if (f->nr_calls < 8)
		snprintf(f->calls[f->nr_calls++], PATH_MAX, "%s", req->argv[0]);
	const char *out = answer(req->argv[0]);
	if (f->failing && strcmp(req->argv[0], f->failing) == 0)
		res->exit_code = 1;
	else if (!out)
		res->exit_code = EXEC_NOT_FOUND;
	else
		res->out = xstrdup(out);
	res->out_len = res->out ? strlen(res->out) : 0;
	return 0;
}

static const json_t *fake_meta(struct executor *x)
{
	return ((struct fake *)x->priv)->meta;
}

static void fake_free(struct executor *x)
{
	(void)x;
}

static const struct executor_ops live_ops = {.run = fake_run, .free = fake_free};
static const struct executor_ops replay_ops = {.run = fake_run, .recorded_meta = fake_meta,
					       .free = fake_free};

static void put_tool(const char *rel)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	FILE *fp = fopen(path, "w");
	CHECK(fp != NULL);
	fputs("#!/bin/sh\nexit 99\n", fp); /* never run: the executor is scripted */
	CHECK(fclose(fp) == 0);
	CHECK(chmod(path, 0755) == 0);
}

/* root/lib/llvm-{14,19}/bin/llvm-symbolizer, root/bin/llvm-symbolizer a link
 * to llvm-<path_version> (0: no PATH tool). */
static void make_tree(int path_version)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/nunatak-locate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	CHECK(mkdtemp(root) != NULL);
	put_tool("lib/llvm-14/bin/llvm-symbolizer");
	put_tool("lib/llvm-19/bin/llvm-symbolizer");
	char bin[PATH_MAX + 8], link[PATH_MAX + 32], target[64];
	snprintf(bin, sizeof(bin), "%s/bin", root);
	CHECK(mkdir(bin, 0755) == 0);
	if (path_version) {
		snprintf(link, sizeof(link), "%s/llvm-symbolizer", bin);
		snprintf(target, sizeof(target), "../lib/llvm-%d/bin/llvm-symbolizer", path_version);
		CHECK(symlink(target, link) == 0);
	}
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(void)
{
	CHECK(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

/* Locates over the tree; returns the number of probes, calls in f. */
static int locate(struct fake *f, const char *configured, struct attrib_tools *t)
{
	char lib[PATH_MAX + 8], bin[PATH_MAX + 8];
	snprintf(lib, sizeof(lib), "%s/lib", root);
	snprintf(bin, sizeof(bin), "%s/bin", root);
	struct attrib_locate_roots r = {.lib = lib, .bin = bin, .path_env = bin};
	struct executor x = {.ops = f->meta ? &replay_ops : &live_ops, .priv = f};
	struct err e = {0};
	CHECK_INT(attrib_locate_in(&x, configured, NULL, &r, t, &e), 0);
	return f->nr_calls;
}

static const char *l(int v)
{
	static char p[PATH_MAX + 40];
	snprintf(p, sizeof(p), "%s/lib/llvm-%d/bin/llvm-symbolizer", root, v);
	return p;
}

/* Debian 12's layout: PATH's llvm-symbolizer is LLVM 14, llvm-19 beside it.
 * One probe (llvm-19's), where the plain order paid two. */
static void t_old_path_tool_deferred(void)
{
	make_tree(14);
	struct fake f = {0};
	struct attrib_tools t;
	CHECK_INT(locate(&f, NULL, &t), 1);
	CHECK_STR(f.calls[0], l(19));
	CHECK_STR(t.path, l(19));
	CHECK_INT(t.major, 19);
	CHECK(t.cost == NULL);
	attrib_tools__release(&t);
	remove_tree();
}

/* The newer install does not answer: PATH's is probed next and chosen, as
 * the plain order chose it (first of the highest version). */
static void t_newer_fails(void)
{
	make_tree(14);
	struct fake f = {0};
	char failing[PATH_MAX + 40];
	snprintf(failing, sizeof(failing), "%s", l(19));
	f.failing = failing;
	struct attrib_tools t;
	CHECK_INT(locate(&f, NULL, &t), 3);
	CHECK_STR(f.calls[0], l(19));
	CHECK_STR(f.calls[1], "llvm-symbolizer");
	CHECK_STR(f.calls[2], l(14));
	CHECK_STR(t.path, "llvm-symbolizer");
	CHECK_INT(t.major, 14);
	CHECK(t.cost != NULL);
	attrib_tools__release(&t);
	remove_tree();
}

/* PATH's is the newer one, or a replay, or a configured tool: the plain
 * order, PATH's (or the configured one) probed first. */
static void t_plain_order_kept(void)
{
	make_tree(19);
	struct fake f = {0};
	struct attrib_tools t;
	CHECK_INT(locate(&f, NULL, &t), 1);
	CHECK_STR(f.calls[0], "llvm-symbolizer");
	CHECK_STR(t.path, "llvm-symbolizer");
	CHECK_INT(t.major, 19);
	attrib_tools__release(&t);
	remove_tree();

	make_tree(14);
	struct fake r = {.meta = json_object()};
	CHECK(r.meta != NULL);
	CHECK_INT(locate(&r, NULL, &t), 2); /* a replay: the recorded order */
	CHECK_STR(r.calls[0], "llvm-symbolizer");
	CHECK_STR(r.calls[1], l(19));
	CHECK_STR(t.path, l(19));
	attrib_tools__release(&t);
	json_decref(r.meta);

	struct fake c = {0};
	char configured[PATH_MAX + 40];
	snprintf(configured, sizeof(configured), "%s", l(14));
	CHECK_INT(locate(&c, configured, &t), 1); /* configured: kept, even old */
	CHECK_STR(c.calls[0], l(14));
	CHECK_INT(t.major, 14);
	attrib_tools__release(&t);
	remove_tree();
}

static const struct test_case cases[] = {
	{"old_path_tool_deferred", "PATH's LLVM 14 link is probed after llvm-19: one probe",
	 t_old_path_tool_deferred},
	{"newer_fails", "the newer install fails: PATH's is chosen as before", t_newer_fails},
	{"plain_order_kept", "newer PATH tool, replay, configured: the plain order",
	 t_plain_order_kept},
};
TEST_MAIN(cases)
