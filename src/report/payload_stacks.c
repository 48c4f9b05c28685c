// SPDX-License-Identifier: BSD-3-Clause
#include "report/payload_stacks.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "model/model.h"

#define CALLERS_MAX 20

static int cmp_sf(const void *x, const void *y)
{
	const struct stack_frame *a = *(const struct stack_frame *const *)x;
	const struct stack_frame *b = *(const struct stack_frame *const *)y;
	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	return (a->depth > b->depth) - (a->depth < b->depth);
}

int stack_index__build(struct stack_index *si, const struct pivot *p)
{
	memset(si, 0, sizeof(*si));
	si->nr_stacks = p->nr_stacks;
	si->v = xcalloc(p->nr_stack_frames + 1, sizeof(*si->v));
	si->first = xcalloc(p->nr_stacks + 1, sizeof(*si->first));
	if (!si->v || !si->first) {
		stack_index__release(si);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr_stack_frames; i++)
		if (p->stack_frames[i].stack >= 0 && (size_t)p->stack_frames[i].stack < p->nr_stacks)
			si->v[si->n++] = &p->stack_frames[i];
	qsort(si->v, si->n, sizeof(*si->v), cmp_sf);
	for (size_t s = 0; s < p->nr_stacks; s++)
		si->first[s] = si->n;
	for (size_t i = si->n; i-- > 0;)
		si->first[si->v[i]->stack] = i;
	return 0;
}

int stacks_lowest_pass(const struct pivot *p, const char *counter)
{
	int lo = -1;
	for (size_t s = 0; counter && s < p->nr_stacks; s++)
		if (p->stacks[s].counter && strcmp(p->stacks[s].counter, counter) == 0 &&
		    (lo < 0 || p->stacks[s].pass_index < lo))
			lo = p->stacks[s].pass_index;
	return lo;
}

void stack_index__release(struct stack_index *si)
{
	xfree(si->v);
	xfree(si->first);
	memset(si, 0, sizeof(*si));
}

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The frame is the Hotspot's function: same module and name. */
static bool is_hotspot(const struct stack_frame *f, const struct hotspot *h)
{
	return h->name && streq(f->function, h->name) && streq(f->module, h->module);
}

static char *frame_name(const struct stack_frame *f)
{
	if (f->function)
		return xstrdup(f->function);
	const char *base = f->module ? strrchr(f->module, '/') : NULL;
	base = base ? base + 1 : (f->module ? f->module : "?");
	return xasprintf("%s+0x%llx", base, (unsigned long long)f->offset);
}

static void add_share(json_t *acc, const char *name, double v)
{
	json_t *cur = json_object_get(acc, name);
	json_object_set_new(acc, name, json_real((cur ? json_real_value(cur) : 0) + v));
}

/* A stack unwound to the program's entry (or a thread's) is whole; one
 * that ends elsewhere was cut short (a DWARF stack copy too small, a frame
 * chain broken by code without frame pointers). */
static bool whole(const struct stack_frame *outer)
{
	static const char *const roots[] = {"_start", "__libc_start_main",
					    "__libc_start_call_main", "start_thread", "clone",
					    "clone3", "__clone", "__clone3", "thread_start"};
	for (size_t i = 0; outer->function && i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(outer->function, roots[i]))
			return true;
	return false;
}

static json_t *sorted_callers(json_t *acc, double total, double cut)
{
	char why[200] = "";
	if (cut > 0)
		snprintf(why, sizeof(why), "%.0f%% of this Hotspot's sampled stacks were cut short "
			 "before the program's entry: a caller may be missing from them",
			 100 * cut / total);
	json_t *arr = json_array();
	for (size_t k = 0; k < CALLERS_MAX && json_object_size(acc); k++) {
		const char *key, *best = NULL;
		json_t *val;
		double bv = -1;
		json_object_foreach(acc, key, val)
			if (json_real_value(val) > bv) {
				bv = json_real_value(val);
				best = key;
			}
		json_array_append_new(arr, json_pack("{s:s, s:o}", "name", best, "share",
						     quality__json(bv / total, "ratio",
								   cut > 0 ? QUALITY_ESTIMATED
									   : QUALITY_MEASURED,
								   cut > 0 ? why : NULL)));
		json_object_del(acc, best);
	}
	return arr;
}

void payload_stack_views(const struct pivot *p, const struct stack_index *si,
			 const char *time_base, int64_t hotspot, json_t **callers,
			 json_t **inclusive)
{
	const struct hotspot *h = &p->hotspots[hotspot];
	json_t *acc = json_object();
	double all = 0, leaf = 0, incl = 0, cut = 0;
	int pass = stacks_lowest_pass(p, time_base);
	for (size_t s = 0; time_base && s < p->nr_stacks; s++) {
		const struct stack *st = &p->stacks[s];
		if (!st->counter || strcmp(st->counter, time_base) != 0 || si->first[s] >= si->n ||
		    st->pass_index != pass)
			continue;
		all += st->value;
		const struct stack_frame *const *f = &si->v[si->first[s]];
		size_t depth = 0;
		while (si->first[s] + depth < si->n && f[depth]->stack == (int64_t)s)
			depth++;
		for (size_t d = 0; d < depth; d++)
			if (is_hotspot(f[d], h)) {
				incl += st->value; /* once per path */
				break;
			}
		if (!is_hotspot(f[0], h))
			continue;
		leaf += st->value;
		cut += whole(f[depth - 1]) ? 0 : st->value;
		char *name = depth > 1 ? frame_name(f[1]) : xstrdup("(root)");
		if (name)
			add_share(acc, name, st->value);
		xfree(name);
	}
	*callers = leaf > 0 ? sorted_callers(acc, leaf, cut) : json_array();
	json_decref(acc);
	*inclusive = all > 0 ? json_pack("{s:f, s:s, s:s, s:n, s:[s], s:s}", "value", incl / all,
					 "unit", "ratio", "quality", "measured", "reason",
					 "lineage", time_base, "formula",
					 "stacked time with the function on the path / all stacked time")
			     : quality__json(NAN, "ratio", QUALITY_UNAVAILABLE,
					     "not computed for this Run: inclusive time needs call "
					     "stacks");
}
