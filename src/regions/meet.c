// SPDX-License-Identifier: BSD-3-Clause
#include "regions/meet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/trace_set.h"

struct transition {
	int64_t t;
	int32_t lane;
	int32_t order; /* ties: closes (deepest first) before opens (shallowest first) */
	int32_t node;  /* state after the transition */
};

static int transition_cmp(const void *a, const void *b)
{
	const struct transition *x = a, *y = b;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Closes sort before opens at one instant; among closes the deepest first,
 * among opens the shallowest first, so the last transition at an instant
 * leaves the innermost call that is open just after it. */
static int32_t close_order(int32_t depth) { return -depth - 1; }
static int32_t open_order(int32_t depth) { return depth + 1; }

static int fill_lanes(struct region_timeline *tl, const struct transition *v, size_t n)
{
	size_t i = 0;
	while (i < n) {
		struct region_lane_tl *l = &tl->lanes[v[i].lane];
		size_t j = i;
		while (j < n && v[j].lane == v[i].lane)
			j++;
		l->t = xmalloc((j - i) * sizeof(*l->t));
		l->node = xmalloc((j - i) * sizeof(*l->node));
		if (!l->t || !l->node)
			return -ENOMEM;
		for (size_t k = i; k < j; k++) {
			/* Several transitions at one instant: the last one wins. */
			if (l->n && l->t[l->n - 1] == v[k].t)
				l->node[l->n - 1] = v[k].node;
			else {
				l->t[l->n] = v[k].t;
				l->node[l->n++] = v[k].node;
			}
		}
		i = j;
	}
	return 0;
}

int region_timeline__build(struct region_timeline *tl, const struct calls *c,
			   const struct rank_data *rd, struct err *e)
{
	memset(tl, 0, sizeof(*tl));
	int32_t nl = c->nr_lanes > 0 ? c->nr_lanes : 1;
	tl->lanes = xcalloc((size_t)nl, sizeof(*tl->lanes));
	struct transition *v = c->n ? xmalloc(2 * c->n * sizeof(*v)) : NULL;
	if (!tl->lanes || (c->n && !v)) {
		xfree(v);
		region_timeline__release(tl);
		return err_oom(e);
	}
	tl->nr_lanes = nl;
	for (int32_t i = 0; i < nl; i++)
		tl->lanes[i].tid = rd && i < rd->nr_lanes && rd->lanes ? rd->lanes[i].tid : -1;
	for (size_t i = 0; i < c->n; i++) {
		int32_t lane = c->lane[i] >= 0 && c->lane[i] < nl ? c->lane[i] : 0;
		int32_t parent = c->parent[i] >= 0 ? (int32_t)c->node[c->parent[i]] : -1;
		v[2 * i] = (struct transition){c->start[i], lane, open_order(c->depth[i]),
					       (int32_t)c->node[i]};
		v[2 * i + 1] = (struct transition){c->end[i], lane, close_order(c->depth[i]),
						   parent};
	}
	if (c->n)
		qsort(v, 2 * c->n, sizeof(*v), transition_cmp);
	int rc = fill_lanes(tl, v, 2 * c->n);
	xfree(v);
	if (rc) {
		region_timeline__release(tl);
		return err_set(e, rc, ERR_OOM, "out of memory");
	}
	return 0;
}

void region_timeline__release(struct region_timeline *tl)
{
	for (int32_t i = 0; tl->lanes && i < tl->nr_lanes; i++) {
		xfree(tl->lanes[i].t);
		xfree(tl->lanes[i].node);
	}
	xfree(tl->lanes);
	memset(tl, 0, sizeof(*tl));
}

int32_t region_timeline__lane(const struct region_timeline *tl, int64_t pid, int64_t tid)
{
	for (int32_t i = 0; i < tl->nr_lanes; i++) {
		int64_t lt = tl->lanes[i].tid;
		if (lt >= 0 ? lt == tid : tid == pid)
			return i;
	}
	return -1;
}

int32_t region_timeline__at(const struct region_timeline *tl, int32_t lane, int64_t t)
{
	if (lane < 0 || lane >= tl->nr_lanes)
		return -1;
	const struct region_lane_tl *l = &tl->lanes[lane];
	size_t lo = 0, hi = l->n; /* first transition after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? l->node[lo - 1] : -1;
}
