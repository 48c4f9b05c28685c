// SPDX-License-Identifier: BSD-3-Clause
#include "collect/passes.h"

#include <errno.h>
#include <string.h>

static const char *label_of(const char *canonical)
{
	return strcmp(canonical, "dram_bytes") == 0 ? "memory" : canonical;
}

int passes_plan(const struct counter_group *g, struct pass_plan *out)
{
	memset(out, 0, sizeof(*out));
	if (!g)
		return -ENOENT;
	const struct counter_event *w = NULL;
	for (int i = 0; i < g->nr_events && !w; i++)
		if (strcmp(g->events[i].canonical, "flops") == 0)
			w = &g->events[i];
	if (!w)
		return -ENOENT;
	out->witness_event = w->event;
	out->witness = w->canonical;
	const char *canon[PASSES_MAX];
	for (int i = 0; i < g->nr_events; i++) { /* one pass per canonical counter, in order */
		int k = 0;
		while (k < out->nr && strcmp(canon[k], g->events[i].canonical) != 0)
			k++;
		if (k == out->nr) {
			if (out->nr == PASSES_MAX)
				continue;
			canon[out->nr] = g->events[i].canonical;
			out->labels[out->nr] = label_of(g->events[i].canonical);
			out->events[out->nr][0] = *w; /* the witness first, in every pass */
			out->groups[out->nr].nr_events = 1;
			out->nr++;
		}
		struct counter_group *pg = &out->groups[k];
		bool dup = strcmp(g->events[i].event, w->event) == 0;
		if (!dup && pg->nr_events < PASS_EVENTS_MAX)
			out->events[k][pg->nr_events++] = g->events[i];
	}
	for (int k = 0; k < out->nr; k++) {
		out->groups[k].uarch = g->uarch;
		out->groups[k].events = out->events[k];
	}
	return out->nr >= 2 ? 0 : -ENOENT;
}

double passes_spread(const double *totals, int n)
{
	if (n < 2)
		return -1;
	double lo = totals[0], hi = totals[0], sum = 0;
	for (int i = 0; i < n; i++) {
		lo = totals[i] < lo ? totals[i] : lo;
		hi = totals[i] > hi ? totals[i] : hi;
		sum += totals[i];
	}
	double mean = sum / n;
	return mean > 0 ? (hi - lo) / mean : -1;
}
