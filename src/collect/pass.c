// SPDX-License-Identifier: BSD-3-Clause
/* The Collector interface's shared parts: a pass's files, the dispatch, the
 * one launch of the application, and the bare collector (collect/collector.h). */
#include "collect/collector.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "collect/perf_exit.h"
#include "common/alloc.h"
#include "common/argv.h"
#include "common/console.h"
#include "common/timefmt.h"
#include "exec/exec.h"

int collect_pass__init(struct collect_pass *p, const char *collect_dir, int index, bool own_dir)
{
	memset(p, 0, sizeof(*p));
	p->index = index;
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

static void iso_now(char out[32])
{
	iso8601(time(NULL), ISO8601_UTC, out, 32);
}

int collect_run_app(const struct collect_env *env, struct collect_pass *p, char *const *argv,
		    const char *wrapper_output, struct exec_result *res, struct err *e)
{
	struct exec_request rq = {.argv = (const char *const *)argv, .forward_signals = true,
				  .application = true, .env_set = env->env_set,
				  .output_path = wrapper_output, .wrapper = wrapper_output != NULL};
	iso_now(p->start);
	p->launched = true;
	int rc = executor__run(env->x, &rq, res, e);
	/* perf re-raised the application's signal after finishing its output */
	if (rc == 0 && wrapper_output)
		perf_exit_reraised(res, perf_data_finished(wrapper_output));
	iso_now(p->end);
	p->duration_s = res->duration_s;
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
