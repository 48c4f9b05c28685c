// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/aggregate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ingest/aggregate_impl.h"
#include "ingest/injected.h"
#include "common/hashtab.h"

/* ---- counters ---------------------------------------------------------- */

static const char DEMAND_FILLS_REASON[] =
	"demand fills only: hardware-prefetched traffic is not counted";

#define UNVALIDATED "this counter group was never validated on real hardware"
static const char INTEL_FLOPS_REASON[] =
	"fp_arith_inst_retired weighted by FLOPs per instruction; 10 events share 4-8 "
	"programmable counters, so perf multiplexes them and samples each only part of the "
	"time (under-counted); " UNVALIDATED;
static const char INTEL_DRAM_REASON[] =
	"retired demand loads served by DRAM, 64 B each: stores, write-backs and "
	"hardware-prefetched traffic are not counted; " UNVALIDATED;
static const char ARM_FLOPS_REASON[] =
	"speculatively executed floating-point operations (mis-speculated work included; SVE "
	"operations counted per 128-bit granule, so halved on 256-bit SVE); " UNVALIDATED;
static const char ARM_DRAM_REASON[] =
	"last-level cache read refills, 64 B each: writes and prefetches are not counted; "
	UNVALIDATED;

/* The Zen counter groups of REFERENCE.md §3 (collect/events.py), then the
 * Intel server and Arm Neoverse groups (collect/perf.c); scale = FLOPs per
 * event for fp_arith_inst_retired, bytes per line for fills. */
static const struct {
	const char *event, *canonical, *unit;
	double scale;
	enum quality quality;
	const char *reason;
} counter_table[] = {
	{"fp_ret_sse_avx_ops.all", "flops", "flop", 1, QUALITY_MEASURED, NULL},
	{"ls_refills_from_sys.ls_mabresp_lcl_dram", "dram_bytes", "byte", 64,
	 QUALITY_ESTIMATED, DEMAND_FILLS_REASON},
	{"ls_refills_from_sys.ls_mabresp_rmt_dram", "dram_bytes", "byte", 64,
	 QUALITY_ESTIMATED, DEMAND_FILLS_REASON},
	{"ls_dmnd_fills_from_sys.mem_io_local", "dram_bytes", "byte", 64, QUALITY_ESTIMATED,
	 DEMAND_FILLS_REASON},
	{"ls_dmnd_fills_from_sys.mem_io_remote", "dram_bytes", "byte", 64, QUALITY_ESTIMATED,
	 DEMAND_FILLS_REASON},
	{"fp_arith_inst_retired.scalar_double", "flops_dp", "flop", 1, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.128b_packed_double", "flops_dp", "flop", 2, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.256b_packed_double", "flops_dp", "flop", 4, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.512b_packed_double", "flops_dp", "flop", 8, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.scalar_single", "flops_sp", "flop", 1, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.128b_packed_single", "flops_sp", "flop", 4, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.256b_packed_single", "flops_sp", "flop", 8, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"fp_arith_inst_retired.512b_packed_single", "flops_sp", "flop", 16, QUALITY_ESTIMATED,
	 INTEL_FLOPS_REASON},
	{"mem_load_l3_miss_retired.local_dram", "dram_bytes", "byte", 64, QUALITY_ESTIMATED,
	 INTEL_DRAM_REASON},
	{"mem_load_l3_miss_retired.remote_dram", "dram_bytes", "byte", 64, QUALITY_ESTIMATED,
	 INTEL_DRAM_REASON},
	{"fp_scale_ops_spec", "flops", "flop", 1, QUALITY_ESTIMATED, ARM_FLOPS_REASON},
	{"fp_fixed_ops_spec", "flops", "flop", 1, QUALITY_ESTIMATED, ARM_FLOPS_REASON},
	{"ll_cache_miss_rd", "dram_bytes", "byte", 64, QUALITY_ESTIMATED, ARM_DRAM_REASON},
	{"task-clock", "task-clock", "ns", 1, QUALITY_MEASURED, NULL},
	{"cpu-clock", "cpu-clock", "ns", 1, QUALITY_MEASURED, NULL},
};

