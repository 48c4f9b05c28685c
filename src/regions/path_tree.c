// SPDX-License-Identifier: BSD-3-Clause
/* The call-path tree shared by every rank of a run (callstack.h). */
#include "regions/callstack.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "regions/trace_set.h"

void path_tree__init(struct path_tree *pt)
{
	memset(pt, 0, sizeof(*pt));
}

void path_tree__release(struct path_tree *pt)
{
	xfree(pt->parent);
	xfree(pt->region);
	xfree(pt->depth);
	xfree(pt->hash);
	oatab__release(&pt->idx);
	xfree(pt->kid_region);
	xfree(pt->kid_node);
	memset(pt, 0, sizeof(*pt));
}

static int64_t path_tree__lookup(struct path_tree *pt, int32_t parent, uint32_t region);

/* Every call asks for its node; a per-parent cache of 8 children (by region
 * id) answers nearly all of them without hashing. Slot 0 is the roots. */
int64_t path_tree__child(struct path_tree *pt, int32_t parent, uint32_t region)
{
	size_t slot = (size_t)(parent + 1) * PT_KIDS + (region & (PT_KIDS - 1));
	if (slot < pt->nr_kids && pt->kid_region[slot] == region + 1)
		return pt->kid_node[slot];
	int64_t node = path_tree__lookup(pt, parent, region);
	if (node < 0)
		return node;
	size_t need = (pt->n + 1) * PT_KIDS;
	if (need > pt->nr_kids) {
		size_t cap = pt->nr_kids, cap2 = pt->nr_kids;
		if (xgrow((void **)&pt->kid_region, &cap, need * 2, sizeof(*pt->kid_region)) ||
		    xgrow((void **)&pt->kid_node, &cap2, need * 2, sizeof(*pt->kid_node)))
			return node; /* the cache is an optimisation only */
		size_t n = cap < cap2 ? cap : cap2;
		memset(pt->kid_region + pt->nr_kids, 0, (n - pt->nr_kids) * sizeof(*pt->kid_region));
		pt->nr_kids = n;
	}
	if (slot < pt->nr_kids) {
		pt->kid_region[slot] = region + 1;
		pt->kid_node[slot] = (int32_t)node;
	}
	return node;
}

/* mix64 is a bijection, so equal hashes mean equal (parent, region) keys. */
static int64_t path_tree__lookup(struct path_tree *pt, int32_t parent, uint32_t region)
{
	uint64_t h = mix64((uint64_t)(uint32_t)(parent + 1) << 32 | region);
	for (size_t j = h & pt->idx.mask; pt->idx.slot && pt->idx.slot[j];
	     j = (j + 1) & pt->idx.mask)
		if (pt->hash[pt->idx.slot[j] - 1] == h)
			return pt->idx.slot[j] - 1;
	if (pt->n == pt->cap) {
		size_t cap = pt->cap;
		if (xgrow((void **)&pt->parent, &cap, pt->n + 1, sizeof(*pt->parent)))
			return -ENOMEM;
		cap = pt->cap;
		if (xgrow((void **)&pt->region, &cap, pt->n + 1, sizeof(*pt->region)))
			return -ENOMEM;
		cap = pt->cap;
		if (xgrow((void **)&pt->depth, &cap, pt->n + 1, sizeof(*pt->depth)))
			return -ENOMEM;
		cap = pt->cap;
		if (xgrow((void **)&pt->hash, &cap, pt->n + 1, sizeof(*pt->hash)))
			return -ENOMEM;
		pt->cap = cap;
	}
	pt->parent[pt->n] = parent;
	pt->region[pt->n] = region;
	pt->depth[pt->n] = parent < 0 ? 0 : pt->depth[parent] + 1;
	pt->hash[pt->n] = h;
	if (oatab__insert(&pt->idx, h, (uint32_t)pt->n + 1, pt->hash, sizeof(*pt->hash)))
		return -ENOMEM;
	return (int64_t)pt->n++;
}

char *path_tree__path(const struct path_tree *pt, const struct trace_set *ts, int32_t node)
{
	size_t len = 0;
	for (int32_t n = node; n >= 0; n = pt->parent[n])
		len += strlen(ts->regions[pt->region[n]].name) + 3;
	char *s = xmalloc(len + 1);
	if (!s)
		return NULL;
	size_t at = len - 3; /* fill from the end: leaf last */
	s[at] = '\0';
	for (int32_t n = node; n >= 0; n = pt->parent[n]) {
		const char *nm = ts->regions[pt->region[n]].name;
		size_t l = strlen(nm);
		at -= l;
		memcpy(s + at, nm, l);
		if (pt->parent[n] >= 0) {
			at -= 3;
			memcpy(s + at, " > ", 3);
		}
	}
	return s;
}

