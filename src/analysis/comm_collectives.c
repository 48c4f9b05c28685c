// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/comm_collectives.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_view.h"
#include "common/alloc.h"
#include "model/model.h"
#include "model/rank_list.h"

static const struct {
	const char *name;
	enum comm_pattern k;
	int split;
} kinds[] = {
	{"MPI_Bcast", COMM_ONE_TO_ALL, 0},      {"MPI_Ibcast", COMM_ONE_TO_ALL, 0},
	{"MPI_Scatter", COMM_ONE_TO_ALL, 0},    {"MPI_Scatterv", COMM_ONE_TO_ALL, 0},
	{"MPI_Reduce", COMM_ALL_TO_ONE, 0},     {"MPI_Ireduce", COMM_ALL_TO_ONE, 0},
	{"MPI_Gather", COMM_ALL_TO_ONE, 0},     {"MPI_Gatherv", COMM_ALL_TO_ONE, 0},
	{"MPI_Allreduce", COMM_ALL_PAIRS, 0},   {"MPI_Iallreduce", COMM_ALL_PAIRS, 0},
	{"MPI_Allgather", COMM_ALL_PAIRS, 0},   {"MPI_Allgatherv", COMM_ALL_PAIRS, 0},
	{"MPI_Alltoall", COMM_ALL_PAIRS, 1},    {"MPI_Alltoallv", COMM_ALL_PAIRS, 1},
	{"MPI_Reduce_scatter", COMM_ALL_PAIRS, 1}, {"MPI_Reduce_scatter_block", COMM_ALL_PAIRS, 1},
	{"MPI_Scan", COMM_PREFIX, 0},           {"MPI_Exscan", COMM_PREFIX, 0},
	{"MPI_Barrier", COMM_SYNC, 0},          {"MPI_Ibarrier", COMM_SYNC, 0},
};

const char *comm_pattern_name(enum comm_pattern k)
{
	static const char *const names[] = {"one-to-all", "all-to-one", "all-pairs", "prefix",
					    "sync"};
	return k >= 0 && k < COMM_NR_PATTERNS ? names[k] : "unknown";
}

int comm_pattern_of(const char *name, int *split)
{
	for (size_t i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].name, name) == 0) {
			*split = kinds[i].split;
			return (int)kinds[i].k;
		}
	return -1;
}

/* The dense bins x bins sums and what one group needs, reused. */
struct ctx {
	const struct pivot *p;
	int nr_ranks, bin, nb;
	double *b, *c, *t;     /* nb * nb: bytes, calls, time */
	double *sb, *sc, *st, *cnt; /* nb: per-bin sums of a group */
	int *stamp, *pos, gen; /* nr_ranks: membership of the current group */
	int *mem;              /* the group's members, in its order */
	size_t nr_mem, cap_mem;
	double *B, *C, *T;     /* per member: bytes per pair, calls, time */
};

static void cell(struct ctx *x, int from, int to, double b, double c, double t)
{
	size_t k = (size_t)(from / x->bin) * (size_t)x->nb + (size_t)(to / x->bin);
	x->b[k] += b, x->c[k] += c, x->t[k] += t;
}

/* Rooted: root <-> each other member (out: root sends). */
static double rooted(struct ctx *x, int n, int rp, bool out)
{
	double sum = 0, share = x->T[rp] / (n - 1);
	for (int i = 0; i < n; i++) {
		if (i == rp)
			continue;
		int from = out ? x->mem[rp] : x->mem[i], to = out ? x->mem[i] : x->mem[rp];
		cell(x, from, to, x->B[i], x->C[i], x->T[i] + share);
		sum += x->B[i];
	}
	return sum;
}

static void bin_sums(struct ctx *x, int n)
{
	for (int I = 0; I < x->nb; I++)
		x->sb[I] = x->sc[I] = x->st[I] = x->cnt[I] = 0;
	for (int i = 0; i < n; i++) {
		int I = x->mem[i] / x->bin;
		x->sb[I] += x->B[i], x->sc[I] += x->C[i], x->st[I] += x->T[i], x->cnt[I] += 1;
	}
}

/* Every ordered pair of members: from per-bin sums, never pair by pair. */
static double all_pairs(struct ctx *x, int n, bool bytes)
{
	double sum = 0, d = 2.0 * (n - 1);
	bin_sums(x, n);
	for (int I = 0; I < x->nb; I++)
		for (int J = 0; x->cnt[I] > 0 && J < x->nb; J++) {
			if (x->cnt[J] <= 0)
				continue;
			bool same = I == J;
			double b = x->sb[I] * x->cnt[J] - (same ? x->sb[I] : 0);
			double c = x->sc[I] * x->cnt[J] - (same ? x->sc[I] : 0);
			double t = x->st[I] * x->cnt[J] + x->cnt[I] * x->st[J] -
				   (same ? 2 * x->st[I] : 0);
			size_t k = (size_t)I * (size_t)x->nb + (size_t)J;
			x->b[k] += bytes ? b : 0, x->c[k] += c, x->t[k] += t / d;
			sum += bytes ? b : 0;
		}
	return sum;
}

