// SPDX-License-Identifier: BSD-3-Clause
// Provenance: git commit and dirty state through the executor. A scripted
// executor checks the invocation order the corpus replay relies on; the real
// executor checks the values against an actual repository; a corpus entry
// (git answering 128) replays to null fields.
#include "tools/git.h"

#include <ftw.h>
#include <jansson.h>
#include <stdbool.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "common/fsutil.h"
#include "store/manifest.h"

/* ---- a scripted executor: answers in order, remembers argv ---- */

struct answer {
	int exit_code;
	const char *out;
};

struct script {
	const struct answer *answers;
	size_t n, next;
	char seen[8][128];
};

static int script_run(struct executor *x, const struct exec_request *req,
		      struct exec_result *res, struct err *e)
{
	(void)e;
	struct script *s = x->priv;
	memset(res, 0, sizeof(*res));
	char *w = s->seen[s->next < 8 ? s->next : 7];
	w[0] = '\0';
	for (size_t i = 3; req->argv[i]; i++) /* after "git -C <cwd>" */
		snprintf(w + strlen(w), 128 - strlen(w), "%s%s", i > 3 ? " " : "", req->argv[i]);
	CHECK_STR(req->argv[0], "git");
	CHECK_STR(req->argv[1], "-C");
	if (s->next >= s->n) {
		res->exit_code = 127;
		return 0;
	}
	const struct answer *a = &s->answers[s->next++];
	res->exit_code = a->exit_code;
	if (a->out) {
		res->out = xstrdup(a->out);
		res->out_len = strlen(a->out);
	}
	return 0;
}

static const json_t *script_meta(struct executor *x)
{
	(void)x;
	return NULL;
}

static void script_free(struct executor *x)
{
	(void)x;
}

static const struct executor_ops script_ops = {script_run, script_meta, script_free, NULL};

static void t_order_and_values(void)
{
	static const struct answer a[] = {
		{0, "/home/u/proj\n"},
		{0, "0123456789abcdef0123456789abcdef01234567\n"},
		{0, " M src/solver.c\n"},
	};
	struct script s = {a, 3, 0, {{0}}};
	struct executor x = {&script_ops, &s};
	struct err e = {0};
	char *top = NULL;
	CHECK_INT(provenance_git_toplevel(&x, "git", "/home/u/proj/sub", &top, &e), 0);
	CHECK_STR(top, "/home/u/proj");
	struct provenance p = {0};
	p.dirty_tree = -1;
	CHECK_INT(provenance_collect_git(&p, &x, "git", "/home/u/proj/sub", &e), 0);
	CHECK_STR(p.commit, "0123456789abcdef0123456789abcdef01234567");
	CHECK_INT(p.dirty_tree, 1);
	CHECK_STR(s.seen[0], "rev-parse --show-toplevel");
	CHECK_STR(s.seen[1], "rev-parse HEAD");
	CHECK_STR(s.seen[2], "status --porcelain");
}

static void t_not_a_repo(void)
{
	/* HEAD fails (128): status is never asked, both fields stay null. */
	static const struct answer a[] = {{128, ""}, {0, ""}};
	struct script s = {a, 2, 0, {{0}}};
	struct executor x = {&script_ops, &s};
	struct err e = {0};
	struct provenance p = {0};
	p.commit = xstrdup("stale");
	CHECK_INT(provenance_collect_git(&p, &x, "git", "/tmp", &e), 0);
	CHECK(p.commit == NULL);
	CHECK_INT(p.dirty_tree, -1);
	CHECK_INT(s.next, 1);
}

static void t_no_git(void)
{
	static const struct answer a[] = {{127, NULL}};
	struct script s = {a, 1, 0, {{0}}};
	struct executor x = {&script_ops, &s};
	struct err e = {0};
	char *top = (char *)"x";
	CHECK_INT(provenance_git_toplevel(&x, "git", "/tmp", &top, &e), 0);
	CHECK(top == NULL);
}

