// SPDX-License-Identifier: BSD-3-Clause
/* The Collector interface's shared parts: a pass's files, the dispatch, the
 * one launch of the application, and the bare collector (collect/collector.h). */
#include "collect/collector.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/perf_exit.h"
#include "collect/rank_shim.h"
#include "common/alloc.h"
#include "common/argv.h"
#include "common/console.h"
#include "common/timefmt.h"
#include "exec/exec.h"

int collect_pass__init(struct collect_pass *p, const char *collect_dir, int index, bool own_dir)
{
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->collector_exit = -1;
	p->dir = own_dir ? xasprintf("%s/pass-%d", collect_dir, index) : xstrdup(collect_dir);
	if (!p->dir)
		return -ENOMEM;
	if (own_dir && mkdir(p->dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	p->perf_data = xasprintf("%s/perf.data", p->dir);
	p->script_path = xasprintf("%s/perf-script.txt", p->dir);
	p->buildid_path = xasprintf("%s/perf-buildid-list.txt", p->dir);
	return p->perf_data && p->script_path && p->buildid_path ? 0 : -ENOMEM;
}

void collect_pass__release(struct collect_pass *p)
{
	xfree(p->dir);
	xfree(p->perf_data);
	xfree(p->script_path);
	xfree(p->buildid_path);
	memset(p, 0, sizeof(*p));
}

int collector__prepare(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct err *e)
{
	return c->ops->prepare ? c->ops->prepare(c, env, p, e) : 0;
}

int collector__launch(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		      struct exec_result *res, struct err *e)
{
	return c->ops->launch(c, env, p, res, e);
}

int collector__extract(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct err *e)
{
	return c->ops->extract ? c->ops->extract(c, env, p, e) : 0;
}

int collector__ingest(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		      const struct ingest_opts *o, struct pivot *pivot, struct collect_counts *out,
		      struct err *e)
{
	return c->ops->ingest ? c->ops->ingest(c, env, p, o, pivot, out, e) : 0;
}

void collector__describe(const struct collector *c, char *buf, size_t cap)
{
	if (c->ops->describe)
		c->ops->describe(c, buf, cap);
	else
		snprintf(buf, cap, "%s", c->ops->name);
}

const char *collector__refusal(const struct collector *c)
{
	return c->ops->refusal ? c->ops->refusal(c) : NULL;
}

void collector__free(struct collector *c)
{
	if (c)
		c->ops->free(c);
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void iso_now(char out[32])
{
	iso8601(time(NULL), ISO8601_UTC, out, 32);
}

/* An LD_PRELOAD for the application would load into `nunatak fg-exec`
 * too, whose start-up would then be sampled in nunatak's libraries: perf
 * runs the application itself then (the signal and status handling of
 * collect_fg_argv are lost for that Run). */
bool collect_env_preloads(const char *const *env_set)
{
	const char *inherited = getenv("LD_PRELOAD"); /* a shim's setenv, the user's own */
	if (inherited && *inherited)
		return true;
	for (const char *const *kv = env_set; kv && *kv; kv++)
		if (!strncmp(*kv, "LD_PRELOAD=", 11))
			return true;
	return false;
}

/* What the relay wrote (`fg-exec --status-fd`) is how the application
 * ended; perf's own status stands for it no longer. When perf exited with
 * another code (it stopped early: a full disk, a write error, and SIGTERMed
 * the relay, which waited on), *collector_exit is perf's. */
static void relayed_status(int fd, struct exec_result *res, int *collector_exit)
{
	char buf[32] = {0};
	int n = 0;
	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0 || res->abandoned)
		return;
	if (sscanf(buf, "signal %d", &n) == 1 && n > 0 && n < 128) {
		if (!res->term_signal && !res->wrapper_signal)
			*collector_exit = res->exit_code;
		res->term_signal = n;
		res->exit_code = 128 + n;
	} else if (sscanf(buf, "exit %d", &n) == 1 && n >= 0 && n < 256) {
		if (res->exit_code != n && !res->term_signal && !res->wrapper_signal)
			*collector_exit = res->exit_code;
		res->term_signal = 0;
		res->exit_code = n;
	}
}

char **collect_fg_argv(char *const *argv, int status_fd, pid_t pgid)
{
	return collect_fg_argv_ns(argv, status_fd, pgid, NULL);
}

char **collect_fg_argv_ns(char *const *argv, int status_fd, pid_t pgid, const char *return_ns)
{
	size_t n = 0, dd = 0;
	while (argv[n])
		n++;
	while (dd < n && strcmp(argv[dd], "--") != 0)
		dd++;
	char *self = dd + 1 < n ? rank_shim_self_exe() : NULL;
	char **v = self ? xcalloc(n + 12, sizeof(char *)) : NULL; /* 8 words and NULL */
	char *group = v ? xasprintf("%d", (int)(pgid > 0 ? pgid : getpgrp())) : NULL;
	char *fd = group ? xasprintf("%d", status_fd) : NULL;
	struct sigaction ttou;
	if (!fd || sigaction(SIGTTOU, NULL, &ttou) != 0) {
		xfree(self);
		xfree(v);
		xfree(group);
		xfree(fd);
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i <= dd; i++)
		v[k++] = argv[i];
	v[k++] = self;
	v[k++] = (char *)"fg-exec";
	v[k++] = (char *)"--pgid";
	v[k++] = group;
	v[k++] = (char *)"--status-fd";
	v[k++] = fd; /* -1: none, fg-exec becomes the application */
	if (ttou.sa_handler != SIG_IGN)
		v[k++] = (char *)"--ttou-default";
	if (return_ns) { /* perf in a namespace of its own (collect/perf_kallsyms.h) */
		v[k++] = (char *)"--return-ns";
		v[k++] = (char *)return_ns;
	}
	v[k++] = (char *)"--";
	for (size_t i = dd + 1; i < n; i++)
		v[k++] = argv[i];
	v[k] = NULL;
	return v;
}

void collect_fg_argv__free(char **v)
{
	if (!v)
		return;
	size_t dd = 0;
	while (strcmp(v[dd], "--") != 0)
		dd++;
	xfree(v[dd + 1]); /* self */
	xfree(v[dd + 4]); /* the pgid */
	xfree(v[dd + 6]); /* the status descriptor */
	xfree(v);
}

static int run_app(const struct collect_env *env, struct collect_pass *p, char *const *argv,
		   const char *wrapper_output, int ranks, const char *writers,
		   struct exec_result *res, struct err *e)
{
	/* perf in a group of its own, the application back in ours: a Ctrl-C
	 * reaches the application alone (collect_fg_argv); the relay's status
	 * in memory (a full disk cannot refuse it) */
	bool fg_ok = wrapper_output && !collect_env_preloads(env->env_set);
	int status_fd = fg_ok ? memfd_create("nunatak-app-status", 0) : -1;
	char **fg = fg_ok ? collect_fg_argv_ns(argv, status_fd, 0, p->return_ns) : NULL;
	struct exec_request rq = {.argv = (const char *const *)(fg ? fg : argv),
				  .forward_signals = true, .application = true,
				  .env_set = env->env_set, .output_path = wrapper_output,
				  .wrapper = wrapper_output != NULL, .own_pgrp = fg != NULL,
				  .local_ranks = ranks, .writers_lock = writers};
	iso_now(p->start);
	p->launched = true;
	p->mono_start = mono_now();
	int rc = executor__run(env->x, &rq, res, e);
	p->mono_end = mono_now();
	collect_fg_argv__free(fg);
	p->collector_exit = -1;
	if (rc == 0 && status_fd >= 0)
		relayed_status(status_fd, res, &p->collector_exit);
	if (status_fd >= 0)
		close(status_fd);
	/* perf re-raised the application's signal after finishing its output */
	if (rc == 0 && wrapper_output)
		perf_exit_reraised(res, perf_data_finished(wrapper_output));
	iso_now(p->end);
	p->duration_s = res->duration_s;
	return rc;
}

int collect_run_app(const struct collect_env *env, struct collect_pass *p, char *const *argv,
		    const char *wrapper_output, struct exec_result *res, struct err *e)
{
	return run_app(env, p, argv, wrapper_output, 0, NULL, res, e);
}

int collect_run_ranks(const struct collect_env *env, struct collect_pass *p, char *const *argv,
		      int world_size, struct exec_result *res, struct err *e)
{
	/* the ranks' shims may outlive the launcher (exec_rank_split) */
	char *writers = env->collect_dir
				? xasprintf("%s/%s", env->collect_dir, RANK_SHIM_WRITERS_LOCK)
				: NULL;
	int rc = run_app(env, p, argv, NULL, world_size > 0 ? world_size : 0, writers, res, e);
	xfree(writers);
	return rc;
}

static int bare_launch(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct exec_result *res, struct err *e)
{
	(void)c;
	char *shown = argv_join((const char *const *)env->app);
	console__info(env->con, "launching: %s", shown ? shown : env->app[0]);
	xfree(shown);
	return collect_run_app(env, p, env->app, NULL, res, e);
}

static void bare_free(struct collector *c)
{
	xfree(c);
}

static const struct collector_ops bare_ops = {
	.name = "bare", .launch = bare_launch, .free = bare_free};

struct collector *collector_bare__new(void)
{
	struct collector *c = xcalloc(1, sizeof(*c));
	if (c)
		c->ops = &bare_ops;
	return c;
}
