// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/imbalance.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/threads.h"
#include "common/alloc.h"

static int rank_of(const struct pivot *p, int64_t locus)
{
	if (locus < 0 || (size_t)locus >= p->nr_loci)
		return -1;
	return p->loci[locus].rank;
}

/* Rows are by rank, so a rank number (or an announced world size) sets the
 * memory the view takes: a tampered Run (world_size 16777216, one Locus of
 * rank 20000000) must not make it gigabytes. The rows may exceed the Loci
 * the Run holds by at most this many ranks that left nothing. */
#define IMBALANCE_ABSENT_MAX 65536

static int alloc_rows(const struct pivot *p, int world_size, struct rank_imbalance *ri)
{
	size_t bound = p->nr_loci + IMBALANCE_ABSENT_MAX;
	if (world_size > 0 && (size_t)world_size > bound) {
		ri->reason = IMBALANCE_REASON_WORLD_UNBELIEVABLE;
		ri->reason_n = world_size;
		ri->reason_of = p->nr_loci > INT32_MAX ? INT32_MAX : (int)p->nr_loci;
		ri->world_size = world_size = -1;
	}
	int max_rank = world_size - 1;
	for (size_t i = 0; i < p->nr_loci; i++)
		if (p->loci[i].rank > max_rank)
			max_rank = p->loci[i].rank;
	if (max_rank >= 0 && (size_t)max_rank >= bound) {
		ri->reason = IMBALANCE_REASON_RANK_UNBELIEVABLE;
		ri->reason_n = max_rank;
		ri->reason_of = p->nr_loci > INT32_MAX ? INT32_MAX : (int)p->nr_loci;
		return 0;
	}
	if (max_rank < 0)
		return 0;
	ri->rows = xcalloc((size_t)max_rank + 1, sizeof(*ri->rows));
	if (!ri->rows)
		return -ENOMEM;
	ri->nr_rows = (size_t)max_rank + 1;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		struct rank_row *row = &ri->rows[r];
		row->rank = (int)r;
		row->time_ns = row->app_ns = row->mpi_ns = row->sys_ns = NAN;
		row->app_interposed_ns = NAN;
	}
	for (size_t i = 0; i < p->nr_loci; i++) {
		int r = p->loci[i].rank;
		if (r >= 0 && !ri->rows[r].present) {
			ri->rows[r].present = true;
			ri->rows[r].node = p->loci[i].node;
		}
	}
	return 0;
}

static void add_value(double *acc, double v)
{
	*acc = isnan(*acc) ? v : *acc + v;
}

static void accumulate(const struct pivot *p, struct rank_imbalance *ri, double *counted)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		int r = rank_of(p, m->locus);
		if (r < 0 || m->quality == QUALITY_UNAVAILABLE || !m->counter)
			continue;
		struct rank_row *row = &ri->rows[r];
		if (m->hotspot == PIVOT_NONE) {
			if (strcmp(m->counter, "task-clock") == 0) {
				add_value(&counted[r], m->value);
				row->counted = true;
			}
			continue;
		}
		if (!ri->time_base || strcmp(m->counter, ri->time_base) != 0)
			continue;
		const struct hotspot *h = &p->hotspots[m->hotspot];
		if (isnan(row->app_ns))
			row->app_ns = row->mpi_ns = row->sys_ns = 0;
		if (threads_is_mpi_module(h->module))
			row->mpi_ns += m->value;
		else if (!h->module || h->module[0] == '[')
			row->sys_ns += m->value;
		else
			row->app_ns += m->value;
		row->samples += m->sample_count > 0 ? m->sample_count : 0;
		row->sampled = true;
	}
}

/* in the order of enum imbalance_basis: a verdict's basis picks its value */
enum rank_value {
	RV_TOTAL = IMBALANCE_BASIS_TOTAL,
	RV_APP = IMBALANCE_BASIS_APP,
	RV_APP_INTERPOSED = IMBALANCE_BASIS_APP_INTERPOSED
};

static double value_of(const struct rank_row *row, enum rank_value which)
{
	return which == RV_TOTAL ? row->time_ns : which == RV_APP ? row->app_ns : row->app_interposed_ns;
}

/* busiest / mean of the value picked by `which`, over rows that have one. */
static double ratio_over(const struct rank_imbalance *ri, enum rank_value which, int *busiest,
			 int *n_out)
{
	double sum = 0, mx = -1;
	int n = 0;
	*busiest = -1;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		double v = value_of(&ri->rows[r], which);
		if (isnan(v))
			continue;
		sum += v;
		n++;
		if (v > mx) {
			mx = v;
			*busiest = (int)r;
		}
	}
	*n_out = n;
	if (n < 2 || !(sum > 0))
		return NAN;
	return mx / (sum / n);
}