/* Each member to every later one, in the communicator's order. */
static double prefix(struct ctx *x, int n)
{
	double sum = 0;
	for (int I = 0; I < x->nb; I++)
		x->sb[I] = x->sc[I] = x->st[I] = x->cnt[I] = 0;
	for (int j = 0; j < n; j++) {
		int J = x->mem[j] / x->bin;
		for (int I = 0; I < x->nb; I++) {
			if (x->cnt[I] <= 0)
				continue;
			size_t k = (size_t)I * (size_t)x->nb + (size_t)J;
			x->b[k] += x->sb[I], x->c[k] += x->sc[I];
			x->t[k] += (x->st[I] + x->cnt[I] * x->T[j]) / (n - 1);
			sum += x->sb[I];
		}
		x->sb[J] += x->B[j], x->sc[J] += x->C[j], x->st[J] += x->T[j], x->cnt[J] += 1;
	}
	return sum;
}

/* The group's members: every one a rank of the Run, none twice. */
static int members(struct ctx *x, const char *text, int size)
{
	x->nr_mem = 0;
	int rc = rank_list_append(text, (size_t)size, &x->mem, &x->nr_mem, &x->cap_mem);
	if (rc == -ENOMEM)
		return rc;
	if (rc || x->nr_mem != (size_t)size)
		return 0;
	x->gen++;
	for (int i = 0; i < size; i++) {
		int w = x->mem[i];
		if (w < 0 || w >= x->nr_ranks || x->stamp[w] == x->gen)
			return 0;
		x->stamp[w] = x->gen, x->pos[w] = i;
	}
	return 1;
}

/* One group's rows (same members, name, root). Returns 1 placed, 0 not,
 * or -ENOMEM. */
static int place(struct ctx *x, const struct mpi_collective **rows, size_t nr,
		 struct comm_coll_group *g, struct comm_collectives *out)
{
	const struct mpi_collective *r0 = rows[0];
	int split = 0, k = comm_pattern_of(r0->name, &split), n = r0->size;
	int rc = k < 0 ? 0 : members(x, r0->members, n);
	bool rooted_k = k == COMM_ONE_TO_ALL || k == COMM_ALL_TO_ONE;
	if (rc <= 0)
		return rc;
	if (rooted_k && (r0->root < 0 || r0->root >= x->nr_ranks || x->stamp[r0->root] != x->gen))
		return 0;
	bool any = false; /* rows of members: else all are unplaced */
	for (size_t i = 0; i < nr && !any; i++)
		any = x->stamp[mpi_view_rank_of(x->p, rows[i]->locus)] == x->gen;
	if (!any)
		return 0;
	xfree(x->B), xfree(x->C), xfree(x->T);
	x->B = xcalloc((size_t)n, sizeof(double));
	x->C = xcalloc((size_t)n, sizeof(double));
	x->T = xcalloc((size_t)n, sizeof(double));
	if (!x->B || !x->C || !x->T)
		return -ENOMEM;
	*g = (struct comm_coll_group){.name = r0->name, .members = r0->members, .size = n,
				      .root = rooted_k ? r0->root : -1, .pattern = k};
	for (size_t i = 0; i < nr; i++) {
		int r = mpi_view_rank_of(x->p, rows[i]->locus);
		if (x->stamp[r] != x->gen) { /* a rank outside its own communicator */
			out->unplaced_calls += rows[i]->calls, out->unplaced_bytes += rows[i]->bytes;
			continue;
		}
		int m = x->pos[r];
		g->nr_reporting += x->C[m] == 0;
		x->B[m] += split ? (double)rows[i]->bytes / n : (double)rows[i]->bytes;
		x->C[m] += (double)rows[i]->calls, x->T[m] += (double)rows[i]->time_ns;
		g->calls += rows[i]->calls, g->time_ns += rows[i]->time_ns;
	}
	double sum = 0;
	if (n > 1 && rooted_k)
		sum = rooted(x, n, x->pos[r0->root], k == COMM_ONE_TO_ALL);
	else if (n > 1 && k == COMM_PREFIX)
		sum = prefix(x, n);
	else if (n > 1)
		sum = all_pairs(x, n, k != COMM_SYNC);
	g->bytes = llround(sum);
	return 1;
}

static int cmp_row(const void *a, const void *b)
{
	const struct mpi_collective *x = *(const struct mpi_collective *const *)a,
				    *y = *(const struct mpi_collective *const *)b;
	int c = strcmp(x->members, y->members);
	if (!c)
		c = strcmp(x->name, y->name);
	return c ? c : (x->root > y->root) - (x->root < y->root);
}

static int cmp_group(const void *a, const void *b)
{
	const struct comm_coll_group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return (x->bytes < y->bytes) - (x->bytes > y->bytes);
	if (x->time_ns != y->time_ns)
		return (x->time_ns < y->time_ns) - (x->time_ns > y->time_ns);
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->members, y->members);
}

