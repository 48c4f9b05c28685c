// SPDX-License-Identifier: BSD-3-Clause
#include "regions/callstack.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/trace_set.h"

/* One region's calls, consumed in (start asc, end desc) order. */
struct cursor {
	const struct rank_region *r;
	const unsigned char *starts, *ends, *lanes; /* copies of r's: one load less per call */
	int64_t nr_calls;
	uint32_t *perm; /* NULL when the arrays are already in order */
	int64_t pos;
	int32_t last_parent; /* the path node of the last call's parent... */
	uint32_t last_node;  /* ...and the call's own: calls repeat their parent */
	bool swap;
};

/* The merge heap holds each cursor's current call inline, so a comparison
 * touches one cache line instead of chasing the cursor. */
struct head {
	int64_t s, e;
	uint32_t id;  /* region id: the tie-break of identical intervals */
	uint32_t cur; /* cursor index */
};

static inline bool head_less(const struct head *a, const struct head *b)
{
	if (a->s != b->s)
		return a->s < b->s;
	if (a->e != b->e)
		return a->e > b->e;
	return a->id < b->id;
}

/* Whether a region's next call h comes before its previous one [ps, pe] in
 * the (start asc, end desc) order: the region is not sorted. */
static inline bool before(const struct head *h, int64_t ps, int64_t pe)
{
	return h->s < ps || (h->s == ps && h->e > pe);
}

/* `fast`, a constant where these are inlined: no permutation, native byte
 * order, no per-call callbacks (what a summary streams); the generic path
 * keeps the branches. */
static inline __attribute__((always_inline)) int64_t cursor__index(const struct cursor *k,
								   bool fast)
{
	return !fast && k->perm ? k->perm[k->pos] : k->pos;
}

static inline __attribute__((always_inline)) void cursor__load_inline(const struct cursor *k,
								 struct head *h, bool fast)
{
	int64_t i = cursor__index(k, fast);
	if (fast) {
		if ((i & 7) == 0 && i + 64 < k->nr_calls) {
			__builtin_prefetch(k->starts + 8 * (i + 64));
			__builtin_prefetch(k->ends + 8 * (i + 64));
		}
		memcpy(&h->s, k->starts + 8 * i, 8);
		memcpy(&h->e, k->ends + 8 * i, 8);
		return;
	}
	/* A dozen interleaved streams (two per region) is more than the hardware
	 * prefetcher follows reliably; ask for the next lines ahead. */
	if (!k->perm && (i & 7) == 0 && i + 32 < k->nr_calls) {
		__builtin_prefetch(k->starts + 8 * (i + 32));
		__builtin_prefetch(k->ends + 8 * (i + 32));
	}
	h->s = spt_load_i64(k->starts + 8 * i, k->swap);
	h->e = spt_load_i64(k->ends + 8 * i, k->swap);
}

static void cursor__load(const struct cursor *k, struct head *h)
{
	cursor__load_inline(k, h, false);
}

static int cmp_perm(const void *a, const void *b, void *ctx)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct cursor *k = ctx;
	const struct rank_region *r = k->r;
	int64_t si = spt_load_i64(r->starts + 8 * i, k->swap),
		sj = spt_load_i64(r->starts + 8 * j, k->swap);
	int64_t ei = spt_load_i64(r->ends + 8 * i, k->swap),
		ej = spt_load_i64(r->ends + 8 * j, k->swap);
	if (si != sj)
		return si < sj ? -1 : 1;
	if (ei != ej)
		return ei > ej ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Checks the order the library promises (when `check`); sorts a permutation
 * when it does not hold. Without `check` the merge verifies the order as it
 * goes and restarts with checking on the first violation. */
