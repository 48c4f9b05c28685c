// SPDX-License-Identifier: BSD-3-Clause
/* One rank's calls materialised (callstack.h): a sink of the stream that
 * stores every call by id, for the readers that need them all at once. */
#include "regions/callstack.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/trace_set.h"

static int calls__alloc(struct calls *c, size_t n)
{
	size_t m = n ? n : 1;
	c->start = xmalloc(m * 8);
	c->end = xmalloc(m * 8);
	c->excl = xmalloc(m * 8);
	c->region = xmalloc(m * 4);
	c->call_index = xmalloc(m * 4);
	c->parent = xmalloc(m * 4);
	c->depth = xmalloc(m * 4);
	c->lane = xmalloc(m * 4);
	c->node = xmalloc(m * 4);
	if (!c->start || !c->end || !c->excl || !c->region || !c->call_index || !c->parent ||
	    !c->depth || !c->lane || !c->node)
		return -ENOMEM;
	return 0;
}

static void store_call(void *ctx, const struct call_event *ev)
{
	struct calls *c = ctx;
	int32_t i = ev->id;
	c->start[i] = ev->start;
	c->end[i] = ev->end;
	c->excl[i] = ev->excl;
	c->region[i] = ev->region;
	c->call_index[i] = ev->call_index;
	c->parent[i] = ev->parent;
	c->depth[i] = ev->depth;
	c->lane[i] = ev->lane;
	c->node[i] = ev->node;
	if (ev->end > c->max_end)
		c->max_end = ev->end;
}

static void store_reset(void *ctx)
{
	((struct calls *)ctx)->max_end = INT64_MIN; /* every id is written again */
}

int calls__build(struct calls *c, const struct rank_data *rd, const struct trace_set *ts,
		 struct path_tree *pt, struct err *e)
{
	memset(c, 0, sizeof(*c));
	size_t n = 0;
	for (size_t r = 0; r < rd->nr_regions; r++)
		n += (size_t)rd->regions[r].nr_calls;
	if (n <= INT32_MAX && calls__alloc(c, n)) {
		calls__release(c);
		return err_oom(e);
	}
	c->n = n;
	c->nr_lanes = rd->nr_lanes;
	c->max_end = INT64_MIN;
	struct call_sink sink = {.close = store_call, .reset = store_reset, .ctx = c};
	int rc = calls__stream(rd, ts, pt, &sink, e);
	if (rc == 0 && sink.stats && sink.stats->failed)
		rc = err_oom(e);
	if (rc) {
		calls__release(c);
		return rc;
	}
	c->min_start = n ? c->start[0] : 0;
	if (n == 0)
		c->max_end = 0;
	return 0;
}

void calls__release(struct calls *c)
{
	xfree(c->start);
	xfree(c->end);
	xfree(c->excl);
	xfree(c->region);
	xfree(c->call_index);
	xfree(c->parent);
	xfree(c->depth);
	xfree(c->lane);
	xfree(c->node);
	memset(c, 0, sizeof(*c));
}