/* Every rank with a time has its MPI time measured by interposition, and
 * some were only counted (no samples to split the MPI runtime off): each
 * rank's application time is its CPU time times its share of wall clock
 * outside MPI calls, one source for all, so a rank waiting (busy-polling)
 * in MPI is never the busiest. Returns how many ranks got one, 0 when the
 * rule does not apply. */
static int interposed_app(struct rank_imbalance *ri)
{
	int unsampled = 0, n = 0;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		const struct rank_row *row = &ri->rows[r];
		if (isnan(row->time_ns))
			continue;
		if (r >= ri->mpi.nr || !ri->mpi.ranks[r].measured ||
		    !(ri->mpi.ranks[r].wall_ns > 0) ||
		    ri->mpi.ranks[r].mpi_ns > ri->mpi.ranks[r].wall_ns)
			return 0;
		unsampled += !row->sampled;
	}
	if (!unsampled)
		return 0;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		struct rank_row *row = &ri->rows[r];
		if (isnan(row->time_ns))
			continue;
		const struct mpi_rank_time *t = &ri->mpi.ranks[r];
		row->app_interposed_ns = row->time_ns * (1.0 - t->mpi_ns / t->wall_ns);
		n++;
	}
	return n;
}

static void set_reason(struct rank_imbalance *ri, enum imbalance_reason r, int n, int of)
{
	ri->reason = r;
	ri->reason_n = n;
	ri->reason_of = of;
}

/* Counted task-clock on some ranks, sampled on others: a sum of task-clock
 * samples' periods is the same count, short of one period a thread. */
static bool periods_exact(const struct rank_imbalance *ri)
{
	return ri->time_base &&
	       (strcmp(ri->time_base, "task-clock") == 0 || strcmp(ri->time_base, "cpu-clock") == 0);
}

/* The verdict on application time from interposition (interposed_app). */
static bool verdict_interposed(struct rank_imbalance *ri)
{
	int n = interposed_app(ri), busiest = -1, k = 0;
	double v = n >= 2 ? ratio_over(ri, RV_APP_INTERPOSED, &busiest, &k) : NAN;
	if (isnan(v))
		return false;
	ri->app_imbalance = v;
	ri->app_busiest = busiest;
	ri->imbalance = v;
	ri->busiest_rank = busiest;
	ri->basis = IMBALANCE_BASIS_APP_INTERPOSED;
	ri->quality = QUALITY_ESTIMATED;
	set_reason(ri, IMBALANCE_REASON_INTERPOSED,
		   ri->nr_rows > 0 ? (int)ri->nr_rows - ri->nr_sampled : 0, (int)ri->nr_rows);
	return true;
}

int imbalance_own_world(const struct pivot *p, long nr_ranks, int *reporting)
{
	int smallest = 0, n = 0;
	if (nr_ranks < 0)
		for (size_t i = 0; i < p->nr_loci; i++)
			if (p->loci[i].rank >= nr_ranks)
				nr_ranks = (long)p->loci[i].rank + 1;
	for (size_t i = 0; nr_ranks >= 2 && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE || !m->counter || rank_of(p, m->locus) < 0 ||
		    strcmp(m->counter, "mpi_world_size") != 0 || !(m->value >= 1))
			continue;
		int w = m->value < (double)nr_ranks ? (int)m->value : 0;
		if (w > 0 && (!smallest || w < smallest))
			smallest = w;
		n += w > 0;
	}
	if (reporting)
		*reporting = smallest ? n : 0;
	return smallest;
}

/* The ranks' own world sizes (ingest/mpi.h `mpi_world_size`): the smallest
 * one below the rows the launch numbered makes them separate worlds. */
static void own_worlds(const struct pivot *p, struct rank_imbalance *ri)
{
	int smallest = imbalance_own_world(p, (long)ri->nr_rows, &ri->own_reporting);
	if (!smallest)
		return;
	ri->own_world_size = smallest;
	ri->own_worlds = (int)((ri->nr_rows + (size_t)smallest - 1) / (size_t)smallest);
}

