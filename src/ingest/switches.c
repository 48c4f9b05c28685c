// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/switches.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/injected.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/hashtab.h"
#include "model/model.h"

#define SWITCH_STACK 5 /* kind of a sched_switch sample in the event list */

struct sw_ev {
	uint64_t time;
	uint32_t thread; /* index into threads */
	uint32_t kind;
	int64_t stack;   /* SWITCH_STACK: key id in stacks */
};

struct sw_thread {
	int64_t tid, pid;
	uint64_t hash;
	bool excluded; /* nunatak's own relay (switch_log__exclude) */
};

struct switch_log {
	bool enabled;
	bool blocking_only; /* stacks from sched:sched_switch (switch_log__stacks_from) */
	bool sorted; /* ev[] in cmp_ev order: nothing pushed since the sort */
	struct sw_ev *ev;
	size_t nr_ev, cap_ev;
	struct sw_thread *th;
	size_t nr_th, cap_th;
	struct oatab tt;
	struct strtab stacks; /* serialized frame sequences */
	unsigned char *key;
	size_t cap_key;
	struct injected *injected; /* frames in the libraries nunatak injects */
};

struct switch_log *switch_log__new(void)
{
	struct switch_log *l = xcalloc(1, sizeof(*l));
	if (l)
		l->stacks.last = -1;
	return l;
}

void switch_log__free(struct switch_log *l)
{
	if (!l)
		return;
	xfree(l->ev);
	xfree(l->th);
	oatab__release(&l->tt);
	strtab__release(&l->stacks);
	xfree(l->key);
	injected__free(l->injected);
	xfree(l);
}

void switch_log__enable(struct switch_log *l)
{
	l->enabled = true;
}

bool switch_log__enabled(const struct switch_log *l)
{
	return l && l->enabled;
}

bool switch_log__is_switch_event(const char *event, size_t len)
{
	static const char *const names[] = {"context-switches", "cs", "sched:sched_switch"};
	for (size_t i = 0; event && i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		if (len >= n && !memcmp(event, names[i], n) &&
		    (len == n || event[n] == '/' || event[n] == ':'))
			return true;
	}
	return false;
}

void switch_log__stacks_from(struct switch_log *l, const char *event, size_t len)
{
	static const char tp[] = "sched:sched_switch";
	if (l && event && len >= sizeof(tp) - 1 && !memcmp(event, tp, sizeof(tp) - 1))
		l->blocking_only = true;
}

bool switch_log__blocking_only(const struct switch_log *l)
{
	return l && l->blocking_only;
}

static int64_t thread_of(struct switch_log *l, int64_t pid, int64_t tid)
{
	uint64_t h = mix64((uint64_t)tid);
	for (size_t pos = h & l->tt.mask; l->tt.slot && l->tt.slot[pos]; pos = (pos + 1) & l->tt.mask)
		if (l->th[l->tt.slot[pos] - 1].tid == tid) {
			struct sw_thread *t = &l->th[l->tt.slot[pos] - 1];
			if (t->pid <= 0 && pid > 0)
				t->pid = pid;
			return (int64_t)(l->tt.slot[pos] - 1);
		}
	if (xgrow((void **)&l->th, &l->cap_th, l->nr_th + 1, sizeof(*l->th)))
		return -ENOMEM;
	l->th[l->nr_th++] = (struct sw_thread){.tid = tid, .pid = pid, .hash = h};
	if (oatab__insert(&l->tt, h, (uint32_t)l->nr_th, &l->th[0].hash, sizeof(*l->th)))
		return -ENOMEM;
	return (int64_t)l->nr_th - 1;
}

static int push(struct switch_log *l, int64_t pid, int64_t tid, uint64_t time, uint32_t kind,
		int64_t stack)
{
	int64_t t = thread_of(l, pid, tid);
	if (t < 0)
		return (int)t;
	if (xgrow((void **)&l->ev, &l->cap_ev, l->nr_ev + 1, sizeof(*l->ev)))
		return -ENOMEM;
	l->ev[l->nr_ev++] = (struct sw_ev){.time = time, .thread = (uint32_t)t, .kind = kind,
					   .stack = stack};
	l->sorted = false;
	return 0;
}

int switch_log__exclude(struct switch_log *l, int64_t pid, int64_t tid)
{
	int64_t t = tid > 0 ? thread_of(l, pid, tid) : 0;
	if (t < 0)
		return (int)t;
	if (tid > 0)
		l->th[t].excluded = true;
	return 0;
}

int switch_log__event(struct switch_log *l, int64_t pid, int64_t tid, uint64_t time_ns,
		      enum switch_kind k)
{
	if (tid <= 0 || (k == SWITCH_START && time_ns == 0))
		return 0; /* the idle task; perf's synthesized records carry no time */
	return push(l, pid, tid, time_ns, (uint32_t)k, -1);
}

