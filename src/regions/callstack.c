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

/* `fast`, a constant where these are inlined: no permutation, native byte
 * order, no per-call callbacks (what a summary streams); the generic path
 * keeps the branches. */
static inline __attribute__((always_inline)) int64_t cursor__index(const struct cursor *k,
								   bool fast)
{
	return !fast && k->perm ? k->perm[k->pos] : k->pos;
}

static inline __attribute__((always_inline)) void cursor__load_t(const struct cursor *k,
								 struct head *h, bool fast)
{
	int64_t i = cursor__index(k, fast);
	if (fast) {
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
	cursor__load_t(k, h, false);
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

/* An open call on a lane's stack. */
struct frame {
	int64_t s, e, child_ns;
	int32_t id;
	uint32_t region, node, call_index;
};

struct lane_stack {
	struct frame *v;
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
};

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

static struct node_acc *acc_grow(struct path_stats *ps, int32_t lane, uint32_t node)
{
	size_t old = ps->cap[lane];
	if (xgrow((void **)&ps->lane[lane], &ps->cap[lane], (size_t)node + 1,
		  sizeof(**ps->lane))) {
		ps->failed = true;
		return NULL;
	}
	for (size_t i = old; i < ps->cap[lane]; i++)
		ps->lane[lane][i] = ACC_EMPTY;
	return &ps->lane[lane][node];
}

static inline void acc_close(struct path_stats *ps, int32_t lane, const struct frame *f,
			     const struct frame *p, int64_t d)
{
	struct node_acc *a = f->node < ps->cap[lane] ? &ps->lane[lane][f->node]
						      : acc_grow(ps, lane, f->node);
	if (!a)
		return;
	if (f->e > ps->max_end)
		ps->max_end = f->e;
	a->first = f->s < a->first ? f->s : a->first;
	a->last = f->e > a->last ? f->e : a->last;
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

static inline __attribute__((always_inline)) void close_top_t(struct stream *st,
							       struct lane_stack *ls, int32_t lane,
							       bool fast)
{
	struct frame *f = &ls->v[--ls->n];
	struct frame *p = ls->n ? &ls->v[ls->n - 1] : NULL;
	int64_t d = f->e - f->s;
	if (st->stats)
		acc_close(st->stats, lane, f, p, d);
	if (!fast && st->close) {
		struct call_event ev = {f->s, f->e, d - f->child_ns, f->region, f->call_index,
					f->id, p ? p->id : -1, (int32_t)ls->n, lane, f->node,
					p ? p->s : 0, p ? p->e : 0};
		st->close(st->sink->ctx, &ev);
	}
	if (p)
		p->child_ns += d;
}

static void close_top(struct stream *st, struct lane_stack *ls, int32_t lane)
{
	close_top_t(st, ls, lane, false);
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
		       st->ts->regions[outer->region].name, outer->s, outer->e);
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

/* Validates the call at the top of the heap and returns its lane (< 0: error). */
static inline __attribute__((always_inline)) int32_t check_call(struct stream *st,
								 const struct cursor *k,
								 const struct head *h,
								 int64_t idx, bool fast)
{
	int32_t lane = 0;
	if (k->lanes && fast)
		memcpy(&lane, k->lanes + 4 * idx, 4);
	else if (k->lanes)
		lane = spt_load_i32(k->lanes + 4 * idx, k->swap);
	if (__builtin_expect((uint32_t)lane >= (uint32_t)st->rd->nr_lanes || h->s < 0 ||
				     h->e < h->s,
			     0))
		return bad_call(st, k, h, idx, lane);
	return lane;
}

/* Opens the heap's top call on its lane: closes what ended before it. */
static inline __attribute__((always_inline)) int open_call(struct stream *st,
							   const struct cursor *k,
							   const struct head *h, bool fast)
{
	int64_t idx = cursor__index(k, fast);
	int32_t lane = check_call(st, k, h, idx, fast);
	if (lane < 0)
		return -EINVAL;
	struct lane_stack *ls = &st->stacks[lane];
	while (ls->n && ls->v[ls->n - 1].e <= h->s)
		close_top_t(st, ls, lane, fast);
	struct frame *p = ls->n ? &ls->v[ls->n - 1] : NULL;
	if (p && h->e > p->e)
		return nesting_error(st, p, lane, h);
	int64_t node = path_tree__child_fast(st->pt, p ? (int32_t)p->node : -1, h->id);
	if (node < 0 ||
	    (ls->n == ls->cap && xgrow((void **)&ls->v, &ls->cap, ls->n + 1, sizeof(*ls->v))))
		return err_oom(st->e);
	ls->v[ls->n++] = (struct frame){h->s, h->e, 0, st->next_id++, h->id, (uint32_t)node,
					(uint32_t)idx};
	if (st->next_id == 1 && st->stats)
		st->stats->min_start = h->s;
	if (!fast && st->sink->open)
		st->sink->open(st->sink->ctx, st->next_id - 1, h->s);
	return 0;
}

/* Few regions (the usual case): a branch-light linear scan for the smallest
 * head beats a heap, whose sift-down mispredicts on every level. */
#define SCAN_MAX 16

static inline size_t scan_min(const struct head *h, size_t n)
{
	/* The running minimum stays in a register (no load through the index);
	 * equal starts, rare, are settled by the full key in a second pass. */
	size_t b = 0;
	int64_t bs = h[0].s;
	bool tie = false;
	for (size_t i = 1; i < n; i++) {
		int64_t v = h[i].s;
		bool lt = v < bs;
		tie = lt ? false : (tie | (v == bs));
		b = lt ? i : b;
		bs = lt ? v : bs;
	}
	if (__builtin_expect(tie, 0))
		for (size_t i = 0; i < n; i++)
			if (h[i].s == bs && head_less(&h[i], &h[b]))
				b = i;
	return b;
}

static inline __attribute__((always_inline)) int merge_scan_t(struct stream *st,
							      struct cursor *ks, struct head *hp,
							      size_t n, bool fast)
{
	while (n) {
		size_t b = scan_min(hp, n);
		struct cursor *k = &ks[hp[b].cur];
		int rc = open_call(st, k, &hp[b], fast);
		if (rc)
			return rc;
		if (++k->pos < k->nr_calls) {
			struct head prev = hp[b];
			cursor__load_t(k, &hp[b], fast);
			if (__builtin_expect(head_less(&hp[b], &prev), 0))
				return -EAGAIN; /* this region is not in start order */
		} else {
			hp[b] = hp[--n];
		}
	}
	return 0;
}

static int merge_scan_fast(struct stream *st, struct cursor *ks, struct head *hp, size_t n)
{
	return merge_scan_t(st, ks, hp, n, true);
}

static int merge_scan(struct stream *st, struct cursor *ks, struct head *hp, size_t n)
{
	return merge_scan_t(st, ks, hp, n, false);
}

static bool can_be_fast(const struct stream *st, const struct cursor *ks)
{
	if (st->close || st->sink->open || st->rd->swap)
		return false;
	for (size_t r = 0; r < st->rd->nr_regions; r++)
		if (ks[r].perm)
			return false;
	return true;
}

static int merge(struct stream *st, struct cursor *ks, struct head *hp, size_t n)
{
	if (n <= SCAN_MAX) {
		int rc = can_be_fast(st, ks) ? merge_scan_fast(st, ks, hp, n)
					     : merge_scan(st, ks, hp, n);
		if (rc)
			return rc;
		n = 0;
	}
	for (size_t i = n; i-- > 0;)
		heap_down(hp, n, i);
	while (n) {
		struct cursor *k = &ks[hp[0].cur];
		int rc = open_call(st, k, &hp[0], false);
		if (rc)
			return rc;
		if (++k->pos < k->nr_calls) {
			struct head prev = hp[0];
			cursor__load(k, &hp[0]);
			if (__builtin_expect(head_less(&hp[0], &prev), 0))
				return -EAGAIN;
		} else {
			hp[0] = hp[--n];
		}
		heap_down(hp, n, 0);
	}
	for (int32_t l = 0; l < st->rd->nr_lanes; l++)
		while (st->stacks[l].n)
			close_top(st, &st->stacks[l], l);
	return 0;
}

/* One merge over the regions' cursors; -EAGAIN when a region turns out not to
 * be in start order (only possible when `check` is false). */
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
	return merge(st, ks, hp, nh);
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
	struct stream st = {rd,	      ts, pt, sink, sink->stats, sink->close, e,
			    xcalloc((size_t)rd->nr_lanes, sizeof(*st.stacks)), 0};
	struct cursor *ks = xcalloc(rd->nr_regions + 1, sizeof(*ks));
	struct head *hp = xcalloc(rd->nr_regions + 1, sizeof(*hp));
	int rc = st.stacks && ks && hp ? 0 : err_oom(e);
	if (rc == 0 && sink->stats && sink->stats->nr_lanes < rd->nr_lanes)
		rc = err_set(e, -EINVAL, ERR_INTERNAL, "path_stats sized for fewer lanes");
	if (rc == 0)
		rc = stream_once(&st, ks, hp, false);
	if (rc == -EAGAIN) {
		/* The library writes each region sorted; another writer may not.
		 * Start over with every region checked (and sorted where needed). */
		if (sink->reset)
			sink->reset(sink->ctx);
		if (sink->stats)
			path_stats__reset(sink->stats);
		rc = stream_once(&st, ks, hp, true);
	}
	for (size_t r = 0; ks && r < rd->nr_regions; r++)
		xfree(ks[r].perm);
	for (int32_t l = 0; st.stacks && l < rd->nr_lanes; l++)
		xfree(st.stacks[l].v);
	xfree(st.stacks);
	xfree(ks);
	xfree(hp);
	return rc;
}

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
