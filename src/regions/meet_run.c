// SPDX-License-Identifier: BSD-3-Clause
#include "regions/meet_run.h"
#include "regions/region_counters.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/hashtab.h"
#include "ingest/aggregate.h"
#include "ingest/perf_data.h"
#include "ingest/switches.h"
#include "model/model.h"
#include "regions/callstack.h"
#include "regions/meet.h"
#include "regions/region_events.h"
#include "regions/trace_set.h"
#include "sp_format.h" /* SP_CTR_KIND_* */

#define MAX_COUNTERS 16
#define LOCUS_CACHE 256 /* power of two */

/* (module, offset) -> Hotspot, from pivot.addresses (offset-bearing modules)
 * and the offset-less Hotspots; sorted for binary search. */
struct hs_key {
	const char *module;
	size_t len;
	uint64_t offset; /* UINT64_MAX: the module has no offsets */
	int64_t hotspot;
};

static int key_cmp3(const char *m, size_t len, uint64_t off, const struct hs_key *k)
{
	size_t n = len < k->len ? len : k->len;
	int c = memcmp(m, k->module, n);
	if (c)
		return c;
	if (len != k->len)
		return len < k->len ? -1 : 1;
	return off < k->offset ? -1 : off > k->offset;
}

static int hs_key_cmp(const void *a, const void *b)
{
	const struct hs_key *x = a;
	return key_cmp3(x->module, x->len, x->offset, b);
}

/* One (path node, Locus, Hotspot, counter) sum; entries in first-seen order,
 * indexed by the common hash table. */
struct agg_slot {
	uint64_t hash;
	int64_t locus, hotspot;
	int32_t node, counter;
	double value;
	int64_t count;
};

struct meet_ctx {
	struct pivot *p;
	const struct region_timeline *tl;
	struct hs_key *keys;
	size_t nr_keys;
	const char *node;
	int rank;
	struct agg_slot *slots;
	size_t nr_slots, cap_slots;
	struct oatab idx;
	char counters[MAX_COUNTERS][64];
	int nr_counters;
	struct meet_summary *sum;
	int64_t main_tid; /* v2 lane (tid unknown): the pid its samples matched, or -1 */
	/* tid -> Locus of the current rank, direct-mapped: interning is a scan */
	int64_t cache_tid[LOCUS_CACHE], cache_locus[LOCUS_CACHE];
	/* off-CPU ns per (lane, path node) of the current rank, or NULL */
	double *offcpu;
	size_t off_nn;
	bool off_seen; /* the rank's recording held context switches */
};

static int64_t locus_of(struct meet_ctx *c, int64_t tid)
{
	size_t k = (size_t)tid & (LOCUS_CACHE - 1);
	if (tid >= 0 && c->cache_tid[k] == tid)
		return c->cache_locus[k];
	int64_t l = pivot__intern_locus(c->p, c->node, c->rank, tid);
	if (l >= 0) {
		c->cache_tid[k] = tid;
		c->cache_locus[k] = l;
	}
	return l;
}

static int64_t hs_lookup(const struct meet_ctx *c, const struct ingest_frame *f)
{
	uint64_t off = f->has_offset ? f->offset : UINT64_MAX;
	size_t lo = 0, hi = c->nr_keys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = key_cmp3(f->module, f->module_len, off, &c->keys[mid]);
		if (r == 0)
			return c->keys[mid].hotspot;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int build_keys(struct meet_ctx *c)
{
	const struct pivot *p = c->p;
	c->keys = xcalloc(p->nr_addresses + p->nr_hotspots + 1, sizeof(*c->keys));
	if (!c->keys)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_addresses; i++) {
		const struct hotspot *h = &p->hotspots[p->addresses[i].hotspot];
		if (h->module)
			c->keys[c->nr_keys++] = (struct hs_key){h->module, strlen(h->module),
								 p->addresses[i].offset,
								 p->addresses[i].hotspot};
	}
	for (size_t i = 0; i < p->nr_hotspots; i++)
		if (!p->hotspots[i].has_offset && p->hotspots[i].module)
			c->keys[c->nr_keys++] = (struct hs_key){
				p->hotspots[i].module, strlen(p->hotspots[i].module), UINT64_MAX,
				(int64_t)i};
	qsort(c->keys, c->nr_keys, sizeof(*c->keys), hs_key_cmp);
	return 0;
}

