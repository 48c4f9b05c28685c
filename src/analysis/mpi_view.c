// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/mpi_view.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

int mpi_view_rank_of(const struct pivot *p, int64_t locus)
{
	return locus >= 0 && (size_t)locus < p->nr_loci ? p->loci[locus].rank : -1;
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* The heaviest site of (rank, call), described for the summary; returns
 * its time (ns), 0 when the call has no site. */
static int64_t site_text(const struct pivot *p, int rank, const char *call, char *out,
			 size_t cap)
{
	const struct mpi_site *best = NULL;
	for (size_t i = 0; i < p->nr_mpi_sites; i++) {
		const struct mpi_site *s = &p->mpi_sites[i];
		if (mpi_view_rank_of(p, s->locus) == rank && s->name && strcmp(s->name, call) == 0 &&
		    (!best || s->time_ns > best->time_ns))
			best = s;
	}
	out[0] = '\0';
	if (!best)
		return 0;
	if (best->file && best->line > 0)
		snprintf(out, cap, "%s:%d", base(best->file), best->line);
	else if (best->function)
		snprintf(out, cap, "%s", best->function);
	else
		snprintf(out, cap, "%s+0x%llx", base(best->module),
			 (unsigned long long)best->address);
	return best->time_ns;
}

static void read_measurements(const struct pivot *p, struct mpi_view *v)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		int r = mpi_view_rank_of(p, m->locus);
		if (m->hotspot != PIVOT_NONE || r < 0 || (size_t)r >= v->nr || !m->counter)
			continue;
		struct mpi_rank_time *t = &v->ranks[r];
		if (strcmp(m->counter, "mpi_time") == 0) {
			t->measured = true;
			t->mpi_ns += m->value;
			t->quality = quality__worst(t->quality, m->quality);
			t->reason = m->reason ? m->reason : t->reason;
		} else if (strcmp(m->counter, "mpi_wall_time") == 0) {
			t->wall_ns += m->value;
		} else if (strcmp(m->counter, "mpi_probe_overhead") == 0) {
			t->probe_ns = isnan(t->probe_ns) ? m->value : t->probe_ns + m->value;
		}
	}
}

static int64_t calls_of(const struct pivot *p, int rank, const char *name)
{
	for (size_t i = 0; i < p->nr_mpi_calls; i++)
		if (mpi_view_rank_of(p, p->mpi_calls[i].locus) == rank && p->mpi_calls[i].name &&
		    strcmp(p->mpi_calls[i].name, name) == 0)
			return p->mpi_calls[i].calls;
	return 0;
}

/* The rank where the probe costs most, and its heaviest functions there. */
static void probe_view(const struct pivot *p, struct mpi_view *v)
{
	static const char prefix[] = "mpi_probe_overhead:";
	for (size_t r = 0; r < v->nr; r++) {
		const struct mpi_rank_time *t = &v->ranks[r];
		double f = t->wall_ns > 0 && !isnan(t->probe_ns) ? t->probe_ns / t->wall_ns : 0;
		if (f > v->probe_fraction) {
			v->probe_fraction = f;
			v->probe_rank = (int)r;
		}
	}
	for (size_t i = 0; v->probe_rank >= 0 && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE || !m->counter ||
		    strncmp(m->counter, prefix, sizeof(prefix) - 1) != 0 ||
		    mpi_view_rank_of(p, m->locus) != v->probe_rank ||
		    !(m->value >= 0.1 * v->ranks[v->probe_rank].probe_ns))
			continue;
		int k = v->nr_probe_calls < MPI_VIEW_PROBE_CALLS ? v->nr_probe_calls++
								   : MPI_VIEW_PROBE_CALLS - 1;
		if (k == MPI_VIEW_PROBE_CALLS - 1 && v->probe_calls[k].name &&
		    v->probe_calls[k].ns >= m->value)
			continue;
		v->probe_calls[k].name = m->counter + sizeof(prefix) - 1;
		v->probe_calls[k].ns = m->value;
		for (; k > 0 && v->probe_calls[k].ns > v->probe_calls[k - 1].ns; k--) {
			__typeof__(v->probe_calls[0]) tmp = v->probe_calls[k];
			v->probe_calls[k] = v->probe_calls[k - 1];
			v->probe_calls[k - 1] = tmp;
		}
	}
	for (int k = 0; k < v->nr_probe_calls; k++)
		v->probe_calls[k].calls = calls_of(p, v->probe_rank, v->probe_calls[k].name);
}

int mpi_view_build(const struct pivot *p, size_t nr_ranks, struct mpi_view *v)
{
	memset(v, 0, sizeof(*v));
	v->dom_rank = v->probe_rank = -1;
	if (!nr_ranks)
		return 0;
	v->ranks = xcalloc(nr_ranks, sizeof(*v->ranks));
	if (!v->ranks)
		return -ENOMEM;
	v->nr = nr_ranks;
	for (size_t r = 0; r < nr_ranks; r++)
		v->ranks[r].probe_ns = NAN;
	read_measurements(p, v);
	probe_view(p, v);
	for (size_t r = 0; r < nr_ranks; r++)
		v->nr_measured += v->ranks[r].measured;
	for (size_t i = 0; i < p->nr_mpi_calls; i++) {
		const struct mpi_call *c = &p->mpi_calls[i];
		int r = mpi_view_rank_of(p, c->locus);
		if (r < 0 || (size_t)r >= nr_ranks || !(v->ranks[r].wall_ns > 0))
			continue;
		double f = (double)c->time_ns / v->ranks[r].wall_ns;
		if (f > v->dom_fraction) {
			v->dom_fraction = f;
			v->dom_rank = r;
			v->dom_call = c->name;
		}
	}
	if (v->dom_rank >= 0) {
		int64_t site_ns = site_text(p, v->dom_rank, v->dom_call, v->dom_site,
					    sizeof(v->dom_site));
		v->dom_site_fraction = (double)site_ns / v->ranks[v->dom_rank].wall_ns;
	}
	return 0;
}

