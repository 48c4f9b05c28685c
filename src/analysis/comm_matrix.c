// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/comm_matrix.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_view.h"
#include "common/alloc.h"
#include "model/model.h"

static int cmp_pair_key(const void *a, const void *b)
{
	const struct comm_pair *x = a, *y = b;
	if (x->from != y->from)
		return (x->from > y->from) - (x->from < y->from);
	return (x->to > y->to) - (x->to < y->to);
}

static int cmp_heaviest(const void *a, const void *b)
{
	const struct comm_pair *x = a, *y = b;
	if (x->bytes != y->bytes)
		return (x->bytes < y->bytes) - (x->bytes > y->bytes);
	if (x->time_ns != y->time_ns)
		return (x->time_ns < y->time_ns) - (x->time_ns > y->time_ns);
	return cmp_pair_key(a, b);
}

/* One contribution per placed peer row, then merged by (from, to). */
static int gather(const struct pivot *p, struct comm_matrix *m, bool *reporting)
{
	struct comm_pair *v = xcalloc(p->nr_mpi_peers + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < p->nr_mpi_peers; i++) {
		const struct mpi_peer *q = &p->mpi_peers[i];
		int r = mpi_view_rank_of(p, q->locus);
		bool recv = q->direction && strcmp(q->direction, "recv") == 0;
		if (r < 0 || r >= m->nr_ranks)
			continue;
		reporting[r] = true;
		if (q->peer < 0 || q->peer >= m->nr_ranks) {
			if (!recv)
				m->unplaced_messages += q->calls, m->unplaced_bytes += q->bytes;
			continue;
		}
		v[n++] = recv ? (struct comm_pair){.from = q->peer, .to = r, .time_ns = q->time_ns}
			      : (struct comm_pair){.from = r, .to = q->peer, .messages = q->calls,
						   .bytes = q->bytes, .time_ns = q->time_ns};
	}
	qsort(v, n, sizeof(*v), cmp_pair_key);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].from == v[i].from && v[k - 1].to == v[i].to) {
			v[k - 1].messages += v[i].messages;
			v[k - 1].bytes += v[i].bytes;
			v[k - 1].time_ns += v[i].time_ns;
		} else {
			v[k++] = v[i];
		}
		m->messages += v[i].messages, m->bytes += v[i].bytes, m->time_ns += v[i].time_ns;
	}
	m->pairs = v;
	m->nr_pairs = k;
	return 0;
}

static int bin_cells(struct comm_matrix *m)
{
	m->bin = (m->nr_ranks + COMM_MATRIX_MAX_BINS - 1) / COMM_MATRIX_MAX_BINS;
	m->bin = m->bin > 0 ? m->bin : 1;
	m->nr_bins = (m->nr_ranks + m->bin - 1) / m->bin;
	size_t nb = (size_t)m->nr_bins;
	struct comm_pair *dense = xcalloc(nb * nb + 1, sizeof(*dense));
	if (!dense)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_pairs; i++) {
		const struct comm_pair *q = &m->pairs[i];
		int fb = q->from / m->bin, tb = q->to / m->bin;
		struct comm_pair *c = &dense[(size_t)fb * nb + (size_t)tb];
		c->from = fb, c->to = tb;
		c->messages += q->messages, c->bytes += q->bytes, c->time_ns += q->time_ns;
	}
	size_t k = 0;
	for (size_t i = 0; i < nb * nb; i++)
		if (dense[i].messages || dense[i].bytes || dense[i].time_ns)
			dense[k++] = dense[i];
	m->cells = dense;
	m->nr_cells = k;
	return 0;
}

int comm_matrix_build(const struct pivot *p, int nr_ranks, struct comm_matrix *m)
{
	*m = (struct comm_matrix){.nr_ranks = nr_ranks > 0 ? nr_ranks : 0};
	if (!p->nr_mpi_peers || m->nr_ranks == 0)
		return 0;
	bool *reporting = xcalloc((size_t)m->nr_ranks, sizeof(bool));
	int rc = reporting ? gather(p, m, reporting) : -ENOMEM;
	for (int r = 0; rc == 0 && r < m->nr_ranks; r++)
		m->nr_reporting += reporting[r];
	xfree(reporting);
	if (rc == 0 && m->nr_reporting)
		rc = bin_cells(m);
	if (rc == 0)
		qsort(m->pairs, m->nr_pairs, sizeof(*m->pairs), cmp_heaviest);
	if (rc < 0)
		comm_matrix__release(m);
	return rc;
}

void comm_matrix__release(struct comm_matrix *m)
{
	xfree(m->pairs);
	xfree(m->cells);
	*m = (struct comm_matrix){0};
}