static int cursor__init(struct cursor *k, const struct rank_region *r, bool swap, bool check)
{
	memset(k, 0, sizeof(*k));
	k->r = r;
	k->starts = r->starts;
	k->ends = r->ends;
	k->lanes = r->lanes;
	k->nr_calls = r->nr_calls;
	k->swap = swap;
	k->last_parent = INT32_MIN;
	if (!check)
		return 0;
	int64_t ps = INT64_MIN, pe = INT64_MAX;
	bool sorted = true;
	for (int64_t i = 0; i < r->nr_calls && sorted; i++) {
		int64_t s = spt_load_i64(r->starts + 8 * i, swap), e = spt_load_i64(r->ends + 8 * i, swap);
		sorted = s > ps || (s == ps && e <= pe);
		ps = s;
		pe = e;
	}
	if (sorted)
		return 0;
	k->perm = xmalloc((size_t)r->nr_calls * sizeof(*k->perm));
	if (!k->perm)
		return -ENOMEM;
	for (int64_t i = 0; i < r->nr_calls; i++)
		k->perm[i] = (uint32_t)i;
	qsort_r(k->perm, (size_t)r->nr_calls, sizeof(*k->perm), cmp_perm, k);
	return 0;
}

static void heap_down(struct head *h, size_t n, size_t i)
{
	struct head x = h[i];
	for (;;) {
		size_t l = 2 * i + 1;
		if (l >= n)
			break;
		if (l + 1 < n && head_less(&h[l + 1], &h[l]))
			l++;
		if (!head_less(&h[l], &x))
			break;
		h[i] = h[l];
		i = l;
	}
	h[i] = x;
}

/* An open call on a lane's stack: 32 bytes, so that a frame's address is a
 * shift of its index. Its region is its path node's; its position in the
 * region's arrays, which only the callbacks want, is kept beside. */
struct frame {
	int64_t s, e, child_ns;
	int32_t id;
	uint32_t node;
};

struct lane_stack {
	struct frame *v;
	uint32_t *call_index; /* per frame; written only when not `fast` */
	size_t n, cap;
};

struct stream {
	const struct rank_data *rd;
	const struct trace_set *ts;
	struct path_tree *pt;
	const struct call_sink *sink;
	struct path_stats *stats; /* sink->stats, hoisted */
	void (*close)(void *ctx, const struct call_event *ev);
	struct err *e;
	struct lane_stack *stacks;
	int32_t next_id;
	bool exact; /* equal starts met: settle them by the full key */
};

/* open_call's answer when a fast pass meets two calls of one lane starting at
 * the same ns: the pass starts over with ties settled (the `exact` scan). */
#define RESTART_EXACT 1

static inline void acc_close(struct node_acc *accs, const struct frame *f, const struct frame *p,
			     int64_t d)
{
	struct node_acc *a = &accs[f->node];
	/* Calls of one path node on one lane never overlap (a call starting
	 * inside another of the same path would be its descendant, a deeper
	 * node), so they close in start order: the first closed holds the first
	 * start, the latest the last end. */
	if (!a->calls)
		a->first = f->s;
	a->last = f->e;
	a->min = d < a->min ? d : a->min;
	a->max = d > a->max ? d : a->max;
	a->calls++;
	a->total += (uint64_t)d;
	a->excl += (uint64_t)(d - f->child_ns);
	a->sumsq += (unsigned __int128)d * (unsigned __int128)d;
	if (!p) {
		a->root_seen = true;
	} else if (a->last_parent != p->id) {
		a->parent_ns += (uint64_t)(p->e - p->s);
		a->last_parent = p->id;
	}
}

/* accs: the lane's accumulators (st->stats->lane[lane]), NULL without stats. */
static inline __attribute__((always_inline)) void close_top_inline(struct stream *st,
							       struct lane_stack *ls, int32_t lane,
							       struct node_acc *accs, bool fast)
{
	struct frame *f = &ls->v[--ls->n];
	struct frame *p = ls->n ? &ls->v[ls->n - 1] : NULL;
	int64_t d = f->e - f->s;
	if (fast || accs)
		acc_close(accs, f, p, d);
	if (!fast && st->close) {
		struct call_event ev = {f->s, f->e, d - f->child_ns, st->pt->region[f->node],
					ls->call_index[ls->n],
					f->id, p ? p->id : -1, (int32_t)ls->n, lane, f->node,
					p ? p->s : 0, p ? p->e : 0};
		st->close(st->sink->ctx, &ev);
	}
	if (p)
		p->child_ns += d;
}