/* Separate worlds: ranks of different jobs are not compared. */
static void verdict_apart(struct rank_imbalance *ri)
{
	ri->total_imbalance = ri->app_imbalance = ri->imbalance = NAN;
	ri->total_busiest = ri->app_busiest = ri->busiest_rank = -1;
	ri->quality = QUALITY_UNAVAILABLE;
	set_reason(ri, IMBALANCE_REASON_SEPARATE_WORLDS, ri->own_world_size, (int)ri->nr_rows);
}

static void verdict(struct rank_imbalance *ri)
{
	int n_total = 0, n_app = 0;
	if (ri->own_world_size > 0) {
		verdict_apart(ri);
		return;
	}
	ri->periods_exact = periods_exact(ri) && ri->nr_counted > 0 &&
			    ri->nr_counted < (int)ri->nr_rows;
	ri->total_imbalance = ratio_over(ri, RV_TOTAL, &ri->total_busiest, &n_total);
	ri->app_imbalance = ratio_over(ri, RV_APP, &ri->app_busiest, &n_app);
	if (verdict_interposed(ri))
		return;
	bool use_app = !isnan(ri->app_imbalance) && !isnan(ri->mpi_fraction) &&
		       ri->mpi_fraction + ri->sys_fraction > IMBALANCE_MPI_SIGNIFICANT;
	ri->imbalance = use_app ? ri->app_imbalance : ri->total_imbalance;
	ri->busiest_rank = use_app ? ri->app_busiest : ri->total_busiest;
	ri->basis = use_app ? IMBALANCE_BASIS_APP : IMBALANCE_BASIS_TOTAL;
	int n = use_app ? n_app : n_total;
	int all = (int)ri->nr_rows;
	ri->quality = QUALITY_MEASURED;
	if (isnan(ri->imbalance)) {
		ri->quality = QUALITY_UNAVAILABLE;
		set_reason(ri, IMBALANCE_REASON_TOO_FEW, n, all);
	} else if (n < all) {
		ri->quality = QUALITY_ESTIMATED;
		set_reason(ri, use_app ? IMBALANCE_REASON_SAMPLED_SUBSET : IMBALANCE_REASON_TIMED_SUBSET,
			   n, all);
	} else if (!use_app && ri->nr_counted > 0 && ri->nr_counted < all && !ri->periods_exact) {
		ri->quality = QUALITY_ESTIMATED;
		set_reason(ri, IMBALANCE_REASON_MIXED_CLOCKS, ri->nr_counted, all);
	}
}

/* Thread Loci per rank: the application's that were sampled, and the MPI
 * runtime's helpers, sampled or not (the time budget sets the same ones
 * apart). A never-sampled thread that is no helper is not counted: without
 * its samples, or its off-CPU stacks, nothing says whose it is. */
static int count_threads(const struct pivot *p, struct rank_imbalance *ri)
{
	struct locus_roles roles;
	if (locus_roles(p, ri->time_base, &roles) < 0)
		return -ENOMEM;
	bool *sampled = xcalloc(p->nr_loci ? p->nr_loci : 1, sizeof(bool));
	if (!sampled) {
		locus_roles__release(&roles);
		return -ENOMEM;
	}
	for (size_t i = 0; ri->time_base && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE && m->locus >= 0 && (size_t)m->locus < p->nr_loci &&
		    m->counter && strcmp(m->counter, ri->time_base) == 0 && m->value > 0)
			sampled[m->locus] = true;
	}
	for (size_t l = 0; l < p->nr_loci; l++) {
		int r = p->loci[l].rank;
		bool helper = locus_roles__is_helper(&roles, (int64_t)l);
		if (r < 0 || (size_t)r >= ri->nr_rows || (!sampled[l] && !helper))
			continue;
		ri->rows[r].nr_helpers += helper;
		ri->rows[r].nr_threads += !helper;
		ri->nr_helpers += helper;
		ri->nr_threads += !helper;
	}
	if (roles.all_time > 0)
		ri->helper_fraction = roles.helper_time / roles.all_time;
	xfree(sampled);
	locus_roles__release(&roles);
	return 0;
}

static void node_add(double *sum, double v)
{
	if (!isnan(v))
		*sum = isnan(*sum) ? v : *sum + v;
}

/* node > rank: each node's ranks summed on the verdict's basis, and the
 * busiest node against the mean node (two nodes at least). */