void mpi_view__release(struct mpi_view *v)
{
	xfree(v->ranks);
	memset(v, 0, sizeof(*v));
}

static int by_time_desc(const void *a, const void *b)
{
	int64_t x = (*(const struct mpi_site *const *)a)->time_ns;
	int64_t y = (*(const struct mpi_site *const *)b)->time_ns;
	return (x < y) - (x > y);
}

int mpi_view_sites(const struct pivot *p, int rank, const char *call,
		   const struct mpi_site ***out)
{
	const struct mpi_site **v = xcalloc(p->nr_mpi_sites + 1, sizeof(*v));
	*out = v;
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < p->nr_mpi_sites; i++)
		if (mpi_view_rank_of(p, p->mpi_sites[i].locus) == rank && p->mpi_sites[i].name &&
		    strcmp(p->mpi_sites[i].name, call) == 0)
			v[n++] = &p->mpi_sites[i];
	qsort(v, n, sizeof(*v), by_time_desc);
	return (int)(n < MPI_VIEW_MAX_SITES ? n : MPI_VIEW_MAX_SITES);
}

static int call_desc(const void *a, const void *b)
{
	int64_t x = (*(const struct mpi_call *const *)a)->time_ns;
	int64_t y = (*(const struct mpi_call *const *)b)->time_ns;
	return (x < y) - (x > y);
}

int mpi_view_calls(const struct pivot *p, int rank, const struct mpi_call ***out)
{
	const struct mpi_call **v = xcalloc(p->nr_mpi_calls + 1, sizeof(*v));
	*out = v;
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < p->nr_mpi_calls; i++)
		if (mpi_view_rank_of(p, p->mpi_calls[i].locus) == rank)
			v[n++] = &p->mpi_calls[i];
	qsort(v, n, sizeof(*v), call_desc);
	return (int)n;
}

static int ev_longest(const void *a, const void *b)
{
	int64_t x = (*(const struct event *const *)a)->duration_ns;
	int64_t y = (*(const struct event *const *)b)->duration_ns;
	return (x < y) - (x > y);
}

static int ev_start(const void *a, const void *b)
{
	int64_t x = (*(const struct event *const *)a)->start_ns;
	int64_t y = (*(const struct event *const *)b)->start_ns;
	return (x > y) - (x < y);
}

/* The rank below which the MPI_VIEW_MAX_LANES lowest-numbered ranks with
 * Events of kind lie (INT_MAX when fewer); *ranks: how many have some. */
static int lanes_cutoff(const struct pivot *p, const char *kind, size_t *ranks)
{
	int top = -1;
	for (size_t i = 0; i < p->nr_events; i++)
		if (p->events[i].kind && strcmp(p->events[i].kind, kind) == 0) {
			int r = mpi_view_rank_of(p, p->events[i].locus);
			top = r > top ? r : top;
		}
	*ranks = 0;
	if (top < 0)
		return INT_MAX;
	bool *has = xcalloc((size_t)top + 1, sizeof(bool));
	if (!has)
		return -1;
	for (size_t i = 0; i < p->nr_events; i++)
		if (p->events[i].kind && strcmp(p->events[i].kind, kind) == 0) {
			int r = mpi_view_rank_of(p, p->events[i].locus);
			if (r >= 0)
				has[r] = true;
		}
	int cut = INT_MAX;
	for (int r = 0; r <= top; r++)
		if (has[r] && ++*ranks == MPI_VIEW_MAX_LANES + 1 && cut == INT_MAX)
			cut = r;
	xfree(has);
	return cut;
}

const struct event **mpi_view_events(const struct pivot *p, const char *kind, size_t cap,
				     size_t *n_out, size_t *total, size_t *ranks)
{
	int cut = lanes_cutoff(p, kind, ranks);
	const struct event **v = cut >= 0 ? xcalloc(p->nr_events + 1, sizeof(*v)) : NULL;
	size_t n = 0;
	if (!v)
		return NULL;
	*total = 0;
	for (size_t i = 0; i < p->nr_events; i++) {
		int r = mpi_view_rank_of(p, p->events[i].locus);
		if (!p->events[i].kind || strcmp(p->events[i].kind, kind) != 0 ||
		    !p->events[i].name || r < 0)
			continue;
		++*total;
		if (r < cut)
			v[n++] = &p->events[i];
	}
	if (n > cap) {
		qsort(v, n, sizeof(*v), ev_longest);
		n = cap;
	}
	qsort(v, n, sizeof(*v), ev_start);
	*n_out = n;
	return v;
}

int64_t mpi_view_polled_timed(const struct pivot *p, int rank, const char *call)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot == PIVOT_NONE && m->counter &&
		    strncmp(m->counter, "mpi_polled:", 11) == 0 &&
		    strcmp(m->counter + 11, call) == 0 && mpi_view_rank_of(p, m->locus) == rank)
			return (int64_t)m->value;
	}
	return -1;
}
