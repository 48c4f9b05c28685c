// SPDX-License-Identifier: BSD-3-Clause
// Emission of an aggregate into the pivot (contract in aggregate.h).
#include "ingest/aggregate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/aggregate_impl.h"
#include "ingest/injected.h"
#include "ingest/buildid.h"
#include "common/hashtab.h"

struct hs {
	uint64_t offset;
	uint64_t hash;
	uint32_t module, has_offset;
	int64_t pivot_id;
};

struct emit_ctx {
	struct ingest_agg *a;
	struct pivot *p;
	const struct ingest_opts *o;
	struct hs *hs;
	size_t nr_hs;
	uint32_t *sv_hs;   /* sample entry -> hs index */
	int64_t *tids;     /* sorted distinct tids */
	int64_t *loci;     /* locus id per tids[] entry */
	size_t nr_tids;
};

/* qsort has no context argument in C17; the comparators read this. Emission
 * is single-threaded and not re-entrant, which the header states. */
static const struct emit_ctx *cmp_ctx;

static int cmp_hs(const void *x, const void *y)
{
	const struct ingest_agg *a = cmp_ctx->a;
	const struct hs *h1 = &cmp_ctx->hs[*(const uint32_t *)x];
	const struct hs *h2 = &cmp_ctx->hs[*(const uint32_t *)y];
	int c = strcmp(a->modules.s[h1->module], a->modules.s[h2->module]);
	if (c)
		return c;
	if (h1->has_offset != h2->has_offset)
		return h1->has_offset < h2->has_offset ? -1 : 1;
	return h1->offset < h2->offset ? -1 : h1->offset > h2->offset;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_sv(const void *x, const void *y)
{
	const struct ingest_agg *a = cmp_ctx->a;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	int64_t h1 = cmp_ctx->hs[cmp_ctx->sv_hs[i]].pivot_id, h2 = cmp_ctx->hs[cmp_ctx->sv_hs[j]].pivot_id;
	if (h1 != h2)
		return h1 < h2 ? -1 : 1;
	int c = strcmp(a->counters.s[a->sv[i].k.counter], a->counters.s[a->sv[j].k.counter]);
	if (c)
		return c;
	return cmp_i64(&a->sv[i].k.tid, &a->sv[j].k.tid);
}

static int cmp_seq(const struct ingest_agg *a, uint32_t s1, uint32_t s2)
{
	const struct seq *q1 = &a->seqs[s1], *q2 = &a->seqs[s2];
	for (size_t d = 0; d < q1->len && d < q2->len; d++) {
		const struct seqframe *f1 = &a->frames[q1->start + d], *f2 = &a->frames[q2->start + d];
		int c = strcmp(a->modules.s[f1->module], a->modules.s[f2->module]);
		if (c)
			return c;
		if (f1->has_offset != f2->has_offset)
			return f1->has_offset < f2->has_offset ? -1 : 1;
		if (f1->offset != f2->offset)
			return f1->offset < f2->offset ? -1 : 1;
	}
	return q1->len < q2->len ? -1 : q1->len > q2->len;
}

static int cmp_kv(const void *x, const void *y)
{
	const struct ingest_agg *a = cmp_ctx->a;
	const struct stkval *k1 = &a->kv[*(const uint32_t *)x], *k2 = &a->kv[*(const uint32_t *)y];
	if (k1->tid != k2->tid)
		return k1->tid < k2->tid ? -1 : 1;
	int c = strcmp(a->counters.s[k1->counter], a->counters.s[k2->counter]);
	return c ? c : cmp_seq(a, k1->seq, k2->seq);
}

static uint64_t hotspot_key_hash(const char *module, const char *bid, bool has_off, uint64_t off)
{
	uint64_t h = hash_bytes(module, strlen(module));
	if (bid)
		h ^= hash_bytes(bid, strlen(bid)) * 31;
	return mix64(h ^ (has_off ? mix64(off + 1) : 0));
}

static bool streq0(const char *x, const char *y)
{
	return (!x || !y) ? x == y : strcmp(x, y) == 0;
}

/* Distinct (module, offset) of the sample entries: c->hs, and c->sv_hs per entry. */
static int collect_hotspots(struct emit_ctx *c)
{
	struct ingest_agg *a = c->a;
	struct oatab t = {0};
	int rc = -ENOMEM;
	c->hs = xcalloc(a->nr_sv + 1, sizeof(*c->hs));
	c->sv_hs = xcalloc(a->nr_sv + 1, sizeof(*c->sv_hs));
	if (!c->hs || !c->sv_hs)
		goto out;
	for (size_t i = 0; i < a->nr_sv; i++) {
		const struct skey *k = &a->sv[i].k;
		uint64_t h = mix64(k->offset ^ ((uint64_t)k->module << 33) ^ k->has_offset);
		size_t pos;
		for (pos = h & t.mask; t.slot && t.slot[pos]; pos = (pos + 1) & t.mask) {
			const struct hs *e = &c->hs[t.slot[pos] - 1];
			if (e->module == k->module && e->offset == k->offset &&
			    e->has_offset == k->has_offset)
				break;
		}
		if (t.slot && t.slot[pos]) {
			c->sv_hs[i] = t.slot[pos] - 1;
			continue;
		}
		c->hs[c->nr_hs] = (struct hs){.offset = k->offset, .hash = h, .module = k->module,
					      .has_offset = k->has_offset, .pivot_id = -1};
		c->sv_hs[i] = (uint32_t)c->nr_hs++;
		if (oatab__insert(&t, h, (uint32_t)c->nr_hs, &c->hs[0].hash, sizeof(*c->hs)))
			goto out;
	}
	rc = 0;
out:
	oatab__release(&t);
	return rc;
}

/* The id of an unresolved Hotspot of p equal in (module, build-id, offset), or -1. */
static int64_t find_pivot_hotspot(const struct pivot *p, const struct oatab *pt,
				  const uint64_t *phash, uint64_t h, const char *mod,
				  const char *bid, const struct hs *e)
{
	for (size_t pos = h & pt->mask; pt->slot && pt->slot[pos]; pos = (pos + 1) & pt->mask) {
		const struct hotspot *ph = &p->hotspots[pt->slot[pos] - 1];
		if (phash[pt->slot[pos] - 1] == h && !strcmp(ph->module, mod) &&
		    streq0(ph->build_id, bid) && ph->has_offset == (bool)e->has_offset &&
		    ph->offset == e->offset)
			return pt->slot[pos] - 1;
	}
	return -1;
}

/* Gives every distinct (module, offset) a pivot Hotspot id, in sorted order,
 * reusing an equal unresolved one already in the pivot (another pass or rank). */
static int emit_hotspots(struct emit_ctx *c)
{
	struct pivot *p = c->p;
	struct oatab pt = {0};
	uint64_t *phash = NULL;
	uint32_t *order = NULL;
	int rc = collect_hotspots(c);
	if (rc)
		return rc;
	rc = -ENOMEM;
	phash = xcalloc(p->nr_hotspots + 1, sizeof(*phash));
	order = xcalloc(c->nr_hs + 1, sizeof(*order));
	if (!phash || !order)
		goto out;
	for (size_t i = 0; i < p->nr_hotspots; i++) {
		const struct hotspot *h = &p->hotspots[i];
		if ((h->name || h->level != RESOLUTION_UNRESOLVED) && !injected_is_pseudo(h->module))
			continue;
		phash[i] = hotspot_key_hash(h->module, h->build_id, h->has_offset, h->offset);
		if (oatab__insert(&pt, phash[i], (uint32_t)i + 1, phash, sizeof(*phash)))
			goto out;
	}
	for (size_t i = 0; i < c->nr_hs; i++)
		order[i] = (uint32_t)i;
	cmp_ctx = c;
	qsort(order, c->nr_hs, sizeof(*order), cmp_hs);
	for (size_t r = 0; r < c->nr_hs; r++) {
		struct hs *e = &c->hs[order[r]];
		const char *mod = c->a->modules.s[e->module];
		const char *bid = c->o->build_ids ? buildid_list__find(c->o->build_ids, mod) : NULL;
		uint64_t h = hotspot_key_hash(mod, bid, e->has_offset, e->offset);
		e->pivot_id = find_pivot_hotspot(p, &pt, phash, h, mod, bid, e);
		if (e->pivot_id >= 0)
			continue;
		/* a call into a library nunatak injected, named after that call */
		char name[160];
		bool pseudo = injected_pseudo_name(mod, name, sizeof(name));
		struct hotspot nh = {.module = (char *)mod, .build_id = (char *)bid,
				     .name = pseudo ? name : NULL,
				     .level = pseudo ? RESOLUTION_SYMBOL : RESOLUTION_UNRESOLVED,
				     .offset = e->offset, .has_offset = e->has_offset};
		if ((e->pivot_id = pivot__add_hotspot(p, &nh)) < 0)
			goto out;
	}
	rc = 0;
out:
	oatab__release(&pt);
	xfree(phash);
	xfree(order);
	return rc;
}

static int64_t locus_of(const struct emit_ctx *c, int64_t tid);

static int emit_loci(struct emit_ctx *c)
{
	struct ingest_agg *a = c->a;
	c->tids = xcalloc(a->nr_sv + a->nr_kv + 1, sizeof(*c->tids));
	if (!c->tids)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < a->nr_sv; i++)
		c->tids[n++] = a->sv[i].k.tid;
	for (size_t i = 0; i < a->nr_kv; i++)
		c->tids[n++] = a->kv[i].tid;
	qsort(c->tids, n, sizeof(*c->tids), cmp_i64);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || c->tids[u - 1] != c->tids[i])
			c->tids[u++] = c->tids[i];
	c->nr_tids = u;
	c->loci = xcalloc(u + 1, sizeof(*c->loci));
	if (!c->loci)
		return -ENOMEM;
	for (size_t i = 0; i < u; i++) {
		c->loci[i] = pivot__intern_locus(c->p, c->o->node, c->o->rank, c->tids[i]);
		if (c->loci[i] < 0)
			return -ENOMEM;
	}
	/* The process each thread belongs to: what tells a rank's main thread
	 * (tid == pid) from the threads it started (analysis/threads.h). */
	for (size_t i = 0; i < a->nr_sv; i++) {
		int64_t l = locus_of(c, a->sv[i].k.tid);
		if (l >= 0 && a->sv[i].pid > 0 && c->p->loci[l].pid <= 0)
			c->p->loci[l].pid = a->sv[i].pid;
	}
	return 0;
}