static int nodes_of(struct rank_imbalance *ri)
{
	ri->busiest_node = -1;
	ri->node_imbalance = NAN;
	ri->nodes = xcalloc(ri->nr_rows ? ri->nr_rows : 1, sizeof(*ri->nodes));
	if (!ri->nodes)
		return -ENOMEM;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		const struct rank_row *row = &ri->rows[r];
		if (!row->node)
			continue;
		size_t k = 0;
		while (k < ri->nr_nodes && strcmp(ri->nodes[k].node, row->node) != 0)
			k++;
		struct node_row *n = &ri->nodes[k];
		if (k == ri->nr_nodes) {
			*n = (struct node_row){.node = row->node, .time_ns = NAN, .value_ns = NAN};
			ri->nr_nodes++;
		}
		n->nr_ranks++;
		node_add(&n->time_ns, row->time_ns);
		double v = value_of(row, (enum rank_value)ri->basis);
		n->nr_valued += !isnan(v);
		node_add(&n->value_ns, v);
	}
	double sum = 0, mx = -1;
	int valued = 0;
	for (size_t k = 0; k < ri->nr_nodes; k++) {
		double v = ri->nodes[k].value_ns;
		if (isnan(v))
			continue;
		sum += v;
		valued++;
		if (v > mx) {
			mx = v;
			ri->busiest_node = (int)k;
		}
	}
	if (valued >= 2 && sum > 0 && !ri->own_world_size) /* separate worlds: not compared */
		ri->node_imbalance = mx / (sum / valued);
	else
		ri->busiest_node = -1;
	return 0;
}

int imbalance_ranks(const struct pivot *p, int world_size, struct rank_imbalance *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->world_size = world_size;
	ri->busiest_rank = ri->total_busiest = ri->app_busiest = ri->busiest_node = -1;
	ri->imbalance = ri->total_imbalance = ri->app_imbalance = ri->node_imbalance = NAN;
	ri->mpi_fraction = ri->sys_fraction = ri->mpi_measured = ri->helper_fraction = NAN;
	ri->mpi.dom_rank = -1;
	ri->quality = QUALITY_UNAVAILABLE;
	ri->basis = IMBALANCE_BASIS_TOTAL;
	if (alloc_rows(p, world_size, ri) < 0)
		return -ENOMEM;
	if (!ri->nr_rows)
		return 0; /* ri->reason says why when the Run's ranks were not believable */
	ri->reason = IMBALANCE_REASON_NONE; /* the Loci's ranks stand: the verdict sets its own reason */
	ri->time_base = pivot__time_base(p);
	double *counted = xcalloc(ri->nr_rows, sizeof(double));
	if (!counted)
		return -ENOMEM;
	for (size_t r = 0; r < ri->nr_rows; r++)
		counted[r] = NAN;
	accumulate(p, ri, counted);
	own_worlds(p, ri);
	if (count_threads(p, ri) < 0) {
		xfree(counted);
		return -ENOMEM;
	}
	double mpi = 0, app = 0, sys = 0;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		struct rank_row *row = &ri->rows[r];
		ri->nr_present += row->present;
		ri->nr_sampled += row->sampled;
		ri->nr_counted += row->counted;
		if (row->counted) {
			row->time_ns = counted[r];
			row->time_source = "counted task-clock";
		} else if (row->sampled) {
			row->time_ns = row->app_ns + row->mpi_ns + row->sys_ns;
			row->time_source = "samples";
		}
		if (row->sampled) {
			mpi += row->mpi_ns;
			app += row->app_ns;
			sys += row->sys_ns;
		}
	}
	xfree(counted);
	if (mpi + app + sys > 0) {
		ri->mpi_fraction = mpi / (mpi + app + sys);
		ri->sys_fraction = sys / (mpi + app + sys);
	}
	ri->pivot = p;
	if (mpi_view_build(p, ri->nr_rows, &ri->mpi) < 0)
		return -ENOMEM;
	verdict(ri);
	if (nodes_of(ri) < 0)
		return -ENOMEM;
	double in_mpi = 0, wall = 0;
	for (size_t r = 0; r < ri->mpi.nr; r++)
		if (ri->mpi.ranks[r].measured && ri->mpi.ranks[r].wall_ns > 0) {
			in_mpi += ri->mpi.ranks[r].mpi_ns;
			wall += ri->mpi.ranks[r].wall_ns;
		}
	if (wall > 0)
		ri->mpi_measured = in_mpi / wall;
	return 0;
}

void rank_imbalance__release(struct rank_imbalance *ri)
{
	if (!ri)
		return;
	zfree(&ri->rows);
	zfree(&ri->nodes);
	ri->nr_nodes = 0;
	mpi_view__release(&ri->mpi);
	ri->nr_rows = 0;
}
