// SPDX-License-Identifier: BSD-3-Clause
// The switch log orders its records itself (perf.data is only sorted per
// round, and threads interleave): whatever order the same records arrive
// in, the off-CPU intervals and the threads' time budget come out the same.
// Threads that switch thousands of times, records of many threads
// interleaved, runs out of order, ties at one timestamp (a stack sample and
// the switch out it precedes), shuffled in full or only locally.
#include "harness.h"

#include <errno.h>

#include "common/alloc.h"
#include "common/err.h"
#include "ingest/switches.h"
#include "model/model.h"

struct rec {
	int64_t pid, tid;
	uint64_t t;
	int kind; /* enum switch_kind, or -1: a stack sample */
	char mod[16];
	uint64_t off;
};

struct interval {
	int64_t pid, tid;
	uint64_t start, end;
};

struct collected {
	struct interval *v;
	size_t n, cap;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static int collect(void *ctx, int64_t pid, int64_t tid, uint64_t start, uint64_t end)
{
	struct collected *c = ctx;
	if (xgrow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n++] = (struct interval){pid, tid, start, end};
	return 0;
}

/* Records of nt threads of two processes: each starts, alternates on and
 * off the CPU (a stack sample at the very time of each blocking switch out,
 * some switch outs preempted), and exits. */
static size_t make(struct rec *r, size_t cap, int nt)
{
	size_t n = 0;
	for (int th = 0; th < nt; th++) {
		int64_t pid = 100 + th % 2, tid = 1000 + th;
		uint64_t t = 1000 + rnd(5000);
		r[n++] = (struct rec){pid, tid, t, SWITCH_START, "", 0};
		for (int k = 0, nk = 50 + (int)rnd(400); k < nk && n + 4 < cap; k++) {
			t += 1 + rnd(3000);
			bool preempt = rnd(4) == 0;
			if (!preempt) {
				struct rec s = {pid, tid, t, -1, "", rnd(8) * 16};
				snprintf(s.mod, sizeof(s.mod), "/lib/m%d.so", (int)rnd(3));
				r[n++] = s;
			}
			r[n++] = (struct rec){pid, tid, t, preempt ? SWITCH_OUT_PREEMPT : SWITCH_OUT,
					      "", 0};
			t += 1 + rnd(3000);
			r[n++] = (struct rec){pid, tid, t, SWITCH_IN, "", 0};
		}
		r[n++] = (struct rec){pid, tid, t + 1 + rnd(100), SWITCH_EXIT, "", 0};
	}
	return n;
}

static void feed(struct switch_log *l, const struct rec *r, const size_t *order, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rec *x = &r[order[i]];
		if (x->kind >= 0) {
			CHECK_INT(switch_log__event(l, x->pid, x->tid, x->t, (enum switch_kind)x->kind),
				  0);
			continue;
		}
		struct ingest_frame f = {.module = x->mod, .module_len = strlen(x->mod),
					 .offset = x->off, .has_offset = true};
		struct ingest_sample s = {.pid = x->pid, .tid = x->tid, .time_ns = x->t,
					  .event = "context-switches", .event_len = 16, .hit = f,
					  .callchain = &f, .nr_callchain = 1};
		CHECK_INT(switch_log__stack(l, &s), 0);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The intervals and the emitted Measurements (budget and off-CPU stacks, as
 * text) of the records in that order. */
static void run(const struct rec *r, const size_t *order, size_t n, struct collected *c,
		char **text)
{
	struct switch_log *l = switch_log__new();
	CHECK(l != NULL);
	switch_log__enable(l);
	feed(l, r, order, n);
	CHECK_INT(switch_log__intervals(l, collect, c), 0);
	/* by thread, then time: threads are walked in the order they appeared */
	qsort(c->v, c->n, sizeof(*c->v), cmp_interval);
	struct pivot p;
	pivot__init(&p);
	struct ingest_opts o = {.sz = sizeof(o), .node = "n1", .rank = 0};
	struct err e = {0};
	CHECK_INT(switch_log__emit(l, &o, &p, &e), 0);
	/* one line per Measurement and per stack (its frames on its line), in
	 * sorted order: threads are numbered as they first appear */
	size_t nl = p.nr_measurements + p.nr_stacks;
	char **lines = xcalloc(nl + 1, sizeof(*lines));
	CHECK(lines != NULL);
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		lines[i] = xasprintf("m %lld %s %.0f %lld", (long long)p.loci[m->locus].thread,
				     m->counter, m->value, (long long)m->sample_count);
	}
	for (size_t i = 0; i < p.nr_stacks; i++) {
		const struct stack *st = &p.stacks[i];
		char *sl = xasprintf("s %lld %s %.0f %lld:", (long long)p.loci[st->locus].thread,
				    st->counter, st->value, (long long)st->sample_count);
		for (size_t j = 0; sl && j < p.nr_stack_frames; j++) {
			const struct stack_frame *f = &p.stack_frames[j];
			if (f->stack != (int64_t)i)
				continue;
			char *more = xasprintf("%s %d@%s+%llu", sl, f->depth, f->module,
					       (unsigned long long)f->offset);
			xfree(sl);
			sl = more;
		}
		lines[p.nr_measurements + i] = sl;
	}
	qsort(lines, nl, sizeof(*lines), cmp_str);
	size_t len = 0, cap = 0;
	*text = NULL;
	for (size_t i = 0; i < nl; i++) {
		CHECK(lines[i] != NULL);
		size_t k = strlen(lines[i]);
		CHECK(xgrow((void **)text, &cap, len + k + 2, 1) == 0);
		memcpy(*text + len, lines[i], k);
		(*text)[len + k] = '\n';
		(*text)[len + k + 1] = '\0';
		len += k + 1;
		xfree(lines[i]);
	}
	xfree(lines);
	CHECK(*text != NULL);
	pivot__release(&p);
	switch_log__free(l);
}

static void t_any_arrival_order(void)
{
	enum { CAP = 40000 };
	static struct rec r[CAP];
	static size_t order[CAP];
	size_t n = make(r, CAP, 12);
	/* the reference: each thread's records in time order, threads one
	 * after another */
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	struct collected ref = {0};
	char *ref_text = NULL;
	run(r, order, n, &ref, &ref_text);
	CHECK(ref.n > 1000);
	for (int round = 0; round < 8; round++) {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		if (round % 2 == 0) { /* a full shuffle */
			for (size_t i = n - 1; i > 0; i--) {
				size_t j = rnd(i + 1), tmp = order[i];
				order[i] = order[j];
				order[j] = tmp;
			}
		} else { /* threads interleaved, only nearby records swapped */
			for (size_t i = 0; i + 1 < n; i++)
				if (rnd(3) == 0) {
					size_t j = i + 1 + rnd(n - i - 1 < 40 ? n - i - 1 : 40);
					size_t tmp = order[i];
					order[i] = order[j];
					order[j] = tmp;
				}
		}
		struct collected got = {0};
		char *text = NULL;
		run(r, order, n, &got, &text);
		CHECK_INT(got.n, ref.n);
		for (size_t i = 0; i < ref.n; i++) {
			CHECK_INT(got.v[i].tid, ref.v[i].tid);
			CHECK_INT(got.v[i].start, ref.v[i].start);
			CHECK_INT(got.v[i].end, ref.v[i].end);
		}
		CHECK_STR(text, ref_text);
		xfree(got.v);
		xfree(text);
	}
	xfree(ref.v);
	xfree(ref_text);
}

/* The switch log sorts by radix over the bytes times differ in, and by
 * qsort (the comparison it had before) when a time is 2^61 ns or more:
 * the same records shifted there give the same intervals (shifted) and
 * the same budget, shuffled either way. */
static void t_radix_as_qsort(void)
{
	enum { CAP = 40000 };
	static struct rec r[CAP], far[CAP];
	static size_t order[CAP];
	size_t n = make(r, CAP, 9);
	const uint64_t shift = 1ull << 61;
	for (size_t i = 0; i < n; i++) {
		far[i] = r[i];
		far[i].t += shift;
		order[i] = i;
	}
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd(i + 1), tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	struct collected a = {0}, b = {0};
	char *ta = NULL, *tb = NULL;
	run(r, order, n, &a, &ta);
	run(far, order, n, &b, &tb);
	CHECK(a.n > 1000);
	CHECK_INT(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		CHECK_INT(a.v[i].tid, b.v[i].tid);
		CHECK(a.v[i].start + shift == b.v[i].start && a.v[i].end + shift == b.v[i].end);
	}
	CHECK_STR(ta, tb);
	xfree(a.v), xfree(b.v), xfree(ta), xfree(tb);
}

static const struct test_case cases[] = {
	{"any_arrival_order", "the same records in any order give the same intervals and budget",
	 t_any_arrival_order},
	{"radix_as_qsort", "the radix order gives what the comparison sort gave",
	 t_radix_as_qsort},
};

TEST_MAIN(cases)