static void close_top(struct stream *st, struct lane_stack *ls, int32_t lane)
{
	close_top_inline(st, ls, lane, st->stats ? st->stats->lane[lane] : NULL, false);
}

static int nesting_error(const struct stream *st, const struct frame *outer, int32_t lane,
			 const struct head *h)
{
	return err_set(st->e, -EINVAL, ERR_REGIONS_NESTING,
		       "%s: rank %" PRId32 " lane %" PRId32 ": regions do not nest: '%.60s' [%" PRId64
		       ", %" PRId64 "] ns starts inside '%.60s' [%" PRId64 ", %" PRId64
		       "] ns and ends after it (a mismatched begin/end, or threads recorded "
		       "without lanes)",
		       st->rd->path, st->rd->rank, lane, st->ts->regions[h->id].name, h->s, h->e,
		       st->ts->regions[st->pt->region[outer->node]].name, outer->s, outer->e);
}

/* The error half of check_call, kept out of the hot loop. */
static __attribute__((noinline, cold)) int32_t bad_call(struct stream *st,
							const struct cursor *k,
							const struct head *h, int64_t idx,
							int32_t lane)
{
	if (lane < 0 || lane >= st->rd->nr_lanes)
		err_set(st->e, -EINVAL, ERR_TRACE_CORRUPT,
			"%s: byte %zu: expected a lane 0..%" PRId32 " (thread table), found %" PRId32,
			st->rd->path, k->r->lanes_offset + 4 * (size_t)idx, st->rd->nr_lanes - 1,
			lane);
	else if (h->s < 0)
		err_set(st->e, -EINVAL, ERR_TRACE_CORRUPT,
			"%s: byte %zu: call %" PRId64 " of region '%.60s' starts at %" PRId64
			" ns: expected a CLOCK_MONOTONIC time (>= 0)",
			st->rd->path, k->r->starts_offset + 8 * (size_t)idx, idx,
			st->ts->regions[h->id].name, h->s);
	else
		err_set(st->e, -EINVAL, ERR_REGIONS_NEGATIVE_DURATION,
			"%s: byte %zu: call %" PRId64 " of region '%.60s' ends (%" PRId64
			" ns) before it starts (%" PRId64 " ns)",
			st->rd->path, k->r->starts_offset + 8 * (size_t)idx, idx,
			st->ts->regions[h->id].name, h->e, h->s);
	return -1;
}

/* Validates the call at the top of the heap and returns its lane (< 0: error).
 * `one`: the rank has one lane and no lane column (see one_lane). */
static inline __attribute__((always_inline)) int32_t check_call(struct stream *st,
								 const struct cursor *k,
								 const struct head *h,
								 int64_t idx, uint32_t nr_lanes,
								 bool fast, bool one)
{
	int32_t lane = 0;
	if (one)
		; /* lane 0, nothing to read */
	else if (k->lanes && fast)
		memcpy(&lane, k->lanes + 4 * idx, 4);
	else if (k->lanes)
		lane = spt_load_i32(k->lanes + 4 * idx, k->swap);
	/* s >= 0 and e >= s in one test: with s and e both >= 0, e - s cannot
	 * wrap and is negative exactly when e < s; a negative s or e (e < 0 <= s
	 * is also e < s) shows in its own sign bit. */
	uint64_t sign = (uint64_t)h->s | (uint64_t)h->e | ((uint64_t)h->e - (uint64_t)h->s);
	if (__builtin_expect((uint32_t)lane >= nr_lanes || (int64_t)sign < 0, 0))
		return bad_call(st, k, h, idx, lane);
	return lane;
}

/* The node of a call path the child cache did not hold (added if new); every
 * lane's accumulators grow with the tree. */
static __attribute__((noinline)) int64_t new_node(struct stream *st, int32_t parent,
						  uint32_t region)
{
	int64_t node = path_tree__child(st->pt, parent, region);
	if (node >= 0 && st->stats && path_stats__fit(st->stats, st->pt->n))
		return -ENOMEM;
	return node;
}