/* The rows of ranks in the Run: placeable ones into *v, the others unplaced. */
static int gather(const struct pivot *p, struct comm_collectives *c,
		  const struct mpi_collective ***v, size_t *n)
{
	bool *reporting = xcalloc((size_t)c->nr_ranks, sizeof(bool));
	*v = xcalloc(p->nr_mpi_collectives + 1, sizeof(**v));
	if (!reporting || !*v) {
		xfree(reporting);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr_mpi_collectives; i++) {
		const struct mpi_collective *q = &p->mpi_collectives[i];
		int r = mpi_view_rank_of(p, q->locus);
		if (r < 0 || r >= c->nr_ranks || !q->name)
			continue;
		reporting[r] = true;
		if (q->members && q->size > 0)
			(*v)[(*n)++] = q;
		else
			c->unplaced_calls += q->calls, c->unplaced_bytes += q->bytes;
	}
	for (int r = 0; r < c->nr_ranks; r++)
		c->nr_reporting += reporting[r];
	xfree(reporting);
	qsort(*v, *n, sizeof(**v), cmp_row);
	return 0;
}

static int ctx_init(struct ctx *x, const struct pivot *p, struct comm_collectives *c)
{
	c->bin = (c->nr_ranks + COMM_MATRIX_MAX_BINS - 1) / COMM_MATRIX_MAX_BINS;
	c->bin = c->bin > 0 ? c->bin : 1;
	c->nr_bins = (c->nr_ranks + c->bin - 1) / c->bin;
	size_t nb = (size_t)c->nr_bins;
	*x = (struct ctx){.p = p, .nr_ranks = c->nr_ranks, .bin = c->bin, .nb = c->nr_bins};
	x->b = xcalloc(nb * nb, sizeof(double));
	x->c = xcalloc(nb * nb, sizeof(double));
	x->t = xcalloc(nb * nb, sizeof(double));
	x->sb = xcalloc(nb * 4, sizeof(double));
	x->stamp = xcalloc((size_t)c->nr_ranks, sizeof(int));
	x->pos = xcalloc((size_t)c->nr_ranks, sizeof(int));
	if (!x->b || !x->c || !x->t || !x->sb || !x->stamp || !x->pos)
		return -ENOMEM;
	x->sc = x->sb + nb, x->st = x->sc + nb, x->cnt = x->st + nb;
	return 0;
}

static void ctx_release(struct ctx *x)
{
	xfree(x->b), xfree(x->c), xfree(x->t), xfree(x->sb), xfree(x->stamp), xfree(x->pos);
	xfree(x->mem), xfree(x->B), xfree(x->C), xfree(x->T);
}

static int cells_of(struct ctx *x, struct comm_collectives *c)
{
	size_t nb = (size_t)x->nb, k = 0;
	c->cells = xcalloc(nb * nb + 1, sizeof(*c->cells));
	if (!c->cells)
		return -ENOMEM;
	for (size_t i = 0; i < nb * nb; i++) {
		struct comm_pair q = {.from = (int)(i / nb), .to = (int)(i % nb),
				      .bytes = llround(x->b[i]), .messages = llround(x->c[i]),
				      .time_ns = llround(x->t[i])};
		if (q.bytes || q.messages || q.time_ns)
			c->cells[k++] = q;
	}
	c->nr_cells = k;
	return 0;
}

static int groups_of(struct ctx *x, const struct mpi_collective **v, size_t n,
		     struct comm_collectives *c)
{
	c->groups = xcalloc(n + 1, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && cmp_row(&v[i], &v[j]) == 0; j++)
			;
		struct comm_coll_group *g = &c->groups[c->nr_groups];
		int rc = place(x, v + i, j - i, g, c);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			for (size_t k = i; k < j; k++)
				c->unplaced_calls += v[k]->calls, c->unplaced_bytes += v[k]->bytes;
			continue;
		}
		c->nr_groups++;
		c->calls += g->calls, c->time_ns += g->time_ns, c->bytes += g->bytes;
		c->pattern_bytes[g->pattern] += g->bytes;
	}
	qsort(c->groups, c->nr_groups, sizeof(*c->groups), cmp_group);
	return 0;
}

int comm_collectives_build(const struct pivot *p, int nr_ranks, struct comm_collectives *c)
{
	*c = (struct comm_collectives){.nr_ranks = nr_ranks > 0 ? nr_ranks : 0};
	if (!p->nr_mpi_collectives || c->nr_ranks == 0)
		return 0;
	const struct mpi_collective **v = NULL;
	size_t n = 0;
	struct ctx x = {0};
	int rc = gather(p, c, &v, &n);
	if (rc == 0 && c->nr_reporting)
		rc = ctx_init(&x, p, c);
	if (rc == 0 && c->nr_reporting)
		rc = groups_of(&x, v, n, c);
	if (rc == 0 && c->nr_reporting)
		rc = cells_of(&x, c);
	ctx_release(&x);
	xfree(v);
	if (rc < 0)
		comm_collectives__release(c);
	return rc;
}

void comm_collectives__release(struct comm_collectives *c)
{
	xfree(c->cells);
	xfree(c->groups);
	*c = (struct comm_collectives){0};
}
