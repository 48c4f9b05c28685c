// SPDX-License-Identifier: BSD-3-Clause
/*
 * One process for many per-line calls (exec.h merge_slot): the calls of a
 * batch that are equal but for argv[merge_slot] (llvm-symbolizer over one
 * module each: `--obj=M` and addresses on stdin) run as one process without
 * that argument, each call's stdin lines prefixed by its merge_prefix ("M"
 * then the address, which llvm-symbolizer reads as `obj addr`), and the
 * answer, one line per input line in order, is split back: each call gets
 * its own lines as if it had run alone. A first Run on a Machine pays one
 * start of the tool (libLLVM's loading, ~50 ms) instead of one per module.
 *
 * Faults stay per call: when the merged process fails (exit status, signal,
 * not one line per input), its calls run again one by one, so only the
 * faulty one fails. A timeout is every member's (running them again would
 * multiply the wait): each gets the lines answered before it and timed_out.
 * Only the real executor merges: a recording keeps one invocation per call
 * (the answer each got), so a replay serves them as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "exec/exec_internal.h"

static size_t argc_of(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

static bool same_list(const char *const *a, const char *const *b)
{
	size_t n = argc_of(a);
	if (n != argc_of(b))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

static bool mergeable(const struct exec_request *r)
{
	return r->merge_slot > 0 && r->merge_prefix && r->cache_per_line && r->stdin_data &&
	       r->capture_stdout && r->capture_stderr && !r->stdout_path && !r->application &&
	       !r->forward_signals && (size_t)r->merge_slot < argc_of(r->argv);
}

static bool same_call(const struct exec_request *a, const struct exec_request *b)
{
	size_t n = argc_of(a->argv);
	if (a->merge_slot != b->merge_slot || n != argc_of(b->argv) ||
	    !same_list(a->env_set, b->env_set) || !same_list(a->env_unset, b->env_unset) ||
	    (a->cwd || b->cwd ? !a->cwd || !b->cwd || strcmp(a->cwd, b->cwd) : false))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((int)i != a->merge_slot && strcmp(a->argv[i], b->argv[i]))
			return false;
	return true;
}

static size_t lines_in(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - s - i) : len - i;
		n += l > 0;
		i += l + 1;
	}
	return n;
}

/* Appends r's non-empty stdin lines, each prefixed, to *buf. */
static int append_lines(char **buf, size_t *len, size_t *cap, const struct exec_request *r)
{
	size_t pl = strlen(r->merge_prefix);
	for (size_t i = 0; i < r->stdin_len;) {
		const char *s = r->stdin_data + i, *nl = memchr(s, '\n', r->stdin_len - i);
		size_t l = nl ? (size_t)(nl - s) : r->stdin_len - i;
		i += l + 1;
		if (!l)
			continue;
		if (xgrow((void **)buf, cap, *len + pl + l + 2, 1))
			return -ENOMEM;
		memcpy(*buf + *len, r->merge_prefix, pl);
		memcpy(*buf + *len + pl, s, l);
		*len += pl + l;
		(*buf)[(*len)++] = '\n';
	}
	return 0;
}

/* One merged group: its members and the request that runs them. */
struct group {
	size_t *who, n;
	const char **argv;
	char *in;
	size_t in_len;
	struct exec_request req;
};

static int group_build(struct group *g, const struct exec_request *reqs)
{
	const struct exec_request *first = &reqs[g->who[0]];
	size_t argc = argc_of(first->argv), cap = 0, w = 0;
	if (!(g->argv = xcalloc(argc, sizeof(*g->argv))))
		return -ENOMEM;
	for (size_t i = 0; i < argc; i++)
		if ((int)i != first->merge_slot)
			g->argv[w++] = first->argv[i];
	g->req = *first;
	g->req.argv = g->argv;
	g->req.merge_slot = 0;
	g->req.merge_prefix = NULL;
	g->req.cacheable = g->req.cache_per_line = false;
	for (size_t k = 0; k < g->n; k++) {
		const struct exec_request *r = &reqs[g->who[k]];
		if (r->timeout_s <= 0 || g->req.timeout_s <= 0)
			g->req.timeout_s = 0;
		else if (r->timeout_s > g->req.timeout_s)
			g->req.timeout_s = r->timeout_s;
		if (append_lines(&g->in, &g->in_len, &cap, r))
			return -ENOMEM;
	}
	g->req.stdin_data = g->in ? g->in : "";
	g->req.stdin_len = g->in_len;
	return 0;
}

/* Member k's lines [from, from + count) of the merged answer into *out. */
static int give_lines(const struct exec_result *m, size_t from, size_t count,
		      struct exec_result *out)
{
	const char *s = m->out ? m->out : "", *end = s + m->out_len, *a = s;
	for (size_t i = 0; i < from && a < end; i++) {
		const char *nl = memchr(a, '\n', (size_t)(end - a));
		a = nl ? nl + 1 : end;
	}
	const char *b = a;
	for (size_t i = 0; i < count && b < end; i++) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		b = nl ? nl + 1 : end;
	}
	*out = *m;
	out->out = xmalloc((size_t)(b - a) + 1);
	out->err = xstrdup(m->err ? m->err : "");
	out->have_rusage = false;
	if (!out->out || !out->err)
		return -ENOMEM;
	memcpy(out->out, a, (size_t)(b - a));
	out->out_len = (size_t)(b - a);
	out->out[out->out_len] = '\0';
	out->err_len = strlen(out->err);
	return 0;
}

