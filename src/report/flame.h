/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flame graph of a Run: its sampled call stacks (pivot stacks and
 * stack_frames, depth 0 the hit) on the time base, merged over Loci into a
 * tree rooted at the outermost frame. Without call stacks the tree is one
 * level of Hotspots, under their region path when the Run has region
 * samples (regions meet samples), and says so (from_stacks false).
 *
 * Three renderings: the collapsed text of Brendan Gregg's FlameGraph
 * ("outer;...;leaf <ns>" per path, self time), speedscope's file format
 * (one "sampled" profile, weights in nanoseconds) and the payload's tree
 * (nodes below FLAME_PAYLOAD_MIN of the total are folded into their parent
 * so the page stays small).
 */
#ifndef NUNATAK_REPORT_FLAME_H
#define NUNATAK_REPORT_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct pivot;
typedef struct json_t json_t;

#define FLAME_PAYLOAD_MIN 0.001

struct flame_node {
	char *name;     /* owned */
	double value;   /* inclusive, in the time base's unit */
	size_t child;   /* first child, or 0 (the root is node 0, never a child) */
	size_t sibling; /* next sibling, or 0 */
};

struct flame {
	struct flame_node *v; /* v[0] is the root ("all") */
	size_t n, cap;
	const char *time_base; /* borrowed from the pivot, or NULL when nothing was sampled */
	const char *unit;      /* "ns" for clocks, else the counter's own */
	bool from_stacks;      /* false: Hotspots only (no call stacks in the Run) */
	bool with_regions;     /* region paths above the Hotspots */
};

/* Builds the tree. Returns 0 or -ENOMEM (release either way). */
int flame_build(struct flame *f, const struct pivot *p);
void flame_release(struct flame *f);

/* "a;b;c 123" lines (self values, rounded; zero-value paths skipped).
 * Returns 0 or -EIO. */
int flame_write_collapsed(const struct flame *f, FILE *out);
/* speedscope's file format; new reference or NULL when out of memory. */
json_t *flame_speedscope(const struct flame *f, const char *name);
/* {"unit","time_base","from_stacks","with_regions","root":{"n","v","c":[...]}}
 * or json null when nothing was sampled. */
json_t *flame_payload(const struct flame *f);

#endif