/* A merge's running state, a local of the merge loop (kept in registers: no
 * store through a frame or an accumulator can alias it): the next call id,
 * the lane count and, for a rank of one lane (`one`), that lane's stack and
 * accumulators (acc0 follows them when a new path node grows them). */
struct run {
	struct lane_stack lane0;
	struct node_acc *acc0;
	int64_t last_s; /* `one`: the start of the last call opened (its stack's top) */
	int32_t next_id;
	uint32_t nr_lanes;
	bool one;
};

static void run__begin(struct run *r, const struct stream *st, bool one)
{
	*r = (struct run){.last_s = INT64_MIN, .next_id = st->next_id,
			  .nr_lanes = (uint32_t)st->rd->nr_lanes, .one = one};
	if (one)
		r->lane0 = st->stacks[0];
	if (one && st->stats)
		r->acc0 = st->stats->lane[0];
}

static void run__end(const struct run *r, struct stream *st)
{
	st->next_id = r->next_id;
	if (r->one)
		st->stacks[0] = r->lane0;
}

/* A stack one frame larger (by value: the caller's copy stays unaliased);
 * capacity unchanged when out of memory. */
static __attribute__((noinline, cold)) struct lane_stack lane_stack__grown(struct lane_stack ls)
{
	size_t cap = ls.cap;
	void *v = ls.v;
	if (xgrow(&v, &cap, ls.n + 1, sizeof(*ls.v)))
		return ls;
	ls.v = v; /* larger than cap says, until call_index follows */
	void *ci = xrealloc(ls.call_index, cap * sizeof(*ls.call_index));
	if (ci) {
		ls.call_index = ci;
		ls.cap = cap;
	}
	return ls;
}

/* Opens the heap's top call on its lane: closes what ended before it. */
static inline __attribute__((always_inline)) int open_call(struct stream *st, struct run *r,
							   struct cursor *k,
							   const struct head *h, bool fast,
							   bool exact, bool one)
{
	int64_t idx = cursor__index(k, fast);
	int32_t lane = check_call(st, k, h, idx, r->nr_lanes, fast, one);
	if (lane < 0)
		return -EINVAL;
	struct lane_stack *ls = one ? &r->lane0 : &st->stacks[lane];
	struct node_acc *accs = one && fast ? r->acc0 : st->stats ? st->stats->lane[lane] : NULL;
	/* The last call opened on this lane is on top of its stack; calls open
	 * in start order, so a tie with any call of this lane shows here. */
	if (!exact && (one ? r->last_s == h->s : ls->n && ls->v[ls->n - 1].s == h->s))
		return RESTART_EXACT;
	while (ls->n && ls->v[ls->n - 1].e <= h->s)
		close_top_inline(st, ls, lane, accs, fast);
	struct frame *p = ls->n ? &ls->v[ls->n - 1] : NULL;
	if (p && h->e > p->e)
		return nesting_error(st, p, lane, h);
	int32_t parent = p ? (int32_t)p->node : -1;
	int64_t node = k->last_node;
	if (k->last_parent != parent) {
		const struct path_tree *pt = st->pt;
		size_t slot = (size_t)(parent + 1) * PT_KIDS + (h->id & (PT_KIDS - 1));
		if (slot < pt->nr_kids && pt->kid_region[slot] == h->id + 1) {
			node = pt->kid_node[slot];
		} else {
			node = new_node(st, parent, h->id);
			if (node < 0)
				return err_oom(st->e);
			if (one && st->stats)
				r->acc0 = st->stats->lane[0]; /* moved if the node grew them */
		}
		k->last_parent = parent;
		k->last_node = (uint32_t)node;
	}
	if (ls->n == ls->cap) {
		struct lane_stack g = lane_stack__grown(*ls);
		if (g.cap == ls->cap)
			return err_oom(st->e);
		*ls = g;
	}
	int32_t id = r->next_id++;
	ls->v[ls->n] = (struct frame){h->s, h->e, 0, id, (uint32_t)node};
	if (one)
		r->last_s = h->s;
	if (!fast)
		ls->call_index[ls->n] = (uint32_t)idx;
	ls->n++;
	if (!fast && st->sink->open)
		st->sink->open(st->sink->ctx, id, h->s);
	return 0;
}

