// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/rank_placement.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static int rank_of(const struct pivot *p, int64_t locus)
{
	return locus >= 0 && (size_t)locus < p->nr_loci ? p->loci[locus].rank : -1;
}

/* Distinct ranks (>= 0) with Hotspot-level Measurements, ascending. */
static int gather_ranks(const struct pivot *p, struct rank_placement *rp)
{
	size_t cap = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		int r = rank_of(p, m->locus);
		if (m->hotspot == PIVOT_NONE || r < 0)
			continue;
		bool seen = false;
		for (size_t k = 0; k < rp->nr_ranks && !seen; k++)
			seen = rp->ranks[k] == r;
		if (seen)
			continue;
		if (xgrow((void **)&rp->ranks, &cap, rp->nr_ranks + 1, sizeof(int)))
			return -ENOMEM;
		rp->ranks[rp->nr_ranks++] = r;
	}
	if (rp->nr_ranks)
		qsort(rp->ranks, rp->nr_ranks, sizeof(int), cmp_int);
	return 0;
}

/* The Ceilings rank k is placed against: its node's, else the Run's when
 * the Run records no nodes. A rank missing from recorded nodes has none: the
 * Run's may be its nodes' sum (model/node_machines.h), no one rank's roof. */
static size_t ceilings_of(const struct rank_placement *rp, size_t k, const struct analysis *a,
			  const struct node_machines *nodes, struct ceiling c[2],
			  const struct ceiling **flops, const struct ceiling **bw)
{
	const struct node_machine *n = rp->node[k];
	bool run = !n && !(nodes && nodes->n);
	*flops = n ? node_machine__ceiling(n, "flops_dp") : run ? a->flops_ceiling : NULL;
	*bw = n ? node_machine__ceiling(n, "dram_bandwidth") : run ? a->bw_ceiling : NULL;
	size_t nc = 0;
	if (*flops)
		c[nc++] = **flops;
	if (*bw)
		c[nc++] = **bw;
	return nc;
}

int rank_placement_run(const struct pivot *p, const struct analysis *a,
		       const struct node_machines *nodes, struct rank_placement *rp)
{
	memset(rp, 0, sizeof(*rp));
	int rc = gather_ranks(p, rp);
	if (rc || rp->nr_ranks < 2) {
		rank_placement__release(rp);
		return rc;
	}
	rp->per_rank = xcalloc(rp->nr_ranks, sizeof(*rp->per_rank));
	rp->node = xcalloc(rp->nr_ranks, sizeof(*rp->node));
	struct measurement *ms = xcalloc(p->nr_measurements ? p->nr_measurements : 1, sizeof(*ms));
	if (!rp->per_rank || !rp->node || !ms) {
		xfree(ms);
		rank_placement__release(rp);
		return -ENOMEM;
	}
	for (size_t k = 0; rc == 0 && k < rp->nr_ranks; k++) {
		/* A shallow view of the pivot: the same tables, this rank's
		 * Measurements only (strings borrowed, nothing released). */
		struct pivot view = *p;
		size_t n = 0;
		for (size_t i = 0; i < p->nr_measurements; i++)
			if (rank_of(p, p->measurements[i].locus) == rp->ranks[k])
				ms[n++] = p->measurements[i];
		view.measurements = ms;
		view.nr_measurements = n;
		rp->node[k] = node_machines__of_rank(nodes, rp->ranks[k]);
		struct ceiling c[2];
		const struct ceiling *flops, *bw;
		size_t nc = ceilings_of(rp, k, a, nodes, c, &flops, &bw);
		rc = analysis_run(&view, nc ? c : NULL, nc, 1, &rp->per_rank[k]);
		/* The ceilings live in c[]: repoint to the caller's, which outlive us. */
		rp->per_rank[k].flops_ceiling = flops;
		rp->per_rank[k].bw_ceiling = bw;
	}
	xfree(ms);
	if (rc)
		rank_placement__release(rp);
	return rc;
}

void rank_placement__release(struct rank_placement *rp)
{
	for (size_t k = 0; rp->per_rank && k < rp->nr_ranks; k++)
		analysis__release(&rp->per_rank[k]);
	xfree(rp->per_rank);
	xfree(rp->node);
	xfree(rp->ranks);
	memset(rp, 0, sizeof(*rp));
}

const struct diagnostic *rank_placement__get(const struct rank_placement *rp, size_t i,
					     int64_t hotspot)
{
	if (!rp->per_rank || i >= rp->nr_ranks)
		return NULL;
	const struct analysis *a = &rp->per_rank[i];
	for (size_t k = 0; k < a->nr_diags; k++)
		if (a->diags[k].hotspot == hotspot)
			return &a->diags[k];
	return NULL;
}

size_t rank_placement__spread(const struct rank_placement *rp, int64_t hotspot, double *lo,
			      int *lo_rank, double *hi, int *hi_rank, double *median)
{
	double *v = xcalloc(rp->nr_ranks ? rp->nr_ranks : 1, sizeof(double));
	size_t n = 0;
	*lo = INFINITY;
	*hi = -INFINITY;
	*lo_rank = *hi_rank = -1;
	for (size_t i = 0; v && i < rp->nr_ranks; i++) {
		const struct diagnostic *d = rank_placement__get(rp, i, hotspot);
		if (!d || d->envelope_fraction.quality == QUALITY_UNAVAILABLE)
			continue;
		double f = d->envelope_fraction.value;
		v[n++] = f;
		if (f < *lo)
			*lo = f, *lo_rank = rp->ranks[i];
		if (f > *hi)
			*hi = f, *hi_rank = rp->ranks[i];
	}
	if (n) {
		qsort(v, n, sizeof(double), cmp_double);
		*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	xfree(v);
	return n;
}