size_t ingest_counter_canon(const char *event, size_t len, char *out, size_t cap,
			    struct counter_info *ci)
{
	size_t n = 0;
	while (n < len && event[n] != ':' && event[n] != '/')
		n++;
	*ci = (struct counter_info){.unit = NULL, .scale = 1, .quality = QUALITY_MEASURED};
	for (size_t i = 0; i < sizeof(counter_table) / sizeof(counter_table[0]); i++) {
		if (strlen(counter_table[i].event) == n &&
		    memcmp(counter_table[i].event, event, n) == 0) {
			event = counter_table[i].canonical;
			n = strlen(event);
			ci->unit = counter_table[i].unit;
			ci->scale = counter_table[i].scale;
			ci->quality = counter_table[i].quality;
			ci->reason = counter_table[i].reason;
			break;
		}
	}
	if (cap) {
		size_t c = n < cap - 1 ? n : cap - 1;
		memcpy(out, event, c);
		out[c] = '\0';
	}
	return n;
}

/* ---- stats ------------------------------------------------------------- */

void ingest_stats__release(struct ingest_stats *st)
{
	if (st)
		degradations__release(&st->degradations);
}

void ingest_stats__unparsed(struct ingest_stats *st, const char *line, size_t len,
			    int64_t lineno)
{
	if (st->nr_unparsed++ == 0) {
		size_t c = len < sizeof(st->first_unparsed) - 1 ? len : sizeof(st->first_unparsed) - 1;
		memcpy(st->first_unparsed, line, c);
		st->first_unparsed[c] = '\0';
		st->first_unparsed_line = lineno;
	}
}

/* ---- the aggregator ---------------------------------------------------- */

struct ingest_agg *ingest_agg__new(void)
{
	struct ingest_agg *a = xcalloc(1, sizeof(*a));
	return a;
}

void ingest_agg__free(struct ingest_agg *a)
{
	if (!a)
		return;
	strtab__release(&a->modules);
	xfree(a->mod_injected);
	strtab__release(&a->events);
	strtab__release(&a->counters);
	xfree(a->event_counter);
	xfree(a->cinfo);
	xfree(a->sv);
	oatab__release(&a->st);
	xfree(a->frames);
	xfree(a->seqs);
	oatab__release(&a->seqt);
	xfree(a->kv);
	oatab__release(&a->kt);
	injected__free(a->injected);
	xfree(a);
}

uint64_t ingest_agg__nr_samples(const struct ingest_agg *a)
{
	return a->nr_samples;
}

static int counter_of(struct ingest_agg *a, const char *ev, size_t len, uint32_t *out)
{
	if (a->last_event && a->last_event_len == len && memcmp(a->last_event, ev, len) == 0) {
		*out = a->last_counter;
		return 0;
	}
	bool added;
	int64_t eid = strtab__intern(&a->events, ev, len, &added);
	if (eid < 0)
		return -ENOMEM;
	if (added) {
		if (xgrow((void **)&a->event_counter, &a->cap_event_counter, a->events.n,
			  sizeof(uint32_t)))
			return -ENOMEM;
		char canon[256];
		struct counter_info ci;
		size_t n = ingest_counter_canon(ev, len, canon, sizeof(canon), &ci);
		if (n >= sizeof(canon))
			n = sizeof(canon) - 1;
		bool cadded;
		int64_t cid = strtab__intern(&a->counters, canon, n, &cadded);
		if (cid < 0)
			return -ENOMEM;
		if (xgrow((void **)&a->cinfo, &a->cap_cinfo, a->counters.n, sizeof(*a->cinfo)))
			return -ENOMEM;
		if (cadded)
			a->cinfo[cid] = ci;
		a->event_counter[eid] = (uint32_t)cid;
	}
	a->last_event = a->events.s[eid];
	a->last_event_len = len;
	a->last_counter = a->event_counter[eid];
	*out = a->last_counter;
	return 0;
}

static uint64_t skey_hash(const struct skey *k)
{
	return mix64(k->offset ^ mix64((uint64_t)k->tid ^ ((uint64_t)k->module << 32) ^
				       ((uint64_t)k->counter << 8) ^ k->has_offset));
}

static bool skey_eq(const struct skey *x, const struct skey *y)
{
	/* not module then counter: gcc 12 merges those two adjacent 4-byte
	 * compares into one 8-byte load of a copy of y made by two 4-byte
	 * stores, a store-forwarding stall that was a third of the time per
	 * sample */
	return x->offset == y->offset && x->tid == y->tid && x->module == y->module &&
	       x->has_offset == y->has_offset && x->counter == y->counter;
}