/* Few regions (the usual case): a branch-light linear scan for the smallest
 * head beats a heap, whose sift-down mispredicts on every level. */
#define SCAN_MAX 16
#define SCAN_NARROW 8
static const struct head SENTINEL = {INT64_MAX, INT64_MIN, UINT32_MAX, UINT32_MAX};

/* Without `exact`, equal starts go in slot order: only the same lane's order
 * matters to the result, and open_call stops the pass at the first such tie. */
static inline __attribute__((always_inline)) size_t scan_min(const struct head *h, size_t n,
							     bool exact)
{
	/* n is a constant (the width, heads past the live ones padded with
	 * SENTINEL): the loop unrolls, no count is tested per head; a live head
	 * equal to the sentinel's start still wins, live heads sit first. The
	 * running minimum stays in a register (no load through the index);
	 * equal starts, rare, are settled by the full key in a second pass. */
	size_t b = 0;
	int64_t bs = h[0].s;
	bool tie = false;
	for (size_t i = 1; i < n; i++) {
		int64_t v = h[i].s;
		bool lt = v < bs;
		if (exact) {
			tie = lt ? false : (tie | (v == bs));
			b = lt ? i : b;
			bs = lt ? v : bs;
		} else if (lt) {
			/* A branch, not a select: the order of calls repeats with the
			 * program's loops, so the predictor names the next call before
			 * the comparisons resolve and successive calls overlap. */
			b = i;
			bs = v;
			__asm__ volatile("");
		}
	}
	if (exact && __builtin_expect(tie, 0))
		for (size_t i = 0; i < n; i++)
			if (h[i].s == bs && head_less(&h[i], &h[b]))
				b = i;
	return b;
}

static inline __attribute__((always_inline)) int merge_scan_inline(struct stream *st,
							      struct cursor *ks, struct head *hp,
							      size_t n, bool fast, bool exact,
							      size_t width, bool one)
{
	struct run r;
	run__begin(&r, st, one);
	int rc = 0;
	while (n) {
		size_t b = scan_min(hp, width, exact);
		struct cursor *k = &ks[hp[b].cur];
		rc = open_call(st, &r, k, &hp[b], fast, exact, one);
		if (rc)
			break;
		if (++k->pos < k->nr_calls) {
			int64_t ps = hp[b].s, pe = hp[b].e; /* scalars: no copy of the head */
			cursor__load_inline(k, &hp[b], fast);
			if (__builtin_expect(before(&hp[b], ps, pe), 0)) {
				rc = -EAGAIN; /* this region is not in start order */
				break;
			}
		} else {
			hp[b] = hp[--n];
			hp[n] = SENTINEL;
		}
	}
	run__end(&r, st);
	return rc;
}

/* One lane and no lane column (a v1/v2 trace, or a v3 one of one thread
 * written without lanes): every call is on lane 0, nothing to read per call;
 * a v3 trace's column, even of one thread, is read and checked. */
static bool one_lane(const struct rank_data *rd)
{
	if (rd->nr_lanes != 1)
		return false;
	for (size_t r = 0; r < rd->nr_regions; r++)
		if (rd->regions[r].lanes)
			return false;
	return true;
}

/* The merge loop's instances (not inlined: one call per rank): `fast`
 * (statistics only, no callbacks) with ties in slot order until one shows,
 * or settled (`exact`); the scan as wide as the live regions need; a
 * one-lane rank's stack kept in the loop's locals. */
