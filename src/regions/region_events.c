// SPDX-License-Identifier: BSD-3-Clause
#include "regions/region_events.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "model/model.h"
#include "regions/callstack.h"
#include "regions/trace_set.h"

struct pick {
	int64_t duration_ns;
	size_t call;
};

static int longest_first(const void *a, const void *b)
{
	int64_t x = ((const struct pick *)a)->duration_ns, y = ((const struct pick *)b)->duration_ns;
	return (x < y) - (x > y);
}

int region_events_add(struct pivot *p, const struct calls *cl, const struct trace_set *ts,
		      const struct path_tree *pt, const char *node, int rank)
{
	struct pick *v = xcalloc(cl->n + 1, sizeof(*v));
	size_t n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < cl->n; i++)
		if (cl->depth[i] <= REGION_EVENTS_MAX_DEPTH && cl->end[i] > cl->start[i])
			v[n++] = (struct pick){cl->end[i] - cl->start[i], i};
	if (n > REGION_EVENTS_PER_RANK) {
		qsort(v, n, sizeof(*v), longest_first);
		n = REGION_EVENTS_PER_RANK;
	}
	int64_t locus = n ? pivot__intern_locus(p, node, rank, -1) : 0;
	int rc = locus < 0 ? -ENOMEM : 0;
	for (size_t k = 0; k < n && rc == 0; k++) {
		size_t i = v[k].call;
		char *path = path_tree__path(pt, ts, (int32_t)cl->node[i]);
		json_t *a = path ? json_pack("{s:s, s:i}", "path", path, "depth", cl->depth[i]) : NULL;
		char *attrs = a ? json_dumps(a, JSON_COMPACT) : NULL;
		struct event e = {.locus = locus, .kind = (char *)"region",
				  .name = ts->regions[cl->region[i]].name, .start_ns = cl->start[i],
				  .duration_ns = cl->end[i] - cl->start[i], .attributes = attrs};
		if (!attrs || pivot__add_event(p, &e) < 0)
			rc = -ENOMEM;
		free(attrs);
		json_decref(a);
		xfree(path);
	}
	xfree(v);
	return rc < 0 ? rc : (int)n;
}