static struct agg_slot *agg_find(const struct meet_ctx *c, uint64_t h, int32_t node,
				  int64_t locus, int64_t hotspot, int32_t counter)
{
	for (size_t i = h & c->idx.mask; c->idx.slot && c->idx.slot[i]; i = (i + 1) & c->idx.mask) {
		struct agg_slot *s = &c->slots[c->idx.slot[i] - 1];
		if (s->hash == h && s->node == node && s->locus == locus && s->hotspot == hotspot &&
		    s->counter == counter)
			return s;
	}
	return NULL;
}

static int agg_add(struct meet_ctx *c, int32_t node, int64_t locus, int64_t hotspot,
		   int32_t counter, double value)
{
	uint64_t h = mix64(((uint64_t)(uint32_t)node << 32 | (uint32_t)counter) ^
			   mix64((uint64_t)locus << 24 ^ (uint64_t)hotspot));
	struct agg_slot *s = agg_find(c, h, node, locus, hotspot, counter);
	if (!s) {
		if (xgrow((void **)&c->slots, &c->cap_slots, c->nr_slots + 1, sizeof(*c->slots)))
			return -ENOMEM;
		s = &c->slots[c->nr_slots];
		*s = (struct agg_slot){h, locus, hotspot, node, counter, 0, 0};
		if (oatab__insert(&c->idx, h, (uint32_t)c->nr_slots + 1, &c->slots[0].hash,
				  sizeof(*c->slots)))
			return -ENOMEM;
		c->nr_slots++;
	}
	s->value += value;
	s->count++;
	return 0;
}

static int32_t counter_id(struct meet_ctx *c, const char *event, size_t len, double *scale)
{
	char name[64];
	struct counter_info ci;
	ingest_counter_canon(event, len, name, sizeof(name), &ci);
	*scale = ci.scale;
	for (int i = 0; i < c->nr_counters; i++)
		if (strcmp(c->counters[i], name) == 0)
			return i;
	if (c->nr_counters == MAX_COUNTERS)
		return -1;
	snprintf(c->counters[c->nr_counters], sizeof(c->counters[0]), "%s", name);
	return c->nr_counters++;
}

/* One sample: its thread's lane, the innermost call open at its time. */
static int on_sample(void *ctx, const struct ingest_sample *s)
{
	struct meet_ctx *c = ctx;
	c->sum->nr_samples++;
	int32_t lane = region_timeline__lane(c->tl, s->pid, s->tid);
	if (lane >= 0 && c->tl->lanes[lane].tid < 0) {
		/* A v2 lane is "the main thread" of a process whose pid the trace
		 * does not hold. Any process's main thread has tid == pid (a
		 * fork()ed helper, LeakSanitizer's tracer at exit), so the lane
		 * goes to the first process seen sampling inside the trace's time
		 * span, and to that process only. */
		const struct region_lane_tl *l = &c->tl->lanes[lane];
		int64_t t = (int64_t)s->time_ns;
		if (c->main_tid < 0 && l->n && t >= l->t[0] && t <= l->t[l->n - 1])
			c->main_tid = s->pid;
		if (s->pid != c->main_tid)
			lane = -1;
	}
	int64_t hs = lane >= 0 ? hs_lookup(c, &s->hit) : -1;
	if (hs < 0)
		return 0; /* another process, or a Hotspot the pivot does not hold */
	double scale = 1;
	int32_t counter = counter_id(c, s->event, s->event_len, &scale);
	int32_t node = region_timeline__at(c->tl, lane, (int64_t)s->time_ns);
	int64_t locus = locus_of(c, s->tid);
	if (counter < 0 || locus < 0)
		return counter < 0 ? 0 : -ENOMEM;
	c->sum->nr_in_region += node >= 0;
	return agg_add(c, node, locus, hs, counter, (double)s->period * scale);
}

/* One off-CPU interval of a thread: the time each innermost open region of
 * its lane spent in it (the timeline is piecewise constant). */
