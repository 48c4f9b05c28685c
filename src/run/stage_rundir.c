// SPDX-License-Identifier: BSD-3-Clause
/* Stage "rundir": the Run's name (the cascade of docs/cli/run.md, --name) and its
 * directory <runs_dir>/<name>-YYYYMMDD-HHMMSS (-2, -3 ... on collision). */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_config.h"
#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "common/fsutil.h"
#include "common/timefmt.h"
#include "tools/git.h"
#include "store/rundir.h"

/* The git toplevel through the executor (the corpus answers 128). */
static char *git_toplevel(struct run_state *s, struct err *e)
{
	char cwd[PATH_MAX];
	char *top = NULL;
	if (getcwd(cwd, sizeof(cwd)))
		provenance_git_toplevel(s->x, config__tool(s->cfg, "git"), cwd, &top, e);
	return top;
}

/* nunatak's own source tree is the tool's repository, not the program's:
 * its bundled examples (build/examples/...) are named after themselves. */
static bool is_nunatak_tree(const char *top)
{
	char *a = top ? realpath(top, NULL) : NULL, *b = realpath(NUNATAK_SOURCE_DIR, NULL);
	bool same = a && b && strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

int stage_rundir(struct run_state *s, struct err *e)
{
	const char *runs_dir = s->cfg->runs_dir ? s->cfg->runs_dir : ".nunatak";
	/* cfg->name also holds --name (flags layer); the cascade wants them apart
	 * only for the order, which is the same. */
	const char *cfg_name = s->cfg->name;
	/* git is asked only when the cascade gets that far, as the recordings did. */
	char *git = s->req->name || cfg_name ? NULL : git_toplevel(s, e);
	if (git && !s->replay && is_nunatak_tree(git))
		zfree(&git);
	s->rundir.name = rundir_pick_name(s->req->name, cfg_name, git, s->launch.target);
	xfree(git);
	if (!s->rundir.name)
		return err_oom(e);
	int rc;
	if (s->req->output) {
		if ((rc = rundir_create_exact(s->req->output, e)) < 0)
			return rc;
		s->rundir.dir = xstrdup(s->req->output);
	} else if ((rc = rundir_create(runs_dir, s->rundir.name, time(NULL), &s->rundir.dir, e)) < 0) {
		return rc;
	}
	/* Absolute, so `Run:` and --json name it whatever the caller's cwd. */
	char *abs = realpath(s->rundir.dir, NULL);
	if (abs) {
		xfree(s->rundir.dir);
		s->rundir.dir = xstrdup(abs);
		free(abs); /* realpath's buffer comes from libc's malloc */
	}
	iso8601(time(NULL), ISO8601_UTC, s->rundir.created, sizeof(s->rundir.created));
	s->rundir.collect_dir = fs_join(s->rundir.dir, "collect");
	if (!s->rundir.collect_dir || (rc = fs_mkdir_p(s->rundir.collect_dir)) < 0)
		return err_set(e, rc ? rc : -ENOMEM, ERR_STORE_MKDIR, "cannot create %s/collect",
			       s->rundir.dir);
	return 0;
}