static __attribute__((noinline)) int merge_scan_fast(struct stream *st, struct cursor *ks,
						     struct head *hp, size_t n)
{
	if (!one_lane(st->rd))
		return n <= 4		  ? merge_scan_inline(st, ks, hp, n, true, false, 4, false)
		       : n <= SCAN_NARROW ? merge_scan_inline(st, ks, hp, n, true, false, SCAN_NARROW, false)
					  : merge_scan_inline(st, ks, hp, n, true, false, SCAN_MAX, false);
	/* Each compare of the scan is ~3.5 of the ~160 instructions a call
	 * costs: no wider than the live regions by more than one. */
	if (n <= 2)
		return merge_scan_inline(st, ks, hp, n, true, false, 2, true);
	if (n <= 4)
		return merge_scan_inline(st, ks, hp, n, true, false, 4, true);
	if (n <= 6)
		return merge_scan_inline(st, ks, hp, n, true, false, 6, true);
	if (n <= SCAN_NARROW)
		return merge_scan_inline(st, ks, hp, n, true, false, SCAN_NARROW, true);
	if (n <= 12)
		return merge_scan_inline(st, ks, hp, n, true, false, 12, true);
	return merge_scan_inline(st, ks, hp, n, true, false, SCAN_MAX, true);
}

static __attribute__((noinline)) int merge_scan_fast_exact(struct stream *st, struct cursor *ks,
							   struct head *hp, size_t n)
{
	if (!one_lane(st->rd))
		return merge_scan_inline(st, ks, hp, n, true, true, SCAN_MAX, false);
	return merge_scan_inline(st, ks, hp, n, true, true, SCAN_MAX, true);
}

static __attribute__((noinline)) int merge_scan(struct stream *st, struct cursor *ks,
						struct head *hp, size_t n)
{
	return merge_scan_inline(st, ks, hp, n, false, true, SCAN_MAX, false);
}

/* Many regions: a binary heap (ties settled by its full key). */
static inline __attribute__((always_inline)) int merge_heap_t(struct stream *st,
							      struct cursor *ks, struct head *hp,
							      size_t n, bool fast, bool one)
{
	struct run r;
	run__begin(&r, st, one);
	int rc = 0;
	while (n) {
		struct cursor *k = &ks[hp[0].cur];
		rc = open_call(st, &r, k, &hp[0], fast, true, one);
		if (rc)
			break;
		if (++k->pos < k->nr_calls) {
			int64_t ps = hp[0].s, pe = hp[0].e;
			cursor__load_inline(k, &hp[0], fast);
			if (__builtin_expect(before(&hp[0], ps, pe), 0)) {
				rc = -EAGAIN;
				break;
			}
		} else {
			hp[0] = hp[--n];
		}
		heap_down(hp, n, 0);
	}
	run__end(&r, st);
	return rc;
}

static __attribute__((noinline)) int merge_heap_fast(struct stream *st, struct cursor *ks,
						     struct head *hp, size_t n)
{
	return merge_heap_t(st, ks, hp, n, true, true);
}

static __attribute__((noinline)) int merge_heap(struct stream *st, struct cursor *ks,
						struct head *hp, size_t n)
{
	return merge_heap_t(st, ks, hp, n, false, false);
}

static bool can_be_fast(const struct stream *st, const struct cursor *ks)
{
	if (!st->stats || st->close || st->sink->open || st->rd->swap)
		return false;
	for (size_t r = 0; r < st->rd->nr_regions; r++)
		if (ks[r].perm)
			return false;
	return true;
}

static int merge(struct stream *st, struct cursor *ks, struct head *hp, size_t n)
{
	if (n <= SCAN_MAX) {
		for (size_t i = n; i < SCAN_MAX; i++)
			hp[i] = SENTINEL;
		int rc = !can_be_fast(st, ks) ? merge_scan(st, ks, hp, n)
			 : st->exact	      ? merge_scan_fast_exact(st, ks, hp, n)
					      : merge_scan_fast(st, ks, hp, n);
		if (rc)
			return rc;
		n = 0;
	}
	if (n) {
		for (size_t i = n; i-- > 0;)
			heap_down(hp, n, i);
		int rc = can_be_fast(st, ks) && one_lane(st->rd) ? merge_heap_fast(st, ks, hp, n)
									: merge_heap(st, ks, hp, n);
		if (rc)
			return rc;
	}
	for (int32_t l = 0; l < st->rd->nr_lanes; l++)
		while (st->stacks[l].n)
			close_top(st, &st->stacks[l], l);
	return 0;
}

