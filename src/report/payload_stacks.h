/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The payload's call-stack views of one Hotspot (REFERENCE.md §7), from the
 * pivot's stacks and stack_frames (depth 0 is the hit), on the time base:
 *  - callers[{name, share}]: the immediate caller over the stacks whose leaf
 *    is the Hotspot's (module, function), share of those stacks' time, by
 *    decreasing share;
 *  - inclusive: the share of all stacked time with the function anywhere
 *    on the path, counted once per path (recursion is not double counted);
 *    null without stacks.
 */
#ifndef NUNATAK_REPORT_PAYLOAD_STACKS_H
#define NUNATAK_REPORT_PAYLOAD_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct pivot;
typedef struct json_t json_t;

/* Frames of every stack, ordered by (stack, depth): built once per payload. */
struct stack_index {
	const struct stack_frame **v;
	size_t n;
	size_t *first; /* first[s]: index in v of stack s's depth-0 frame, or n */
	size_t nr_stacks;
};

int stack_index__build(struct stack_index *si, const struct pivot *p);

/* The lowest pass whose stacks hold `counter` (a counter sampled in several
 * passes counts in its lowest), or -1. */
int stacks_lowest_pass(const struct pivot *p, const char *counter);
void stack_index__release(struct stack_index *si);

/* Fills *callers (array) and *inclusive (value object or json null) for
 * Hotspot `hotspot`. New references; NULL only when out of memory. */
void payload_stack_views(const struct pivot *p, const struct stack_index *si,
			 const char *time_base, int64_t hotspot, json_t **callers,
			 json_t **inclusive);

#endif