static int on_offcpu(void *ctx, int64_t pid, int64_t tid, uint64_t start, uint64_t end)
{
	struct meet_ctx *c = ctx;
	int32_t lane = region_timeline__lane(c->tl, pid, tid);
	if (lane < 0 || (c->tl->lanes[lane].tid < 0 && pid != c->main_tid))
		return 0; /* a v2 lane: the process its samples matched, only */
	const struct region_lane_tl *l = &c->tl->lanes[lane];
	int64_t a = (int64_t)start, b = (int64_t)end;
	size_t lo = 0, hi = l->n; /* first transition after a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->t[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo ? lo - 1 : 0; k < l->n && l->t[k] < b; k++) {
		int64_t from = l->t[k] > a ? l->t[k] : a;
		int64_t to = k + 1 < l->n && l->t[k + 1] < b ? l->t[k + 1] : b;
		if (l->node[k] >= 0 && to > from && (size_t)l->node[k] < c->off_nn)
			c->offcpu[(size_t)lane * c->off_nn + (size_t)l->node[k]] += (double)(to - from);
	}
	return 0;
}

/* The region's inclusive count of event @p ev on @p lane of this rank,
 * when the region ran on no other path node of that lane: counts are kept
 * per region and thread, so a region on two paths cannot be split. */
static bool path_count(const struct region_counters *rc, int ev, const int64_t *acc,
		       const struct path_tree *pt, size_t nn, size_t lane, size_t n, double *out)
{
	if (ev < 0)
		return false;
	for (size_t m = 0; m < nn; m++)
		if (m != n && pt->region[m] == pt->region[n] && acc[(lane * nn + m) * 3])
			return false;
	for (size_t i = 0; i < rc->nr_rows; i++) {
		const struct ctr_row *r = &rc->rows[i];
		if (r->region == (uint32_t)pt->region[n] && r->lane == (int32_t)lane &&
		    r->have[ev]) {
			*out = (double)r->incl[ev];
			return true;
		}
	}
	return false;
}

/* pivot.region_stats of one rank: per (lane, path node). */
static int add_stats(struct pivot *p, const struct calls *cl, const struct rank_data *rd,
		     const struct path_tree *pt, const struct trace_set *ts, const char *node,
		     int rank, int64_t main_tid, const struct region_counters *ctr,
		     const double *offcpu)
{
	int ev_flop = region_counters__event_of_kind(ctr, SP_CTR_KIND_FLOP);
	int ev_bytes = region_counters__event_of_kind(ctr, SP_CTR_KIND_BYTES);
	size_t nn = pt->n, nl = (size_t)(cl->nr_lanes > 0 ? cl->nr_lanes : 1);
	int64_t *acc = xcalloc(nn * nl * 3 + 1, sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	for (size_t i = 0; i < cl->n; i++) {
		size_t lane = cl->lane[i] >= 0 && (size_t)cl->lane[i] < nl ? (size_t)cl->lane[i] : 0;
		int64_t *a = &acc[(lane * nn + cl->node[i]) * 3];
		a[0]++;
		a[1] += cl->end[i] - cl->start[i];
		a[2] += cl->excl[i];
	}
	int rc = 0;
	for (size_t l = 0; l < nl && !rc; l++)
		for (size_t n = 0; n < nn && !rc; n++) {
			const int64_t *a = &acc[(l * nn + n) * 3];
			if (!a[0])
				continue;
			int64_t tid = rd->lanes && (int32_t)l < rd->nr_lanes ? rd->lanes[l].tid : -1;
			if (tid < 0 && nl == 1)
				tid = main_tid; /* v2: the process's main thread, when seen */
			int64_t locus = pivot__intern_locus(p, node, rank, tid);
			char *path = path_tree__path(pt, ts, (int32_t)n);
			struct region_stat r = {.locus = locus, .path = path,
						.name = ts->regions[pt->region[n]].name,
						.calls = a[0], .inclusive_ns = a[1], .exclusive_ns = a[2]};
			r.has_flop = path_count(ctr, ev_flop, acc, pt, nn, l, n, &r.flop);
			r.has_dram_bytes = path_count(ctr, ev_bytes, acc, pt, nn, l, n, &r.dram_bytes);
			if (offcpu) {
				r.has_offcpu = true;
				r.offcpu_ns = offcpu[l * nn + n];
			}
			rc = locus < 0 || !path || pivot__add_region_stat(p, &r) < 0 ? -ENOMEM : 0;
			xfree(path);
		}
	xfree(acc);
	return rc;
}

static int emit_samples(struct meet_ctx *c, const struct path_tree *pt,
			const struct trace_set *ts)
{
	for (size_t i = 0; i < c->nr_slots; i++) {
		const struct agg_slot *s = &c->slots[i];
		char *path = s->node >= 0 ? path_tree__path(pt, ts, s->node) : NULL;
		struct region_sample r = {.region_path = path, .locus = s->locus,
					  .hotspot = s->hotspot, .counter = c->counters[s->counter],
					  .value = s->value, .sample_count = s->count};
		int rc = (s->node >= 0 && !path) || pivot__add_region_sample(c->p, &r) < 0;
		xfree(path);
		if (rc)
			return -ENOMEM;
	}
	return 0;
}

/* The node a rank's Loci already name (its rank.json), else the default. */
static const char *rank_node(const struct pivot *p, int rank, const char *dflt)
{
	for (size_t i = 0; i < p->nr_loci; i++)
		if (p->loci[i].rank == rank && p->loci[i].node)
			return p->loci[i].node;
	return dflt;
}

static bool has_traces(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool any = false;
	for (struct dirent *de; !any && (de = readdir(d));) {
		size_t l = strlen(de->d_name);
		any = (l > 4 && strcmp(de->d_name + l - 4, ".spt") == 0) ||
		      (l > 3 && strcmp(de->d_name + l - 3, ".h5") == 0);
	}
	closedir(d);
	return any;
}

static void not_aligned(struct degradations *d, const char *path, const char *why)
{
	char *msg = xasprintf("%s: %s: samples are not broken down by region", path, why);
	degradations__add(d, DEG_REGIONS_NOT_ALIGNED, msg ? msg : why,
			  DEG_REGIONS_NOT_ALIGNED_REMEDY);
	xfree(msg);
}

/* The samples of one rank's perf.data against its timeline. A file that is
 * absent (an unsampled rank) says nothing; one on another clock degrades. */
static int align_rank(struct meet_ctx *c, const char *path, struct degradations *d,
		      struct err *e)
{
	void *map = NULL;
	size_t len = 0;
	struct err fe = {0};
	if (access(path, R_OK) != 0 || trace_map_file(path, &map, &len, &fe) < 0)
		return 0;
	int clock = perf_data_clockid(map, len);
	int rc = 0;
	if (clock == 1) {
		struct ingest_stats st = {0};
		struct switch_log *sw = switch_log__new();
		rc = sw ? perf_data__read_switches(map, len, on_sample, c, NULL, sw, &st, &fe) : -ENOMEM;
		ingest_stats__release(&st);
		/* the off-CPU intervals on the same clock: each region's share */
		if (rc == 0 && switch_log__enabled(sw)) {
			c->off_seen = true;
			rc = switch_log__intervals(sw, on_offcpu, c);
		}
		switch_log__free(sw);
		if (rc == -ENOMEM)
			err_set(e, rc, ERR_OOM, "out of memory");
		else if (rc < 0) {
			not_aligned(d, path, fe.msg);
			rc = 0;
		}
	} else {
		not_aligned(d, path, clock == -2 ? "perf recorded on its own clock, not "
						   "CLOCK_MONOTONIC (no -k CLOCK_MONOTONIC)"
			    : clock == -1 ? "unreadable perf.data header"
					  : "perf recorded on a clock other than CLOCK_MONOTONIC");
	}
	trace_unmap_file(map, len);
	return rc;
}

/* The rank's thread Loci without a name take their lane's: the library's
 * record of the thread's comm (at its exit, else at the trace's end), the
 * only name a Run without perf has. A name perf recorded stays. */
static int name_lanes(struct pivot *p, const struct rank_data *rd, const char *node, int rank)
{
	for (int32_t l = 0; rd->lanes && l < rd->nr_lanes; l++) {
		const struct lane_info *li = &rd->lanes[l];
		for (size_t k = 0; li->tid >= 0 && li->name && li->name[0] && k < p->nr_loci; k++) {
			struct locus *lo = &p->loci[k];
			if (lo->thread == li->tid && lo->rank == rank && !lo->name &&
			    (lo->node == node || (lo->node && node && !strcmp(lo->node, node))) &&
			    locus__set_name(lo, li->name, strlen(li->name)))
				return -ENOMEM;
		}
	}
	return 0;
}

static int meet_rank(struct meet_ctx *c, struct trace_set *ts, size_t i, struct path_tree *pt,
		     const struct meet_opts *o, struct degradations *d, struct err *e)
{
	struct rank_data rd;
	struct calls cl;
	int rc = trace_set__load(ts, i, &rd, e);
	if (rc < 0)
		return rc;
	if ((rc = calls__build(&cl, &rd, ts, pt, e)) < 0) {
		rank_data__release(&rd);
		return rc;
	}
	c->rank = o->mpi ? rd.rank : -1;
	c->node = rank_node(c->p, c->rank, o->node);
	c->main_tid = -1;
	memset(c->cache_tid, 0xff, sizeof(c->cache_tid)); /* -1: empty */
	c->sum->nr_traces++;
	c->sum->nr_calls += (int64_t)cl.n;
	char *perf = o->mpi ? xasprintf("%s/rank-%d/perf.data", o->collect_dir, (int)rd.rank)
			    : (o->perf_data ? xstrdup(o->perf_data) : NULL);
	struct region_timeline tl;
	size_t nl = (size_t)(cl.nr_lanes > 0 ? cl.nr_lanes : 1);
	c->off_nn = pt->n;
	c->off_seen = false;
	c->offcpu = perf ? xcalloc(nl * pt->n + 1, sizeof(double)) : NULL;
	if (perf && !c->offcpu)
		rc = -ENOMEM;
	if (perf && !rc && (rc = region_timeline__build(&tl, &cl, &rd, e)) == 0) {
		c->tl = &tl;
		rc = align_rank(c, perf, d, e);
		c->tl = NULL;
		region_timeline__release(&tl);
	}
	/* Counters per region (the trace's 'CNTR' section): FLOP and bytes
	 * place the region on the roofline (report/regions_view.c). */
	struct region_counters ctr;
	memset(&ctr, 0, sizeof(ctr));
	if (rc == 0 && ts->src[i].kind == TRACE_SPT)
		rc = region_counters__read_path(&ctr, ts, ts->src[i].path, e);
	if (rc == 0)
		rc = add_stats(c->p, &cl, &rd, pt, ts, c->node, c->rank, c->main_tid, &ctr,
			       c->off_seen ? c->offcpu : NULL);
	if (rc == 0)
		rc = name_lanes(c->p, &rd, c->node, c->rank);
	xfree(c->offcpu);
	c->offcpu = NULL;
	region_counters__release(&ctr);
	/* MPI ranks: the outer region calls join the MPI calls' timeline. */
	if (rc == 0 && o->mpi && c->rank >= 0)
		rc = region_events_add(c->p, &cl, ts, pt, c->node, c->rank) < 0 ? -ENOMEM : 0;
	if (rc == -ENOMEM && !e->msg[0])
		err_set(e, rc, ERR_OOM, "out of memory");
	xfree(perf);
	calls__release(&cl);
	rank_data__release(&rd);
	return rc;
}

/* A process that ended before sp_finalize (a crash, a kill) left unfinished
 * traces: their complete frames were recovered, the calls of its last
 * unflushed buffer are lost. Said once, with the counts. */
static void cut_short(const struct trace_set *ts, struct degradations *d)
{
	int nr = 0;
	long long calls = 0;
	for (size_t k = 0; k < ts->notes.nr; k++)
		if (ts->notes.v[k].cut.cut) {
			nr++;
			calls += (long long)ts->notes.v[k].cut.calls;
		}
	if (!nr)
		return;
	char msg[320];
	snprintf(msg, sizeof(msg),
		 "%d region trace%s ended before sp_finalize (the application crashed or was "
		 "killed): %lld calls recovered into region_stats; the calls of the last "
		 "unflushed buffer are missing, so region counts and times are a lower bound",
		 nr, nr > 1 ? "s" : "", calls);
	degradations__add(d, DEG_REGION_TRACES_CUT_SHORT, msg,
			  DEG_REGION_TRACES_CUT_SHORT_REMEDY);
}

int regions_meet_run(struct pivot *p, const struct meet_opts *o, struct degradations *d,
		     struct meet_summary *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (!o->regions_dir || !has_traces(o->regions_dir))
		return 0;
	struct trace_set ts;
	int rc = trace_set__open(&ts, &o->regions_dir, 1, e);
	if (rc < 0)
		return rc;
	struct path_tree pt;
	path_tree__init(&pt);
	struct meet_ctx c = {.p = p, .sum = out};
	if ((rc = build_keys(&c)) < 0)
		err_set(e, rc, ERR_OOM, "out of memory");
	for (size_t i = 0; rc == 0 && i < ts.nr_src; i++)
		rc = meet_rank(&c, &ts, i, &pt, o, d, e);
	if (rc == 0)
		cut_short(&ts, d);
	if (rc == 0 && (rc = emit_samples(&c, &pt, &ts)) < 0)
		err_set(e, rc, ERR_OOM, "out of memory");
	xfree(c.slots);
	oatab__release(&c.idx);
	xfree(c.keys);
	path_tree__release(&pt);
	trace_set__release(&ts);
	return rc;
}