static int add_flat(struct ingest_agg *a, const struct skey *k, uint64_t period, int64_t pid)
{
	/* the previous sample's entry first: a loop's samples often repeat
	 * their (address, thread), and the hash is a chain of 4 multiplies */
	if (a->nr_sv && skey_eq(&a->sv[a->last_sv].k, k)) {
		a->sv[a->last_sv].period += period;
		a->sv[a->last_sv].n++;
		return 0;
	}
	uint64_t h = skey_hash(k);
	size_t pos;
	for (pos = h & a->st.mask; a->st.slot && a->st.slot[pos]; pos = (pos + 1) & a->st.mask) {
		struct sval *v = &a->sv[a->st.slot[pos] - 1];
		if (v->hash == h && skey_eq(&v->k, k)) {
			v->period += period;
			v->n++;
			a->last_sv = a->st.slot[pos] - 1;
			return 0;
		}
	}
	if (xgrow((void **)&a->sv, &a->cap_sv, a->nr_sv + 1, sizeof(*a->sv)))
		return -ENOMEM;
	a->sv[a->nr_sv] = (struct sval){.k = *k, .hash = h, .period = period, .n = 1, .pid = pid};
	a->last_sv = a->nr_sv++;
	return oatab__insert(&a->st, h, (uint32_t)a->nr_sv, &a->sv[0].hash, sizeof(*a->sv));
}

static inline bool bytes_eq(const char *x, const char *y, size_t n)
{
	for (; n >= 8; x += 8, y += 8, n -= 8) {
		uint64_t u, v;
		memcpy(&u, x, 8);
		memcpy(&v, y, 8);
		if (u != v)
			return false;
	}
	for (; n; x++, y++, n--)
		if (*x != *y)
			return false;
	return true;
}

/* The id of a module, and whether injected__rewrite() replaces its frames:
 * a pure function of the name, asked once per module instead of per frame.
 * A name at the address of a recent one, and equal to it, needs no hash:
 * the frames of a call chain hop between modules, and the interning table's
 * one-entry cache missed at nearly every frame. */
static int64_t module_id(struct ingest_agg *a, const char *m, size_t len)
{
	struct mod_hint *hint = &a->hints[(((uintptr_t)m >> 3) ^ len) & 63];
	if (hint->at == (uintptr_t)m && m && hint->len == len && /* at 0: an empty slot */
	    bytes_eq(a->modules.s[hint->id], m, len))
		return hint->id;
	if (a->modules.n + 1 > a->cap_mod_injected &&
	    xgrow((void **)&a->mod_injected, &a->cap_mod_injected, a->modules.n + 1,
		  sizeof(*a->mod_injected)))
		return -ENOMEM;
	bool added;
	int64_t id = strtab__intern(&a->modules, m, len, &added);
	if (id >= 0 && added)
		a->mod_injected[id] = injected__is_injected(a->injected, m, len);
	if (id >= 0)
		*hint = (struct mod_hint){.at = (uintptr_t)m, .len = len, .id = (uint32_t)id};
	return id;
}

/* The chain's frames as (module id, offset) at a->frames[nr_frames ..), not
 * kept until intern_seq(); their hash into *hash; *inj set when one is in a
 * library injected__rewrite() replaces. */
static int chain_frames(struct ingest_agg *a, const struct ingest_sample *s, uint64_t *hash,
			bool *inj)
{
	size_t base = a->nr_frames, n = s->nr_callchain;
	if (base + n > a->cap_frames &&
	    xgrow((void **)&a->frames, &a->cap_frames, base + n, sizeof(*a->frames)))
		return -ENOMEM;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t i = 0; i < n; i++) {
		const struct ingest_frame *f = &s->callchain[i];
		int64_t mid = module_id(a, f->module, f->module_len);
		if (mid < 0)
			return -ENOMEM;
		*inj |= a->mod_injected[mid];
		struct seqframe *sf = &a->frames[base + i];
		sf->module = (uint32_t)mid;
		sf->has_offset = f->has_offset;
		sf->offset = f->has_offset ? f->offset : 0;
		h = mix64(h ^ sf->offset ^ ((uint64_t)sf->module << 40) ^ sf->has_offset);
	}
	*hash = h;
	return 0;
}