static int64_t locus_of(const struct emit_ctx *c, int64_t tid)
{
	const int64_t *hit = bsearch(&tid, c->tids, c->nr_tids, sizeof(*c->tids), cmp_i64);
	return hit ? c->loci[hit - c->tids] : PIVOT_NONE;
}

static const char *unit_of(const struct ingest_agg *a, uint32_t counter)
{
	return a->cinfo[counter].unit ? a->cinfo[counter].unit : a->counters.s[counter];
}

static uint64_t address_hash(int64_t hotspot, uint64_t offset, int pass, const char *counter)
{
	return mix64((uint64_t)hotspot * 0x9e3779b97f4a7c15ULL ^ offset ^ ((uint64_t)pass << 48)) ^
	       hash_bytes(counter, strlen(counter));
}

/* Address rows are per (hotspot, offset, pass, counter) over ALL Loci: rows an
 * earlier call wrote (another rank) are summed into, not duplicated. */
static int add_address(struct emit_ctx *c, struct oatab *t, uint64_t **hashes, size_t *cap,
		       const struct address *ad)
{
	struct pivot *p = c->p;
	uint64_t h = address_hash(ad->hotspot, ad->offset, ad->pass_index, ad->counter);
	for (size_t pos = h & t->mask; t->slot && t->slot[pos]; pos = (pos + 1) & t->mask) {
		struct address *x = &p->addresses[t->slot[pos] - 1];
		if (x->hotspot == ad->hotspot && x->offset == ad->offset &&
		    x->pass_index == ad->pass_index && !strcmp(x->counter, ad->counter)) {
			x->value += ad->value;
			x->sample_count += ad->sample_count;
			return 0;
		}
	}
	int64_t id = pivot__add_address(p, ad);
	if (id < 0 || xgrow((void **)hashes, cap, (size_t)id + 1, sizeof(**hashes)))
		return -ENOMEM;
	(*hashes)[id] = h;
	return oatab__insert(t, h, (uint32_t)id + 1, *hashes, sizeof(**hashes));
}