/* Frame sequence as bytes: per frame u16 module length, module, u64 offset. */
int switch_log__stack(struct switch_log *l, const struct ingest_sample *s)
{
	/* the probe's frames are the MPI call, as in aggregated samples */
	struct ingest_sample rewritten;
	if (!l->injected && !(l->injected = injected__new()))
		return -ENOMEM;
	int irc = injected__rewrite(l->injected, s, &rewritten);
	if (irc < 0)
		return irc;
	if (irc > 0)
		s = &rewritten;
	const struct ingest_frame *f = s->callchain ? s->callchain : &s->hit;
	size_t n = s->callchain ? s->nr_callchain : 1, len = 0;
	for (size_t i = 0; i < n; i++)
		len += 2 + (f[i].module_len > 0xffff ? 0xffff : f[i].module_len) + 8;
	if (xgrow((void **)&l->key, &l->cap_key, len + 1, 1))
		return -ENOMEM;
	unsigned char *k = l->key;
	for (size_t i = 0; i < n; i++) {
		uint16_t ml = (uint16_t)(f[i].module_len > 0xffff ? 0xffff : f[i].module_len);
		uint64_t off = f[i].has_offset ? f[i].offset : 0;
		memcpy(k, &ml, 2);
		memcpy(k + 2, f[i].module, ml);
		memcpy(k + 2 + ml, &off, 8);
		k += 2 + ml + 8;
	}
	int64_t id = strtab__intern(&l->stacks, (const char *)l->key, len, NULL);
	if (id < 0)
		return -ENOMEM;
	return push(l, s->pid, s->tid, s->time_ns, SWITCH_STACK, id);
}

/* Same time: a thread starts before anything, its stack sample precedes
 * its switch out, and it exits last. */
static int kind_rank(uint32_t k)
{
	static const int rank[] = {[SWITCH_START] = 0, [SWITCH_IN] = 2, [SWITCH_OUT] = 3,
				   [SWITCH_OUT_PREEMPT] = 3, [SWITCH_EXIT] = 4, [SWITCH_STACK] = 1};
	return rank[k];
}

static int cmp_ev(const void *a, const void *b)
{
	const struct sw_ev *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return kind_rank(x->kind) - kind_rank(y->kind);
}

/* Off-CPU time per (thread, stack) before it becomes pivot stacks. */
struct offcpu_part {
	uint32_t thread;
	bool preempted;
	int64_t stack;
	uint64_t ns;
	int64_t n;
};

struct budget {
	uint64_t start, end, off, preempted;
	int64_t switches;
	uint64_t unstacked;    /* preempted time without a stack */
	int64_t nr_unstacked;  /* its intervals */
};

struct walk {
	struct offcpu_part *parts;
	size_t nr_parts, cap_parts;
	switch_interval_fn fn; /* switch_log__intervals: each interval, no parts */
	void *ctx;
	const struct sw_thread *th;
};

static int attribute(struct walk *w, uint32_t thread, int64_t stack, bool preempted, uint64_t ns);

static int interval(struct walk *w, uint32_t thread, int64_t stack, bool preempted,
		    uint64_t start, uint64_t end)
{
	if (!w->fn)
		return attribute(w, thread, stack, preempted, end - start);
	return end > start ? w->fn(w->ctx, w->th[thread].pid, w->th[thread].tid, start, end) : 0;
}

static int attribute(struct walk *w, uint32_t thread, int64_t stack, bool preempted, uint64_t ns)
{
	for (size_t i = w->nr_parts; i-- > 0 && w->parts[i].thread == thread;)
		if (w->parts[i].stack == stack && w->parts[i].preempted == preempted) {
			w->parts[i].ns += ns;
			w->parts[i].n++;
			return 0;
		}
	if (xgrow((void **)&w->parts, &w->cap_parts, w->nr_parts + 1, sizeof(*w->parts)))
		return -ENOMEM;
	w->parts[w->nr_parts++] = (struct offcpu_part){.thread = thread, .stack = stack, .ns = ns,
						       .n = 1, .preempted = preempted};
	return 0;
}

/* One thread's events ev[0..n), sorted: its budget, and its off-CPU
 * intervals per stack into w. */