/* One merge over the regions' cursors; -EAGAIN when a region turns out not to
 * be in start order (only possible when `check` is false), RESTART_EXACT when
 * a fast pass meets a tie (only when `exact` is false). */
static int stream_once(struct stream *st, struct cursor *ks, struct head *hp, bool check)
{
	const struct rank_data *rd = st->rd;
	size_t nh = 0;
	for (size_t r = 0; r < rd->nr_regions; r++) {
		xfree(ks[r].perm);
		if (cursor__init(&ks[r], &rd->regions[r], rd->swap, check))
			return err_oom(st->e);
		if (rd->regions[r].nr_calls > 0) {
			hp[nh] = (struct head){0, 0, rd->regions[r].id, (uint32_t)r};
			cursor__load(&ks[r], &hp[nh++]);
		}
	}
	for (int32_t l = 0; l < rd->nr_lanes; l++)
		st->stacks[l].n = 0;
	st->next_id = 0;
	if (st->stats && path_stats__fit(st->stats, st->pt->n))
		return err_oom(st->e);
	if (st->stats) /* the first call opened is the smallest head */
		for (size_t i = 0; i < nh; i++)
			if (i == 0 || hp[i].s < st->stats->min_start)
				st->stats->min_start = hp[i].s;
	int rc = merge(st, ks, hp, nh);
	if (rc == 0 && st->stats)
		path_stats__end(st->stats);
	return rc;
}

int calls__stream(const struct rank_data *rd, const struct trace_set *ts, struct path_tree *pt,
		  const struct call_sink *sink, struct err *e)
{
	size_t n = 0;
	for (size_t r = 0; r < rd->nr_regions; r++)
		n += (size_t)rd->regions[r].nr_calls;
	if (n > INT32_MAX)
		return err_set(e, -E2BIG, ERR_REGIONS_TOO_MANY_CALLS,
			       "%s: rank %" PRId32 " holds %zu calls; at most %d per rank are "
			       "supported",
			       rd->path, rd->rank, n, INT32_MAX);
	struct stream st = {.rd = rd,
			    .ts = ts,
			    .pt = pt,
			    .sink = sink,
			    .stats = sink->stats,
			    .close = sink->close,
			    .e = e,
			    .stacks = xcalloc((size_t)rd->nr_lanes, sizeof(*st.stacks))};
	struct cursor *ks = xcalloc(rd->nr_regions + 1, sizeof(*ks));
	struct head *hp = xcalloc(rd->nr_regions + SCAN_MAX, sizeof(*hp));
	int rc = st.stacks && ks && hp ? 0 : err_oom(e);
	if (rc == 0 && sink->stats && sink->stats->nr_lanes < rd->nr_lanes)
		rc = err_set(e, -EINVAL, ERR_INTERNAL, "path_stats sized for fewer lanes");
	/* The library writes each region sorted; another writer may not: on the
	 * first call out of order, start over with every region checked (and
	 * sorted where needed). Each restart sets a flag for good: at most two. */
	bool check = false;
	while (rc == 0) {
		rc = stream_once(&st, ks, hp, check);
		if (rc == RESTART_EXACT && !st.exact)
			st.exact = true;
		else if (rc == -EAGAIN && !check)
			check = true;
		else
			break;
		if (sink->reset)
			sink->reset(sink->ctx);
		if (sink->stats)
			path_stats__reset(sink->stats);
		rc = 0;
	}
	if (rc > 0) /* a settled pass never asks to settle ties again */
		rc = err_set(e, -EINVAL, ERR_INTERNAL, "%s: merge restarted twice", rd->path);
	for (size_t r = 0; ks && r < rd->nr_regions; r++)
		xfree(ks[r].perm);
	for (int32_t l = 0; st.stacks && l < rd->nr_lanes; l++) {
		xfree(st.stacks[l].v);
		xfree(st.stacks[l].call_index);
	}
	xfree(st.stacks);
	xfree(ks);
	xfree(hp);
	return rc;
}
