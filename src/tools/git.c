// SPDX-License-Identifier: BSD-3-Clause
#include "tools/git.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "store/manifest.h"

/* git status would otherwise refresh the index and take its lock, racing
 * with the user's own git commands in that repository. */
static const char *const git_env[] = {"GIT_OPTIONAL_LOCKS=0", NULL};

/* Runs git with args after "-C cwd"; *out gets stdout trimmed of trailing
 * blanks when git exits 0, else NULL. */
static int run_git(struct executor *x, const char *git, const char *cwd, const char *a1,
		   const char *a2, char **out, struct err *e)
{
	const char *argv[] = {git ? git : "git", "-C", cwd, a1, a2, NULL};
	struct exec_request rq = {.argv = argv, .env_set = git_env, .capture_stdout = true,
				  .capture_stderr = true, .timeout_s = 60};
	struct exec_result res;
	memset(&res, 0, sizeof(res));
	*out = NULL;
	int rc = executor__run(x, &rq, &res, e);
	if (rc == 0 && res.exit_code == 0 && !res.timed_out) {
		size_t n = res.out ? res.out_len : 0;
		while (n && strchr(" \t\r\n", res.out[n - 1]))
			n--;
		if (!(*out = xstrndup(res.out ? res.out : "", n)))
			rc = err_oom(e);
	}
	exec_result__release(&res);
	return rc;
}

int provenance_git_toplevel(struct executor *x, const char *git, const char *cwd,
			    char **toplevel_out,
			    struct err *e)
{
	int rc = run_git(x, git, cwd, "rev-parse", "--show-toplevel", toplevel_out, e);
	if (rc == 0 && *toplevel_out && !**toplevel_out)
		zfree(toplevel_out);
	return rc;
}

static bool is_object_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return s[n] == '\0' && (n == 40 || n == 64); /* SHA-1 or SHA-256 repositories */
}

int provenance_collect_git(struct provenance *p, struct executor *x, const char *git,
			   const char *cwd,
			   struct err *e)
{
	char *head = NULL, *status = NULL;
	zfree(&p->commit);
	p->dirty_tree = -1;
	int rc = run_git(x, git, cwd, "rev-parse", "HEAD", &head, e);
	if (rc || !head)
		goto out;
	if (!is_object_id(head))
		goto out; /* not what rev-parse prints: record nothing rather than noise */
	rc = run_git(x, git, cwd, "status", "--porcelain", &status, e);
	if (rc)
		goto out;
	p->commit = head;
	head = NULL;
	if (status)
		p->dirty_tree = status[0] != '\0';
out:
	xfree(head);
	xfree(status);
	return rc;
}