/* The id of the n frames chain_frames() left past nr_frames, with hash h. */
static int intern_seq(struct ingest_agg *a, size_t n, uint64_t h, uint32_t *out)
{
	size_t base = a->nr_frames;
	for (size_t pos = h & a->seqt.mask; a->seqt.slot && a->seqt.slot[pos];
	     pos = (pos + 1) & a->seqt.mask) {
		struct seq *q = &a->seqs[a->seqt.slot[pos] - 1];
		if (q->hash == h && q->len == n &&
		    memcmp(&a->frames[q->start], &a->frames[base], n * sizeof(*a->frames)) == 0) {
			*out = a->seqt.slot[pos] - 1; /* frames written past nr_frames are dropped */
			return 0;
		}
	}
	if (a->nr_seqs + 1 > a->cap_seqs &&
	    xgrow((void **)&a->seqs, &a->cap_seqs, a->nr_seqs + 1, sizeof(*a->seqs)))
		return -ENOMEM;
	a->seqs[a->nr_seqs] = (struct seq){.start = base, .len = n, .hash = h};
	a->nr_frames += n;
	*out = (uint32_t)a->nr_seqs++;
	return oatab__insert(&a->seqt, h, (uint32_t)a->nr_seqs, &a->seqs[0].hash,
			     sizeof(*a->seqs));
}

static int add_stack(struct ingest_agg *a, const struct ingest_sample *s, size_t n,
		     uint64_t seq_hash, uint32_t counter)
{
	uint32_t seq;
	int rc = intern_seq(a, n, seq_hash, &seq);
	if (rc)
		return rc;
	struct stkval *v = a->nr_kv ? &a->kv[a->last_kv] : NULL; /* as add_flat's */
	if (v && v->seq == seq && v->counter == counter && v->tid == s->tid) {
		v->period += s->period;
		v->n++;
		return 0;
	}
	uint64_t h = mix64(((uint64_t)seq << 32 | counter) ^ mix64((uint64_t)s->tid));
	for (size_t pos = h & a->kt.mask; a->kt.slot && a->kt.slot[pos];
	     pos = (pos + 1) & a->kt.mask) {
		v = &a->kv[a->kt.slot[pos] - 1];
		if (v->seq == seq && v->counter == counter && v->tid == s->tid) {
			v->period += s->period;
			v->n++;
			a->last_kv = a->kt.slot[pos] - 1;
			return 0;
		}
	}
	if (a->nr_kv + 1 > a->cap_kv &&
	    xgrow((void **)&a->kv, &a->cap_kv, a->nr_kv + 1, sizeof(*a->kv)))
		return -ENOMEM;
	a->last_kv = a->nr_kv;
	a->kv[a->nr_kv++] = (struct stkval){
		.seq = seq, .counter = counter, .tid = s->tid, .hash = h, .period = s->period, .n = 1};
	return oatab__insert(&a->kt, h, (uint32_t)a->nr_kv, &a->kv[0].hash, sizeof(*a->kv));
}

/* The hit's module id and, with a chain, its frames (chain_frames()); the
 * sample is rewritten first when a frame is in an injected library. */
static int64_t sample_ids(struct ingest_agg *a, const struct ingest_sample **sp,
			  struct ingest_sample *rewritten, uint64_t *seq_hash)
{
	const struct ingest_sample *s = *sp;
	int64_t mid = module_id(a, s->hit.module, s->hit.module_len);
	if (mid < 0)
		return -ENOMEM;
	bool inj = a->mod_injected[mid];
	if (s->callchain && s->nr_callchain && chain_frames(a, s, seq_hash, &inj))
		return -ENOMEM;
	if (!inj)
		return mid;
	int irc = injected__rewrite(a->injected, s, rewritten);
	if (irc <= 0)
		return irc < 0 ? irc : mid;
	*sp = s = rewritten;
	if ((mid = module_id(a, s->hit.module, s->hit.module_len)) < 0)
		return -ENOMEM;
	if (s->callchain && s->nr_callchain && chain_frames(a, s, seq_hash, &inj))
		return -ENOMEM;
	return mid;
}

int ingest_agg__add(struct ingest_agg *a, const struct ingest_sample *s)
{
	struct ingest_sample rewritten;
	if (!a->injected && !(a->injected = injected__new()))
		return -ENOMEM;
	uint64_t seq_hash = 0;
	int64_t mid = sample_ids(a, &s, &rewritten, &seq_hash);
	if (mid < 0)
		return (int)mid;
	uint32_t counter;
	if (counter_of(a, s->event, s->event_len, &counter))
		return -ENOMEM;
	const struct skey k = {.offset = s->hit.has_offset ? s->hit.offset : 0, .tid = s->tid,
			       .module = (uint32_t)mid, .counter = counter,
			       .has_offset = s->hit.has_offset};
	int rc = add_flat(a, &k, s->period, s->pid);
	if (!rc && s->callchain && s->nr_callchain)
		rc = add_stack(a, s, s->nr_callchain, seq_hash, counter);
	if (!rc)
		a->nr_samples++;
	return rc;
}