static void t_garbage_head(void)
{
	static const struct answer a[] = {{0, "HEAD\n"}};
	struct script s = {a, 1, 0, {{0}}};
	struct executor x = {&script_ops, &s};
	struct err e = {0};
	struct provenance p = {0};
	CHECK_INT(provenance_collect_git(&p, &x, "git", "/tmp", &e), 0);
	CHECK(p.commit == NULL);
}

/* ---- the real executor on a real repository ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int git(struct executor *x, const char *dir, const char *const *args, char **out)
{
	const char *argv[16] = {"git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"};
	size_t n = 7;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 30};
	struct exec_result res;
	struct err e = {0};
	CHECK_INT(executor__run(x, &rq, &res, &e), 0);
	int code = res.exit_code;
	if (out)
		*out = res.out ? strndup(res.out, strcspn(res.out, "\n")) : NULL;
	exec_result__release(&res);
	return code;
}

static void t_real_repository(void)
{
	char tmpl[] = "/tmp/nunatak-test-prov-XXXXXX";
	char *dir = mkdtemp(tmpl);
	CHECK(dir != NULL);
	struct executor *x = executor__new_real();
	CHECK(x != NULL);
	if (git(x, dir, (const char *[]){"--version", NULL}, NULL) == 127)
		SKIP("git is not installed");
	struct err e = {0};
	struct provenance p = {0};
	p.dirty_tree = -1;
	CHECK_INT(provenance_collect_git(&p, x, "git", dir, &e), 0);
	CHECK(p.commit == NULL); /* not a repository yet */
	CHECK_INT(git(x, dir, (const char *[]){"init", "-q", NULL}, NULL), 0);
	char *f = fs_join(dir, "a.c");
	CHECK_INT(fs_write_atomic(f, "int x;\n", 7, &e), 0);
	CHECK_INT(git(x, dir, (const char *[]){"add", "a.c", NULL}, NULL), 0);
	CHECK_INT(git(x, dir, (const char *[]){"commit", "-q", "-m", "m", NULL}, NULL), 0);
	char *head = NULL;
	CHECK_INT(git(x, dir, (const char *[]){"rev-parse", "HEAD", NULL}, &head), 0);
	CHECK_INT(provenance_collect_git(&p, x, "git", dir, &e), 0);
	CHECK_STR(p.commit, head);
	CHECK_INT(p.dirty_tree, 0);
	CHECK_INT(fs_write_atomic(f, "int y;\n", 7, &e), 0);
	CHECK_INT(provenance_collect_git(&p, x, "git", dir, &e), 0);
	CHECK_INT(p.dirty_tree, 1);
	char *top = NULL;
	CHECK_INT(provenance_git_toplevel(x, "git", dir, &top, &e), 0);
	CHECK(top && strstr(top, "nunatak-test-prov-") != NULL);
	executor__free(x);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void t_corpus_replay(void)
{
	const char *entry = TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c";
	if (!fs_exists(entry))
		FAIL_INPUT("corpus entry workload-c not found");
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	if (!x)
		FAIL_INPUT("replay executor unavailable");
	char *top = NULL;
	CHECK_INT(provenance_git_toplevel(x, "git", "/anywhere", &top, &e), 0);
	CHECK(top == NULL); /* recorded: exit 128, not a repository */
	struct provenance p = {0};
	p.dirty_tree = -1;
	CHECK_INT(provenance_collect_git(&p, x, "git", "/anywhere", &e), 0);
	CHECK(p.commit == NULL);
	CHECK_INT(p.dirty_tree, -1);
	executor__free(x);
}

static const struct test_case cases[] = {
	{"order_and_values", "toplevel, HEAD, then status; values parsed", t_order_and_values},
	{"not_a_repo", "HEAD failing leaves null fields and skips status", t_not_a_repo},
	{"no_git", "git absent (127): no toplevel", t_no_git},
	{"garbage_head", "output that is not an object id is not recorded", t_garbage_head},
	{"real_repository", "commit and dirtiness of a real repository", t_real_repository},
	{"corpus_replay", "the corpus's git answers (128) replay to nulls", t_corpus_replay},
};
TEST_MAIN(cases)