static int index_addresses(const struct pivot *p, struct oatab *t, uint64_t **hashes,
			   size_t *cap)
{
	if (xgrow((void **)hashes, cap, p->nr_addresses + 1, sizeof(**hashes)))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_addresses; i++) {
		const struct address *x = &p->addresses[i];
		(*hashes)[i] = address_hash(x->hotspot, x->offset, x->pass_index, x->counter);
		if (oatab__insert(t, (*hashes)[i], (uint32_t)i + 1, *hashes, sizeof(**hashes)))
			return -ENOMEM;
	}
	return 0;
}

/* Measurements per (hotspot, counter, locus), then address rows per
 * (hotspot, counter): runs of the same sort order summed over Loci. */
static int emit_measurements(struct emit_ctx *c)
{
	struct ingest_agg *a = c->a;
	uint32_t *order = xcalloc(a->nr_sv + 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_sv; i++)
		order[i] = (uint32_t)i;
	cmp_ctx = c;
	qsort(order, a->nr_sv, sizeof(*order), cmp_sv);
	struct oatab at = {0};
	uint64_t *ahash = NULL;
	size_t acap = 0;
	int rc = index_addresses(c->p, &at, &ahash, &acap);
	for (size_t r = 0; r < a->nr_sv && !rc; r++) {
		const struct sval *v = &a->sv[order[r]];
		const struct hs *h = &c->hs[c->sv_hs[order[r]]];
		const struct counter_info *ci = &a->cinfo[v->k.counter];
		struct measurement m = {
			.hotspot = h->pivot_id, .locus = locus_of(c, v->k.tid),
			.pass_index = c->o->pass_index, .counter = a->counters.s[v->k.counter],
			.value = (double)v->period * ci->scale, .unit = (char *)unit_of(a, v->k.counter),
			.quality = ci->quality, .reason = (char *)ci->reason, .sample_count = v->n,
			.coverage = -1};
		if (pivot__add_measurement(c->p, &m) < 0)
			rc = -ENOMEM;
	}
	for (size_t r = 0; r < a->nr_sv && !rc;) {
		const struct sval *v = &a->sv[order[r]];
		const struct hs *h = &c->hs[c->sv_hs[order[r]]];
		uint64_t period = 0;
		int64_t n = 0;
		size_t e = r;
		while (e < a->nr_sv && c->sv_hs[order[e]] == c->sv_hs[order[r]] &&
		       a->sv[order[e]].k.counter == v->k.counter) {
			period += a->sv[order[e]].period;
			n += a->sv[order[e]].n;
			e++;
		}
		struct address ad = {.hotspot = h->pivot_id, .offset = h->offset,
				     .pass_index = c->o->pass_index,
				     .counter = a->counters.s[v->k.counter],
				     .value = (double)period * a->cinfo[v->k.counter].scale,
				     .sample_count = n};
		rc = add_address(c, &at, &ahash, &acap, &ad);
		r = e;
	}
	oatab__release(&at);
	xfree(ahash);
	xfree(order);
	return rc;
}