static int walk_thread(struct walk *w, const struct sw_ev *ev, size_t n, struct budget *b)
{
	*b = (struct budget){.start = ev[0].time, .end = ev[n - 1].time};
	size_t first_sw = n;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == SWITCH_EXIT)
			b->end = ev[i].time;
		if (first_sw == n && ev[i].kind != SWITCH_START && ev[i].kind != SWITCH_STACK &&
		    ev[i].kind != SWITCH_EXIT)
			first_sw = i;
	}
	/* a thread whose first switch is an in started runnable, off the CPU */
	bool on = first_sw == n || ev[first_sw].kind != SWITCH_IN, preempt = true;
	uint64_t since = b->start;
	int64_t cand = -1, off_stack = -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = ev[i].time < b->start ? b->start : ev[i].time > b->end ? b->end : ev[i].time;
		switch (ev[i].kind) {
		case SWITCH_STACK:
			if (on)
				cand = ev[i].stack;
			break;
		case SWITCH_OUT:
		case SWITCH_OUT_PREEMPT:
			if (!on)
				break;
			on = false;
			since = t;
			off_stack = cand;
			preempt = ev[i].kind == SWITCH_OUT_PREEMPT;
			cand = -1;
			b->switches++;
			break;
		case SWITCH_IN:
			if (on)
				break;
			on = true;
			b->off += t - since;
			if (preempt)
				b->preempted += t - since;
			if (preempt && off_stack < 0) {
				b->unstacked += t - since;
				b->nr_unstacked++;
			}
			int rc = interval(w, ev[i].thread, off_stack, preempt, since, t);
			if (rc)
				return rc;
			cand = -1;
			break;
		default:
			break;
		}
	}
	if (!on && b->end > since) { /* ended off the CPU (a record lost at the end) */
		b->off += b->end - since;
		if (preempt)
			b->preempted += b->end - since;
		if (preempt && off_stack < 0) {
			b->unstacked += b->end - since;
			b->nr_unstacked++;
		}
		if (w->fn)
			return w->fn(w->ctx, w->th[ev[0].thread].pid, w->th[ev[0].thread].tid, since,
				     b->end);
	}
	return 0;
}

static int add_time(struct pivot *p, int64_t locus, const char *counter, uint64_t ns,
		    int64_t n, int pass)
{
	struct measurement m = {.hotspot = PIVOT_NONE, .locus = locus, .pass_index = pass,
				.counter = (char *)counter, .value = (double)ns, .unit = (char *)"ns",
				.quality = QUALITY_MEASURED, .sample_count = n, .coverage = -1};
	return pivot__add_measurement(p, &m) < 0 ? -ENOMEM : 0;
}

