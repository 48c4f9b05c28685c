// SPDX-License-Identifier: BSD-3-Clause
#include "launch/split.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "launch/launchers.h"

const char *launcher_kind__name(enum launcher_kind k)
{
	switch (k) {
	case LAUNCHER_MPI: return "mpi";
	case LAUNCHER_OPENMPI: return "openmpi";
	case LAUNCHER_HYDRA: return "hydra";
	case LAUNCHER_SLURM: return "slurm";
	case LAUNCHER_JSRUN: return "jsrun";
	case LAUNCHER_APRUN: return "aprun";
	case LAUNCHER_FLUX: return "flux";
	case LAUNCHER_NONE: break;
	}
	return "none";
}

/* World-size evidence gathered from the first MPI launcher's options. */
struct ws_acc {
	long v[6]; /* indexed by enum ws_role; -1 when absent */
};

/* The walk's cursor over cmd. */
struct walk {
	char *const *cmd;
	size_t i, n;
	launch_resolver resolve;
	void *ctx;
	struct launch_plan *plan;
	struct ws_acc *ws; /* NULL once past the first MPI launcher */
};

static long parse_count(const char *s)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > 100000000)
		return -1; /* ranges ("2-4") and junk say nothing certain */
	return v;
}

static void ws_note(struct walk *w, const struct launch_opt *o, const char *value)
{
	if (!w->ws || !o || o->ws == WS_NONE)
		return;
	long v = parse_count(value);
	if (v > 0)
		w->ws->v[o->ws] = v;
}

/* An `X=Y` environment assignment (env's operands; skipped anywhere). */
static bool is_assignment(const char *t)
{
	if (!(isalpha((unsigned char)*t) || *t == '_'))
		return false;
	for (; *t && *t != '='; t++)
		if (!(isalnum((unsigned char)*t) || *t == '_'))
			return false;
	return *t == '=';
}

/*
 * One option token at w->i of tool t. Consumes it and its values. Returns 1
 * when the option is not in the tables (taken as a flag), 0 otherwise.
 */
static int take_option(struct walk *w, const struct launch_tool *t)
{
	const char *tok = w->cmd[w->i];
	const char *eq = strchr(tok, '=');
	const struct launch_opt *o = launch_tool__opt(t, tok);
	if (o) {
		w->i++;
		if (o->nargs >= 1 && w->i < w->n)
			ws_note(w, o, w->cmd[w->i]);
		w->i += o->nargs;
		if (w->i > w->n)
			w->i = w->n;
		return 0;
	}
	w->i++;
	if (eq && (tok[1] == '-' || t->style == STYLE_DASH_FREE)) {
		char name[64];
		size_t len = (size_t)(eq - tok);
		if (len < sizeof(name)) {
			memcpy(name, tok, len);
			name[len] = '\0';
			o = launch_tool__opt(t, name);
			ws_note(w, o, eq + 1);
		}
		return 0; /* --name=value: self-contained whatever the name */
	}
	if (tok[1] != '-' && tok[2]) {
		/* -n4, -oL: a short option with its value attached (Open MPI and
		 * hydra only for counts: -np and -nolocal are options of their own). */
		char name[3] = {'-', tok[1], '\0'};
		o = launch_tool__opt(t, name);
		if (o && o->nargs == 1 &&
		    (t->style == STYLE_GETOPT || parse_count(tok + 2) > 0)) {
			ws_note(w, o, tok + 2);
			return 0;
		}
	}
	if (tok[1] != '-' && isdigit((unsigned char)tok[1]))
		return 0; /* nice -10, a numeric flag */
	return 1;
}

/*
 * Walks tool t's options from w->i (just past its name) to its program
 * position. Returns 0, or -1 when the command ends first.
 */
static int walk_tool(struct walk *w, const struct launch_tool *t)
{
	int positionals = t->positionals;
	const char *unknown = NULL;
	while (w->i < w->n) {
		const char *tok = w->cmd[w->i];
		if (strcmp(tok, "--") == 0) {
			w->i++;
			return w->i < w->n ? 0 : -1;
		}
		if (tok[0] == '-' && tok[1]) {
			unknown = take_option(w, t) ? tok : NULL;
			continue;
		}
		if (positionals > 0) {
			positionals--;
			w->i++;
			continue;
		}
		if (is_assignment(tok) && !launch_tool_find(tok)) {
			w->i++;
			continue;
		}
		if (unknown && w->resolve && w->i + 1 < w->n && !launch_tool_find(tok) &&
		    !w->resolve(tok, w->ctx)) {
			/* An option missing from the tables, followed by a token that is
			 * no program: that token is most likely its value. */
			snprintf(w->plan->note, sizeof(w->plan->note),
				 "%s's option '%s' is not in nunatak's tables; '%s' was taken as its value",
				 t->name, unknown, tok);
			unknown = NULL;
			w->i++;
			continue;
		}
		return 0;
	}
	return -1;
}

