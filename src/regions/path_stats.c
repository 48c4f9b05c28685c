// SPDX-License-Identifier: BSD-3-Clause
/* Per call-path accumulators of one rank (callstack.h): their lifetime and
 * sizing; the stream (callstack.c) fills them inline. */
#include "regions/callstack.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"

#define ACC_EMPTY \
	((struct node_acc){.min = INT64_MAX, .max = INT64_MIN, .first = INT64_MAX, .last = INT64_MIN, \
			   .last_parent = -1})

int path_stats__init(struct path_stats *ps, int32_t nr_lanes)
{
	memset(ps, 0, sizeof(*ps));
	ps->nr_lanes = nr_lanes > 0 ? nr_lanes : 1;
	ps->lane = xcalloc((size_t)ps->nr_lanes, sizeof(*ps->lane));
	ps->cap = xcalloc((size_t)ps->nr_lanes, sizeof(*ps->cap));
	return ps->lane && ps->cap ? 0 : -ENOMEM;
}

void path_stats__reset(struct path_stats *ps)
{
	for (int32_t l = 0; l < ps->nr_lanes; l++)
		for (size_t i = 0; i < ps->cap[l]; i++)
			ps->lane[l][i] = ACC_EMPTY;
	ps->min_start = ps->max_end = 0;
	ps->failed = false;
}

void path_stats__release(struct path_stats *ps)
{
	for (int32_t l = 0; ps->lane && l < ps->nr_lanes; l++)
		xfree(ps->lane[l]);
	xfree(ps->lane);
	xfree(ps->cap);
	memset(ps, 0, sizeof(*ps));
}

/* The last end of any call: the latest node end (one pass over the nodes,
 * not a comparison per call). */
void path_stats__end(struct path_stats *ps)
{
	for (int32_t l = 0; l < ps->nr_lanes; l++)
		for (size_t i = 0; i < ps->cap[l]; i++)
			if (ps->lane[l][i].calls && ps->lane[l][i].last > ps->max_end)
				ps->max_end = ps->lane[l][i].last;
}

/* Every lane holds an accumulator for each of the first n path nodes: the
 * stream keeps it so for every node of the tree (at its start, and when it
 * adds a node), so closing a call looks nothing up. */
int path_stats__fit(struct path_stats *ps, size_t n)
{
	for (int32_t l = 0; l < ps->nr_lanes; l++) {
		size_t old = ps->cap[l];
		if (old >= n)
			continue;
		if (xgrow((void **)&ps->lane[l], &ps->cap[l], n, sizeof(**ps->lane))) {
			ps->failed = true;
			return -ENOMEM;
		}
		for (size_t i = old; i < ps->cap[l]; i++)
			ps->lane[l][i] = ACC_EMPTY;
	}
	return 0;
}