/* The merged answer back to each member; *rerun true when it failed. */
static int group_split(const struct group *g, const struct exec_request *reqs,
		       const struct exec_result *m, struct exec_result *res, bool *rerun)
{
	size_t total = 0;
	for (size_t k = 0; k < g->n; k++)
		total += lines_in(reqs[g->who[k]].stdin_data, reqs[g->who[k]].stdin_len);
	bool ok = m->exit_code == 0 && !m->term_signal && !m->timed_out &&
		  lines_in(m->out ? m->out : "", m->out_len) == total &&
		  (!m->out_len || m->out[m->out_len - 1] == '\n');
	*rerun = !ok && !m->timed_out;
	if (*rerun)
		return 0;
	for (size_t k = 0, from = 0; k < g->n; k++) {
		const struct exec_request *r = &reqs[g->who[k]];
		size_t count = lines_in(r->stdin_data, r->stdin_len);
		if (give_lines(m, from, count, &res[g->who[k]]))
			return -ENOMEM;
		from += count;
	}
	return 0;
}

/* Groups of >= 2 mergeable calls; grp[i] the group of call i or -1. */
static size_t plan(const struct exec_request *reqs, size_t n, long *grp, struct group *gs)
{
	size_t ng = 0;
	for (size_t i = 0; i < n; i++)
		grp[i] = -1;
	for (size_t i = 0; i < n; i++) {
		if (grp[i] >= 0 || !mergeable(&reqs[i]))
			continue;
		size_t members = 1;
		for (size_t j = i + 1; j < n; j++)
			members += grp[j] < 0 && mergeable(&reqs[j]) && same_call(&reqs[i], &reqs[j]);
		if (members < 2)
			continue;
		gs[ng].who = xcalloc(members, sizeof(size_t));
		if (!gs[ng].who)
			break;
		for (size_t j = i; j < n; j++)
			if (j == i || (grp[j] < 0 && mergeable(&reqs[j]) && same_call(&reqs[i], &reqs[j]))) {
				grp[j] = (long)ng;
				gs[ng].who[gs[ng].n++] = j;
			}
		ng++;
	}
	return ng;
}

static void groups_release(struct group *gs, size_t ng)
{
	for (size_t i = 0; gs && i < ng; i++) {
		xfree(gs[i].who);
		xfree(gs[i].argv);
		xfree(gs[i].in);
	}
	xfree(gs);
}

/* The calls of failed groups, one process each, into their res slots. */
static int rerun_alone(const struct exec_request *reqs, const size_t *who, size_t n,
		       struct exec_result *res, struct err *e, exec_batch_fn run)
{
	struct exec_request *rq = xcalloc(n ? n : 1, sizeof(*rq));
	struct exec_result *rr = xcalloc(n ? n : 1, sizeof(*rr));
	int rc = rq && rr ? 0 : err_oom(e);
	for (size_t k = 0; !rc && k < n; k++)
		rq[k] = reqs[who[k]];
	if (!rc && n)
		rc = run(rq, n, rr, e);
	for (size_t k = 0; rr && k < n; k++)
		res[who[k]] = rr[k]; /* moved */
	xfree(rq);
	xfree(rr);
	return rc;
}

int exec_merged_batch(const struct exec_request *reqs, size_t n, struct exec_result *res,
		      struct err *e, exec_batch_fn run)
{
	long *grp = xcalloc(n ? n : 1, sizeof(*grp));
	struct group *gs = xcalloc(n ? n : 1, sizeof(*gs));
	struct exec_request *rq = xcalloc(n ? n : 1, sizeof(*rq));
	struct exec_result *rr = xcalloc(n ? n : 1, sizeof(*rr));
	size_t *slot = xcalloc(n ? n : 1, sizeof(*slot)), *again = xcalloc(n ? n : 1, sizeof(*again));
	size_t ng = grp && gs ? plan(reqs, n, grp, gs) : 0, m = 0, nagain = 0;
	int rc = grp && gs && rq && rr && slot && again ? 0 : err_oom(e);
	for (size_t g = 0; !rc && g < ng; g++)
		if (group_build(&gs[g], reqs))
			rc = err_oom(e);
	/* issue order: each call alone, or its group where its first member is */
	for (size_t i = 0; !rc && i < n; i++) {
		if (grp[i] < 0) {
			rq[m] = reqs[i];
			slot[m++] = i;
		} else if (gs[grp[i]].who[0] == i) {
			rq[m] = gs[grp[i]].req;
			slot[m++] = n + (size_t)grp[i];
		}
	}
	if (!rc && m)
		rc = run(rq, m, rr, e);
	for (size_t k = 0; k < m; k++) {
		if (slot[k] < n) {
			res[slot[k]] = rr[k]; /* moved */
			continue;
		}
		const struct group *g = &gs[slot[k] - n];
		bool rerun = false;
		if (!rc && group_split(g, reqs, &rr[k], res, &rerun) < 0)
			rc = err_oom(e);
		for (size_t j = 0; rerun && j < g->n; j++)
			again[nagain++] = g->who[j];
		exec_result__release(&rr[k]);
	}
	if (!rc && nagain)
		rc = rerun_alone(reqs, again, nagain, res, e, run);
	groups_release(gs, ng);
	xfree(grp);
	xfree(rq);
	xfree(rr);
	xfree(slot);
	xfree(again);
	return rc;
}