/* flux: global options, then the subcommand (run, submit, `mini run`). */
static int walk_flux_subcommand(struct walk *w)
{
	while (w->i < w->n && w->cmd[w->i][0] == '-')
		w->i++;
	if (w->i < w->n && strcmp(w->cmd[w->i], "mini") == 0)
		w->i++;
	if (w->i >= w->n)
		return -1;
	const char *sub = w->cmd[w->i];
	if (strcmp(sub, "run") && strcmp(sub, "submit") && strcmp(sub, "bulksubmit")) {
		snprintf(w->plan->problem, sizeof(w->plan->problem),
			 "'flux %s' does not launch an application; only `flux run` and `flux submit` do",
			 sub);
		return -1;
	}
	w->i++;
	return 0;
}

static int world_size_of(const struct ws_acc *a, enum launcher_kind k)
{
	if (a->v[WS_TASKS] > 0)
		return (int)a->v[WS_TASKS];
	if (k == LAUNCHER_JSRUN && a->v[WS_RS] > 0)
		return (int)(a->v[WS_RS] * (a->v[WS_PER_RS] > 0 ? a->v[WS_PER_RS] : 1));
	if (a->v[WS_NODES] > 0 && a->v[WS_PER_NODE] > 0)
		return (int)(a->v[WS_NODES] * a->v[WS_PER_NODE]);
	return -1;
}

static void finish_plan(struct walk *w, size_t app_at, const char *last_tool)
{
	struct launch_plan *p = w->plan;
	p->nr_prefix = app_at;
	p->app = w->cmd + app_at;
	p->nr_app = w->n - app_at;
	p->target = p->nr_app ? p->app[0] : NULL;
	if (!p->nr_app && !p->problem[0])
		snprintf(p->problem, sizeof(p->problem),
			 "no application after %s and its options: nothing to profile in the ranks",
			 last_tool ? last_tool : "the launcher");
	else if (p->nr_app && w->resolve && !w->resolve(p->app[0], w->ctx))
		snprintf(p->problem, sizeof(p->problem),
			 "'%s' does not resolve to an executable (PATH or a path)", p->app[0]);
}

int launch_split_with(char *const *cmd, launch_resolver resolve, void *ctx,
		      struct launch_plan *plan, struct err *e)
{
	memset(plan, 0, sizeof(*plan));
	plan->world_size = -1;
	plan->prefix = cmd;
	plan->app = cmd;
	if (!cmd || !cmd[0])
		return err_set(e, -EINVAL, ERR_LAUNCH_EMPTY, "no command to run after `--`");
	struct ws_acc acc = {{-1, -1, -1, -1, -1, -1}};
	struct walk w = {cmd, 0, 0, resolve, ctx, plan, NULL};
	while (cmd[w.n])
		w.n++;
	const char *last_tool = NULL;
	while (w.i < w.n) {
		const char *tok = cmd[w.i];
		if (is_assignment(tok)) {
			w.i++;
			continue;
		}
		const struct launch_tool *t = launch_tool_find(tok);
		if (!t)
			break;
		last_tool = t->name;
		w.i++;
		bool first_launcher = t->kind != LAUNCHER_NONE && !plan->mpi;
		if (first_launcher) {
			plan->mpi = true;
			plan->kind = t->kind;
			plan->launcher = tok;
			w.ws = &acc;
		}
		int rc = t->subcommand ? walk_flux_subcommand(&w) : 0;
		if (rc == 0)
			rc = walk_tool(&w, t);
		if (first_launcher) {
			plan->world_size = world_size_of(&acc, t->kind);
			w.ws = NULL;
		}
		if (rc < 0) {
			w.i = w.n;
			break;
		}
	}
	finish_plan(&w, w.i, last_tool);
	return 0;
}

static bool resolve_path(const char *token, void *ctx)
{
	(void)ctx;
	char *path = NULL;
	int rc = exec_which(token, &path);
	xfree(path);
	return rc == 0;
}

int launch_split(char *const *cmd, struct launch_plan *plan, struct err *e)
{
	return launch_split_with(cmd, resolve_path, NULL, plan, e);
}

char **launch_plan__wrap(const struct launch_plan *plan, const char *const *shim)
{
	if (!plan->nr_app)
		return NULL;
	size_t nr_shim = 0;
	while (shim && shim[nr_shim])
		nr_shim++;
	size_t n = plan->nr_prefix + nr_shim + plan->nr_app;
	char **out = xcalloc(n + 1, sizeof(*out));
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < plan->nr_prefix; i++)
		out[k++] = plan->prefix[i];
	for (size_t i = 0; i < nr_shim; i++)
		out[k++] = (char *)shim[i];
	for (size_t i = 0; i < plan->nr_app; i++)
		out[k++] = plan->app[i];
	out[k] = NULL;
	return out;
}