static int emit_stack(const struct switch_log *l, const struct offcpu_part *q, int64_t locus,
		      int pass, struct pivot *p)
{
	if (q->stack < 0)
		return 0; /* unattributed: in the thread's off-CPU time only */
	struct stack s = {.locus = locus, .pass_index = pass,
			  .counter = (char *)(q->preempted ? OFFCPU_PREEMPTED_COUNTER : OFFCPU_COUNTER),
			  .value = (double)q->ns, .unit = (char *)"ns", .sample_count = q->n};
	int64_t sid = pivot__add_stack(p, &s);
	if (sid < 0)
		return -ENOMEM;
	const unsigned char *k = (const unsigned char *)l->stacks.s[q->stack];
	const unsigned char *end = k + l->stacks.len[q->stack];
	char mod[4096];
	for (int d = 0; k + 10 <= end; d++) {
		uint16_t ml;
		uint64_t off;
		memcpy(&ml, k, 2);
		size_t cp = ml < sizeof(mod) - 1 ? ml : sizeof(mod) - 1;
		memcpy(mod, k + 2, cp);
		mod[cp] = '\0';
		memcpy(&off, k + 2 + ml, 8);
		k += 2 + ml + 8;
		char name[160];
		struct stack_frame sf = {.stack = sid, .depth = d, .module = mod, .offset = off};
		if (injected_pseudo_name(mod, name, sizeof(name)))
			sf.function = name;
		if (pivot__add_stack_frame(p, &sf) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int emit_thread(struct switch_log *l, struct walk *w, size_t part0, const struct budget *b,
		       uint32_t thread, const struct ingest_opts *o, struct pivot *p)
{
	const struct sw_thread *t = &l->th[thread];
	int64_t locus = pivot__intern_locus(p, o->node, o->rank, t->tid);
	if (locus < 0)
		return -ENOMEM;
	if (p->loci[locus].pid == 0 && t->pid > 0)
		p->loci[locus].pid = t->pid;
	uint64_t wall = b->end - b->start, off = b->off > wall ? wall : b->off;
	int rc = add_time(p, locus, TIME_WALL_COUNTER, wall, -1, o->pass_index);
	if (!rc)
		rc = add_time(p, locus, TIME_OFFCPU_COUNTER, off, b->switches, o->pass_index);
	if (!rc)
		rc = add_time(p, locus, TIME_CPU_COUNTER, wall - off, -1, o->pass_index);
	if (!rc)
		rc = add_time(p, locus, TIME_PREEMPTED_COUNTER, b->preempted, -1, o->pass_index);
	if (!rc && l->blocking_only)
		rc = add_time(p, locus, TIME_PREEMPTED_UNSTACKED_COUNTER,
			      b->unstacked > b->preempted ? b->preempted : b->unstacked,
			      b->nr_unstacked, o->pass_index);
	for (size_t i = part0; !rc && i < w->nr_parts; i++)
		rc = emit_stack(l, &w->parts[i], locus, o->pass_index, p);
	return rc;
}

/* cmp_ev's time and kind rank as one key (rank < 8, times below 2^61). */
static inline uint64_t ev_key(const struct sw_ev *e)
{
	return e->time << 3 | (uint64_t)kind_rank(e->kind);
}

static inline unsigned ev_digit(const struct sw_ev *e, bool by_thread, unsigned shift)
{
	return (unsigned)(((by_thread ? e->thread : ev_key(e)) >> shift) & 0xff);
}

/* One stable counting pass of from into to, by one byte. */
static void radix_pass(const struct sw_ev *from, struct sw_ev *to, size_t n, bool by_thread,
		       unsigned shift)
{
	size_t at[257] = {0};
	for (size_t i = 0; i < n; i++)
		at[ev_digit(&from[i], by_thread, shift) + 1]++;
	for (int b = 0; b < 256; b++)
		at[b + 1] += at[b];
	for (size_t i = 0; i < n; i++)
		to[at[ev_digit(&from[i], by_thread, shift)]++] = from[i];
}

/* cmp_ev's order by stable passes from the least significant byte: the
 * time and kind rank, then the thread, only the bytes that differ between
 * events (~6 passes for a LAMMPS Run's events, instead of a comparison sort
 * through a function pointer: ~4 ms of its finish). Events equal in all
 * three keep their order, which no result depends on
 * (unit_ingest_test_switch_order). False (nothing done) for a time from
 * 2^61 ns (73 years) on, or without memory: then qsort. */
static bool radix_sort(struct sw_ev *ev, size_t n)
{
	uint64_t any = 0, all = ~(uint64_t)0, any_th = 0, all_th = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].time >> 61)
			return false;
		uint64_t k = ev_key(&ev[i]);
		any |= k, all &= k, any_th |= ev[i].thread, all_th &= ev[i].thread;
	}
	struct sw_ev *tmp = xmalloc(n * sizeof(*ev)), *from = ev, *to = tmp;
	if (!tmp)
		return false;
	for (unsigned pass = 0; pass < 12; pass++) {
		bool by_thread = pass >= 8;
		unsigned shift = 8 * (by_thread ? pass - 8 : pass);
		if (!((((by_thread ? any_th ^ all_th : any ^ all)) >> shift) & 0xff))
			continue; /* every event has this byte */
		radix_pass(from, to, n, by_thread, shift);
		struct sw_ev *t = from;
		from = to, to = t;
	}
	if (from != ev)
		memcpy(ev, from, n * sizeof(*ev));
	xfree(tmp);
	return true;
}

void switch_log__sort(struct switch_log *l)
{
	if (!l || l->sorted)
		return;
	if (l->nr_ev > 1 && !radix_sort(l->ev, l->nr_ev))
		qsort(l->ev, l->nr_ev, sizeof(*l->ev), cmp_ev);
	l->sorted = true;
}

int switch_log__intervals(struct switch_log *l, switch_interval_fn fn, void *ctx)
{
	if (!l || !l->enabled || l->nr_ev == 0)
		return 0;
	switch_log__sort(l);
	struct walk w = {.fn = fn, .ctx = ctx, .th = l->th};
	int rc = 0;
	for (size_t i = 0, j; i < l->nr_ev && !rc; i = j) {
		for (j = i; j < l->nr_ev && l->ev[j].thread == l->ev[i].thread;)
			j++;
		struct budget b;
		rc = walk_thread(&w, l->ev + i, j - i, &b);
	}
	return rc;
}

int switch_log__emit(struct switch_log *l, const struct ingest_opts *o, struct pivot *p,
		     struct err *e)
{
	if (!l || !l->enabled || l->nr_ev == 0)
		return 0;
	switch_log__sort(l);
	struct walk w = {0};
	int rc = 0;
	for (size_t i = 0, j; i < l->nr_ev && !rc; i = j) {
		for (j = i; j < l->nr_ev && l->ev[j].thread == l->ev[i].thread;)
			j++;
		if (l->th[l->ev[i].thread].excluded)
			continue;
		struct budget b;
		size_t part0 = w.nr_parts;
		rc = walk_thread(&w, l->ev + i, j - i, &b);
		if (!rc)
			rc = emit_thread(l, &w, part0, &b, l->ev[i].thread, o, p);
	}
	xfree(w.parts);
	if (rc)
		return err_set(e, rc, ERR_OOM, "out of memory writing the threads' time budget");
	return 0;
}