static int emit_stacks(struct emit_ctx *c)
{
	struct ingest_agg *a = c->a;
	uint32_t *order = xcalloc(a->nr_kv + 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_kv; i++)
		order[i] = (uint32_t)i;
	cmp_ctx = c;
	qsort(order, a->nr_kv, sizeof(*order), cmp_kv);
	int rc = 0;
	for (size_t r = 0; r < a->nr_kv && !rc; r++) {
		const struct stkval *k = &a->kv[order[r]];
		struct stack s = {.locus = locus_of(c, k->tid), .pass_index = c->o->pass_index,
				  .counter = a->counters.s[k->counter],
				  .value = (double)k->period * a->cinfo[k->counter].scale,
				  .unit = (char *)unit_of(a, k->counter), .sample_count = k->n};
		int64_t sid = pivot__add_stack(c->p, &s);
		if (sid < 0) {
			rc = -ENOMEM;
			break;
		}
		const struct seq *q = &a->seqs[k->seq];
		for (size_t d = 0; d < q->len; d++) {
			const struct seqframe *f = &a->frames[q->start + d];
			char name[160];
			const char *mod = a->modules.s[f->module];
			struct stack_frame sf = {.stack = sid, .depth = (int)d, .module = (char *)mod,
						 .offset = f->offset};
			if (injected_pseudo_name(mod, name, sizeof(name)))
				sf.function = name;
			if (pivot__add_stack_frame(c->p, &sf) < 0) {
				rc = -ENOMEM;
				break;
			}
		}
	}
	xfree(order);
	return rc;
}

int ingest_agg__emit(struct ingest_agg *a, const struct ingest_opts *o, struct pivot *p,
		     struct err *e)
{
	struct emit_ctx c = {.a = a, .p = p, .o = o};
	int rc = emit_hotspots(&c);
	if (!rc)
		rc = emit_loci(&c);
	if (!rc)
		rc = emit_measurements(&c);
	if (!rc)
		rc = emit_stacks(&c);
	xfree(c.hs);
	xfree(c.sv_hs);
	xfree(c.tids);
	xfree(c.loci);
	cmp_ctx = NULL;
	if (rc)
		return err_set(e, rc, ERR_OOM, "out of memory while aggregating %llu samples",
			       (unsigned long long)a->nr_samples);
	return 0;
}
