// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/thread_names.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "model/model.h"

void thread_names__init(struct thread_names *t)
{
	memset(t, 0, sizeof(*t));
	t->comms.last = -1;
}

void thread_names__release(struct thread_names *t)
{
	strtab__release(&t->comms);
	xfree(t->tc);
	oatab__release(&t->tct);
	xfree(t->ev);
	thread_names__init(t);
}

static struct tidcomm *find(const struct thread_names *t, int64_t tid, uint64_t h)
{
	for (size_t pos = h & t->tct.mask; t->tct.slot && t->tct.slot[pos];
	     pos = (pos + 1) & t->tct.mask)
		if (t->tc[t->tct.slot[pos] - 1].tid == tid)
			return &t->tc[t->tct.slot[pos] - 1];
	return NULL;
}

int thread_names__set(struct thread_names *t, int64_t tid, const char *comm, size_t len,
		      uint64_t time)
{
	uint64_t h = mix64((uint64_t)tid);
	struct tidcomm *c = find(t, tid, h);
	if (c && time < c->time)
		return 0; /* an older name, written after the newer one */
	int64_t cid = strtab__intern(&t->comms, comm, len, NULL);
	if (cid < 0)
		return -ENOMEM;
	if (c) {
		c->comm = (uint32_t)cid; /* exec, prctl(PR_SET_NAME) rename */
		c->time = time;
		return 0;
	}
	if (xgrow((void **)&t->tc, &t->cap_tc, t->nr_tc + 1, sizeof(*t->tc)))
		return -ENOMEM;
	t->tc[t->nr_tc++] =
		(struct tidcomm){.tid = tid, .hash = h, .time = time, .comm = (uint32_t)cid};
	return oatab__insert(&t->tct, h, (uint32_t)t->nr_tc, &t->tc[0].hash, sizeof(*t->tc));
}

static int add_event(struct thread_names *t, struct tn_event ev)
{
	if (xgrow((void **)&t->ev, &t->cap_ev, t->nr_ev + 1, sizeof(*t->ev)))
		return -ENOMEM;
	ev.seq = t->nr_ev;
	t->ev[t->nr_ev++] = ev;
	return 0;
}

int thread_names__comm_at(struct thread_names *t, int64_t tid, const char *comm, size_t len,
			  uint64_t time)
{
	int64_t cid = strtab__intern(&t->comms, comm, len, NULL);
	if (cid < 0)
		return -ENOMEM;
	return add_event(t, (struct tn_event){.time = time, .tid = tid, .parent = -1, .comm = cid});
}

int thread_names__fork_at(struct thread_names *t, int64_t child, int64_t parent, uint64_t time)
{
	return add_event(t, (struct tn_event){.time = time, .tid = child, .parent = parent,
					      .comm = -1});
}

/* Time order; records of one time (or without one: 0) in file order. */
static int cmp_event(const void *a, const void *b)
{
	const struct tn_event *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int thread_names__replay(struct thread_names *t)
{
	if (t->nr_ev > 1)
		qsort(t->ev, t->nr_ev, sizeof(*t->ev), cmp_event);
	int rc = 0;
	for (size_t i = 0; i < t->nr_ev && !rc; i++) {
		const struct tn_event *e = &t->ev[i];
		const struct tidcomm *from = e->comm < 0 ? find(t, e->parent, mix64((uint64_t)e->parent))
						      : NULL;
		int64_t cid = e->comm >= 0 ? e->comm : from ? (int64_t)from->comm : -1;
		if (cid >= 0)
			rc = thread_names__set(t, e->tid, t->comms.s[cid], t->comms.len[cid], e->time);
	}
	zfree(&t->ev);
	t->nr_ev = t->cap_ev = 0;
	return rc;
}

const char *thread_names__get(const struct thread_names *t, int64_t tid, size_t *len)
{
	const struct tidcomm *c = find(t, tid, mix64((uint64_t)tid));
	*len = c ? t->comms.len[c->comm] : 0;
	return c ? t->comms.s[c->comm] : NULL;
}

static bool same_node(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int thread_names__name_loci(const struct thread_names *t, const char *node, int rank,
			    struct pivot *p)
{
	for (size_t i = 0; t->nr_tc && i < p->nr_loci; i++) {
		struct locus *l = &p->loci[i];
		size_t n;
		const char *c = l->thread >= 0 && l->rank == rank && same_node(l->node, node)
					? thread_names__get(t, l->thread, &n)
					: NULL;
		if (c && locus__set_name(l, c, n))
			return -ENOMEM;
	}
	return 0;
}
