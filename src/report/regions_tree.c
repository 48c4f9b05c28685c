// SPDX-License-Identifier: BSD-3-Clause
#include "report/regions_tree.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/regions_run.h"
#include "regions/summary.h"
#include "regions/trace_set.h"

struct node_stat {
	int64_t calls, incl, excl, first;
};

struct tctx {
	const struct tree_opts *o;
	const struct trace_set *ts;
	struct path_tree *pt;
	FILE *out;
	json_t *ranks; /* --json */
	struct node_stat *st; /* nr_lanes * pt->n, per rank */
	int32_t *kids;  /* children lists, per lane */
	size_t *koff;
};

static int cmp_first(const void *a, const void *b, void *ctx)
{
	const struct node_stat *st = ctx;
	int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
	if (st[i].first != st[j].first)
		return st[i].first < st[j].first ? -1 : 1;
	return (i > j) - (i < j);
}

/* Children of every node present in one lane, sorted by first entry:
 * kids[koff[n+1]..koff[n+2]) for node n, roots at koff[0]..koff[1). */
static int build_children(struct tctx *x, const struct node_stat *st)
{
	size_t nn = x->pt->n;
	xfree(x->kids);
	xfree(x->koff);
	x->kids = xmalloc((nn + 1) * sizeof(*x->kids));
	x->koff = xcalloc(nn + 3, sizeof(*x->koff));
	if (!x->kids || !x->koff)
		return -ENOMEM;
	for (size_t k = 0; k < nn; k++)
		if (st[k].calls)
			x->koff[(size_t)(x->pt->parent[k] + 1) + 1]++;
	for (size_t k = 1; k < nn + 2; k++)
		x->koff[k] += x->koff[k - 1];
	size_t *fill = xmalloc((nn + 2) * sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	memcpy(fill, x->koff, (nn + 2) * sizeof(*fill));
	for (size_t k = 0; k < nn; k++)
		if (st[k].calls)
			x->kids[fill[x->pt->parent[k] + 1]++] = (int32_t)k;
	xfree(fill);
	for (size_t k = 0; k < nn + 1; k++)
		qsort_r(x->kids + x->koff[k], x->koff[k + 1] - x->koff[k], sizeof(*x->kids),
			cmp_first, (void *)st);
	return 0;
}

static void print_one(struct tctx *x, const struct node_stat *st, int32_t k, int64_t lane_ns,
		      json_t *arr)
{
	int depth = x->pt->depth[k];
	const char *name = x->ts->regions[x->pt->region[k]].name;
	/* Full paths cost O(depth) each: built only when shown. */
	char *path = arr || x->o->paths ? path_tree__path(x->pt, x->ts, k) : NULL;
	if (arr) {
		json_array_append_new(arr, json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "path",
						     path ? path : "", "name", name, "depth", depth,
						     "calls", (json_int_t)st[k].calls, "inclusive_ns",
						     (json_int_t)st[k].incl, "exclusive_ns",
						     (json_int_t)st[k].excl));
	} else {
		char a[32], b[32];
		fprintf(x->out, "%12s  %12s  %6.1f  %9" PRId64 "  ",
			fmt_duration(a, sizeof(a), (double)st[k].incl),
			fmt_duration(b, sizeof(b), (double)st[k].excl),
			lane_ns > 0 ? 100.0 * (double)st[k].incl / (double)lane_ns : 0.0,
			st[k].calls);
		if (x->o->paths)
			fprintf(x->out, "%s\n", path ? path : name);
		else if (depth <= 32)
			fprintf(x->out, "%*s%s\n", 2 * depth, "", name);
		else /* deep recursion: cap the indent so lines stay linear in size */
			fprintf(x->out, "%*s[depth %d] %s\n", 64, "", depth, name);
	}
	xfree(path);
}

/* Depth first from the roots with an explicit stack: call paths can be as
 * deep as the recursion in the trace. */
