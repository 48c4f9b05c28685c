/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Call-stack reconstruction of one rank from its region intervals. Regions
 * carry no call graph: a call that starts while another is open on the same
 * lane is its child. The calls of all regions are merged in start order (a
 * k-way merge of the per-region arrays, which the library writes sorted;
 * unsorted regions are sorted first), then one pass keeps a stack per lane:
 * O(events log regions) in total, no per-call allocation.
 *
 * Ties: calls with the same start are ordered longest first, so the longer
 * one is the parent; identical intervals nest in region-id order. A call that
 * ends exactly when another starts does not contain it.
 */
#ifndef NUNATAK_REGIONS_CALLSTACK_H
#define NUNATAK_REGIONS_CALLSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hashtab.h"

struct err;
struct rank_data;
struct trace_set;

#define PT_KIDS 8

/* Call paths of the whole run, shared by every rank: node = (parent, region). */
struct path_tree {
	int32_t *parent; /* -1 for a root */
	uint32_t *region;
	int32_t *depth;
	size_t n, cap;
	uint64_t *hash;  /* per node: mix64((parent + 1) << 32 | region), the key itself */
	struct oatab idx; /* common/hashtab index over the nodes */
	uint32_t *kid_region; /* child cache: region + 1 (0 empty) per (parent + 1, slot) */
	int32_t *kid_node;
	size_t nr_kids;
};

void path_tree__init(struct path_tree *pt);
void path_tree__release(struct path_tree *pt);
/* Node of `region` under `parent` (-1: root), added if new; < 0 on ENOMEM. */
int64_t path_tree__child(struct path_tree *pt, int32_t parent, uint32_t region);
/* The per-parent cache in front of path_tree__child, inlined per call. */
static inline int64_t path_tree__child_fast(struct path_tree *pt, int32_t parent,
					    uint32_t region)
{
	size_t slot = (size_t)(parent + 1) * PT_KIDS + (region & (PT_KIDS - 1));
	if (slot < pt->nr_kids && pt->kid_region[slot] == region + 1)
		return pt->kid_node[slot];
	return path_tree__child(pt, parent, region);
}

/* " > "-joined names from the root to node; caller frees. */
char *path_tree__path(const struct path_tree *pt, const struct trace_set *ts, int32_t node);

/* One rank's calls in start order (call id = index). */
struct calls {
	size_t n;
	int64_t *start, *end; /* ns */
	int64_t *excl;        /* exclusive ns: own duration minus its children's */
	uint32_t *region;     /* id in the trace_set */
	uint32_t *call_index; /* position within the region's arrays */
	int32_t *parent;      /* call id, -1 for a top-level call */
	int32_t *depth;       /* 0 for a top-level call */
	int32_t *lane;        /* lane per call; all 0 when the rank has one lane */
	uint32_t *node;       /* path_tree node */
	int32_t nr_lanes;
	int64_t min_start, max_end; /* 0, 0 when n == 0 */
};

/* One reconstructed call, delivered when it closes (children before their
 * parent). id numbers calls in start order (0, 1, ...). */
struct call_event {
	int64_t start, end, excl;
	uint32_t region, call_index;
	int32_t id, parent, depth, lane;
	uint32_t node;
	int64_t parent_start, parent_end; /* valid when parent >= 0 */
};

/* Per call-path statistics of one rank, accumulated inline by the stream
 * (no event is built per call): per lane, because calls of one path node
 * under one parent call are consecutive in close order only within a lane. */
struct node_acc {
	uint64_t calls, total, excl, parent_ns; /* wrap only beyond 584 years */
	unsigned __int128 sumsq;               /* of durations, ns^2: exact variance */
	int64_t min, max, first, last; /* first start, last end */
	int32_t last_parent; /* call id of the last enclosing call counted */
	bool root_seen;
};

struct path_stats {
	struct node_acc **lane; /* [lane][node] */
	size_t *cap;
	int32_t nr_lanes;
	int64_t min_start, max_end;
	bool failed; /* out of memory while growing */
};

int path_stats__init(struct path_stats *ps, int32_t nr_lanes);
void path_stats__reset(struct path_stats *ps);
void path_stats__release(struct path_stats *ps);
/* Accumulators for the first n path nodes on every lane (the stream keeps
 * one per node of the tree, so closing a call looks nothing up). */
int path_stats__fit(struct path_stats *ps, size_t n);
/* max_end from the accumulators, once the rank's calls are all closed. */
void path_stats__end(struct path_stats *ps);

struct call_sink {
	struct path_stats *stats; /* optional: accumulate per path node */
	void (*close)(void *ctx, const struct call_event *ev); /* optional */
	void (*open)(void *ctx, int32_t id, int64_t start); /* optional: calls in start order */
	/* Optional: forget every call seen so far; the stream starts over (it
	 * does when a region of the trace is not in start order). */
	void (*reset)(void *ctx);
	void *ctx;
};

/*
 * The reconstruction itself, streamed: every call of rd reaches sink->close
 * once, with its parent, depth, exclusive time and call path; nothing is
 * stored per call. Errors as calls__build (the sink may have seen calls).
 */
int calls__stream(const struct rank_data *rd, const struct trace_set *ts, struct path_tree *pt,
		  const struct call_sink *sink, struct err *e);

/*
 * Reconstructs rd into *c (calls__stream stored in arrays), interning call paths into pt. Fails with
 * regions.nesting (two calls on one lane overlap without one containing the
 * other; the message names both: region, rank, lane, start, end),
 * regions.negative_duration, or trace.corrupt (a lane outside the thread
 * table), with the file and byte offset where one applies.
 */
int calls__build(struct calls *c, const struct rank_data *rd, const struct trace_set *ts,
		 struct path_tree *pt, struct err *e);
void calls__release(struct calls *c);

#endif