static int print_tree(struct tctx *x, const struct node_stat *st, int64_t lane_ns, json_t *arr)
{
	size_t cap = 0, n = 0;
	int32_t *stack = NULL;
	if (xgrow((void **)&stack, &cap, x->koff[1] - x->koff[0] + 1, sizeof(*stack)))
		return -ENOMEM;
	for (size_t c = x->koff[1]; c-- > x->koff[0];)
		stack[n++] = x->kids[c];
	while (n) {
		int32_t k = stack[--n];
		if (x->o->max_depth >= 0 && x->pt->depth[k] > x->o->max_depth)
			continue;
		print_one(x, st, k, lane_ns, arr);
		size_t lo = x->koff[k + 1], hi = x->koff[k + 2];
		if (xgrow((void **)&stack, &cap, n + (hi - lo), sizeof(*stack))) {
			xfree(stack);
			return -ENOMEM;
		}
		for (size_t c = hi; c-- > lo;)
			stack[n++] = x->kids[c];
	}
	xfree(stack);
	return 0;
}

static json_t *lane_json(const struct rank_data *rd, int32_t l)
{
	const struct lane_info *li = &rd->lanes[l];
	return json_pack("{s:i, s:o, s:o, s:[]}", "lane", (int)l, "tid",
			 li->tid >= 0 ? json_integer(li->tid) : json_null(), "thread_name",
			 li->name ? json_string(li->name) : json_null(), "nodes");
}

static int print_lane(struct tctx *x, const struct rank_data *rd, int32_t l, json_t *lanes)
{
	struct node_stat *st = x->st + (size_t)l * x->pt->n;
	if (build_children(x, st))
		return -ENOMEM;
	int64_t lane_ns = 0;
	for (size_t c = x->koff[0]; c < x->koff[1]; c++)
		lane_ns += st[x->kids[c]].incl;
	json_t *lj = NULL;
	if (lanes) {
		lj = lane_json(rd, l);
		json_array_append_new(lanes, lj);
	} else {
		char t[32];
		fprintf(x->out, "rank %" PRId32, rd->rank);
		if (rd->nr_lanes > 1) {
			fprintf(x->out, ", lane %" PRId32, l);
			if (rd->lanes[l].name)
				fprintf(x->out, " (%s)", rd->lanes[l].name);
		}
		fprintf(x->out, ": %s in regions\n%12s  %12s  %6s  %9s  %s\n",
			fmt_duration(t, sizeof(t), (double)lane_ns), "inclusive", "exclusive",
			"%lane", "calls", "call path");
	}
	if (print_tree(x, st, lane_ns, lj ? json_object_get(lj, "nodes") : NULL))
		return -ENOMEM;
	if (!lanes)
		fputc('\n', x->out);
	return 0;
}

static int visit(void *ctx, size_t slot, const struct rank_data *rd, const struct calls *c,
		 struct err *e)
{
	struct tctx *x = ctx;
	(void)slot;
	size_t nn = x->pt->n;
	xfree(x->st);
	x->st = xcalloc(nn * (size_t)c->nr_lanes + 1, sizeof(*x->st));
	if (!x->st)
		return err_oom(e);
	for (size_t i = 0; i < c->n; i++) {
		struct node_stat *s = &x->st[(size_t)c->lane[i] * nn + c->node[i]];
		if (s->calls++ == 0)
			s->first = c->start[i];
		s->incl += c->end[i] - c->start[i];
		s->excl += c->excl[i];
	}
	json_t *lanes = NULL;
	if (x->ranks) {
		lanes = json_array();
		json_array_append_new(x->ranks, json_pack("{s:i, s:o}", "rank", (int)rd->rank,
							  "lanes", lanes));
	}
	for (int32_t l = 0; l < c->nr_lanes; l++)
		if (print_lane(x, rd, l, lanes))
			return err_oom(e);
	return 0;
}

int regions_tree(struct trace_set *ts, const struct tree_opts *o, FILE *out,
		 struct console *con, struct err *e)
{
	struct path_tree pt;
	path_tree__init(&pt);
	struct tctx x = {.o = o, .ts = ts, .pt = &pt, .out = out};
	if (o->json)
		x.ranks = json_array();
	int rc = regions_for_each_rank(ts, o->ranks, &pt, visit, &x, con, e);
	if (rc == 0 && o->json) {
		json_t *doc = json_pack("{s:s, s:i, s:s, s:O}", "schema", "nunatak.regions.tree",
					"schema_version", 1, "run", ts->label, "ranks", x.ranks);
		if (!doc || json_dumpf(doc, out, JSON_INDENT(2)) != 0)
			rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "cannot write the JSON tree");
		fputc('\n', out);
		json_decref(doc);
	}
	json_decref(x.ranks);
	xfree(x.st);
	xfree(x.kids);
	xfree(x.koff);
	path_tree__release(&pt);
	return rc;
}
