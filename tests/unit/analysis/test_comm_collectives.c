// SPDX-License-Identifier: BSD-3-Clause
// Collectives in who talks to whom (analysis/comm_collectives.h) from
// hand-made mpi_collectives rows: each pattern's pairs, bytes, calls and
// time; what cannot be placed; the binned cells at scale against a pair by
// pair expansion; 4096 ranks in an Allreduce without 4096^2 pairs.
#include "harness.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/comm_collectives.h"
#include "common/alloc.h"
#include "model/model.h"

static void row(struct pivot *p, int rank, const char *name, const char *members, int size,
		int root, int64_t calls, int64_t ns, int64_t bytes)
{
	int64_t locus = pivot__intern_locus(p, "n1", rank, -1);
	struct mpi_collective c = {.locus = locus, .name = (char *)name, .members = (char *)members,
				   .size = size, .root = root, .calls = calls, .time_ns = ns,
				   .bytes = bytes};
	CHECK(pivot__add_mpi_collective(p, &c) >= 0);
}

static const struct comm_pair *at(const struct comm_collectives *c, int from, int to)
{
	for (size_t i = 0; i < c->nr_cells; i++)
		if (c->cells[i].from == from && c->cells[i].to == to)
			return &c->cells[i];
	return NULL;
}

static void t_patterns(void)
{
	struct pivot p;
	pivot__init(&p);
	/* MPI_Bcast from rank 1 over the world: root -> each other member */
	for (int r = 0; r < 4; r++)
		row(&p, r, "MPI_Bcast", "0-3", 4, 1, 1, r == 1 ? 30 : 10, 100);
	/* MPI_Reduce to world rank 2 over the split "2,0" */
	row(&p, 0, "MPI_Reduce", "2,0", 2, 2, 3, 4, 64);
	row(&p, 2, "MPI_Reduce", "2,0", 2, 2, 3, 8, 64);
	/* MPI_Alltoall: each member's bytes / 4 to each other one */
	for (int r = 0; r < 4; r++)
		row(&p, r, "MPI_Alltoall", "0-3", 4, -1, 1, 6, 40 * (r + 1));
	/* MPI_Scan over "3,1": 3 -> 1 only */
	row(&p, 3, "MPI_Scan", "3,1", 2, -1, 1, 2, 8);
	row(&p, 1, "MPI_Scan", "3,1", 2, -1, 1, 2, 8);
	/* not placed: no members, a root outside them, a rank outside them,
	 * a member outside the Run */
	row(&p, 0, "MPI_Allreduce", NULL, 0, -1, 5, 1, 50);
	row(&p, 1, "MPI_Bcast", "0,1", 2, 3, 7, 1, 70);
	row(&p, 3, "MPI_Gather", "0-2", 3, 0, 11, 1, 110);
	row(&p, 0, "MPI_Allgather", "0-4", 5, -1, 13, 1, 130);
	struct comm_collectives c;
	CHECK_INT(comm_collectives_build(&p, 4, &c), 0);
	CHECK_INT(c.nr_reporting, 4);
	CHECK(c.bin == 1 && c.nr_bins == 4);
	CHECK(c.unplaced_calls == 5 + 7 + 11 + 13 && c.unplaced_bytes == 50 + 70 + 110 + 130);
	CHECK_INT(c.nr_groups, 4);
	/* (1,0): Bcast 100 + Alltoall rank 1's 80 / 4 */
	const struct comm_pair *q = at(&c, 1, 0);
	CHECK(q && q->bytes == 100 + 20 && q->messages == 1 + 1);
	/* its time: rank 0's Bcast 10 + a third of the root's 30, and the
	 * Alltoall's 6 + 6 over 2 x 3 ends each */
	CHECK(q && q->time_ns == 10 + 10 + 2);
	q = at(&c, 0, 2); /* Reduce: 0 -> root 2, Alltoall 40 / 4 */
	CHECK(q && q->bytes == 64 + 10 && q->messages == 3 + 1 && q->time_ns == 4 + 8 + 2);
	q = at(&c, 2, 0); /* the root sends nothing in a Reduce */
	CHECK(q && q->bytes == 30 && q->messages == 1);
	q = at(&c, 3, 1); /* Scan 8 + Alltoall 160 / 4; time 2 + 2 over one pair */
	CHECK(q && q->bytes == 8 + 40 && q->time_ns == 4 + 2);
	q = at(&c, 1, 3); /* the Bcast's 100, rank 1's Alltoall 80 / 4; nothing by the Scan */
	CHECK(q && q->bytes == 100 + 20);
	CHECK(at(&c, 2, 2) == NULL);
	CHECK_INT(c.nr_cells, 12);
	CHECK(c.pattern_bytes[COMM_ONE_TO_ALL] == 300 && c.pattern_bytes[COMM_ALL_TO_ONE] == 64 &&
	      c.pattern_bytes[COMM_ALL_PAIRS] == 3 * (10 + 20 + 30 + 40) &&
	      c.pattern_bytes[COMM_PREFIX] == 8);
	CHECK(c.bytes == 300 + 64 + 300 + 8);
	/* heaviest first: the Alltoall and the Bcast (300 each: more time first) */
	CHECK_STR(c.groups[0].name, "MPI_Bcast");
	CHECK(c.groups[0].root == 1 && c.groups[0].nr_reporting == 4 && c.groups[0].calls == 4);
	CHECK_STR(c.groups[1].name, "MPI_Alltoall");
	CHECK_STR(c.groups[3].members, "3,1");
	CHECK(c.groups[3].pattern == COMM_PREFIX);
	comm_collectives__release(&c);
	/* no collective rows: nothing reported */
	struct pivot e;
	pivot__init(&e);
	CHECK_INT(comm_collectives_build(&e, 4, &c), 0);
	CHECK_INT(c.nr_reporting, 0);
	comm_collectives__release(&c);
	pivot__release(&e);
	pivot__release(&p);
}

/* The pairs of one group, one by one, into dense[from bin][to bin]. */
static void expand(double *d, int nb, int bin, const int *mem, int n, int k, int root_pos,
		   const double *B, const double *T)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (i == j)
				continue;
			double b = -1, t = 0;
			if (k == COMM_ONE_TO_ALL && i == root_pos)
				b = B[j], t = T[j] + T[i] / (n - 1);
			else if (k == COMM_ALL_TO_ONE && j == root_pos)
				b = B[i], t = T[i] + T[j] / (n - 1);
			else if (k == COMM_ALL_PAIRS)
				b = B[i], t = (T[i] + T[j]) / (2.0 * (n - 1));
			else if (k == COMM_PREFIX && i < j)
				b = B[i], t = (T[i] + T[j]) / (n - 1);
			if (b < 0)
				continue;
			size_t c = (size_t)(mem[i] / bin) * (size_t)nb + (size_t)(mem[j] / bin);
			d[2 * c] += b, d[2 * c + 1] += t;
		}
}

static void t_bins_match_pairs(void)
{
	/* 130 ranks (bins of 3): groups over scattered members, every pattern,
	 * against the pair by pair expansion */
	enum { N = 130, NB = 44, BIN = 3 };
	static const struct {
		const char *name, *members;
		int k, root_pos;
	} g[] = {{"MPI_Bcast", "7,3,129,0-120:5", COMM_ONE_TO_ALL, 2},
		 {"MPI_Gather", "1-40,100", COMM_ALL_TO_ONE, 40},
		 {"MPI_Allreduce", "128,2-90:4,5", COMM_ALL_PAIRS, -1},
		 {"MPI_Exscan", "9,8,7,60-70", COMM_PREFIX, -1}};
	struct pivot p;
	pivot__init(&p);
	double *dense = xcalloc(NB * NB * 2, sizeof(double));
	for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		int mem[N], n = 0;
		/* the same lists, decoded by hand */
		if (k == 0) {
			mem[n++] = 7, mem[n++] = 3, mem[n++] = 129;
			for (int r = 0; r <= 120; r += 5)
				mem[n++] = r;
		} else if (k == 1) {
			for (int r = 1; r <= 40; r++)
				mem[n++] = r;
			mem[n++] = 100;
		} else if (k == 2) {
			mem[n++] = 128;
			for (int r = 2; r <= 90; r += 4)
				mem[n++] = r;
			mem[n++] = 5;
		} else {
			mem[n++] = 9, mem[n++] = 8, mem[n++] = 7;
			for (int r = 60; r <= 70; r++)
				mem[n++] = r;
		}
		double B[N], T[N];
		int root = g[k].root_pos >= 0 ? mem[g[k].root_pos] : -1;
		for (int i = 0; i < n; i++) {
			B[i] = 8.0 * (mem[i] % 7 + 1), T[i] = 1000.0 * (mem[i] % 5 + 1);
			row(&p, mem[i], g[k].name, g[k].members, n, root, 1, (int64_t)T[i],
			    (int64_t)B[i]);
		}
		expand(dense, NB, BIN, mem, n, g[k].k, g[k].root_pos, B, T);
	}
	struct comm_collectives c;
	CHECK_INT(comm_collectives_build(&p, N, &c), 0);
	CHECK(c.bin == BIN && c.nr_bins == NB && c.nr_groups == 4 && c.unplaced_calls == 0);
	size_t nonempty = 0, bad = 0;
	for (int i = 0; i < NB * NB; i++) {
		if (dense[2 * i] == 0 && dense[2 * i + 1] == 0)
			continue;
		nonempty++;
		const struct comm_pair *q = at(&c, i / NB, i % NB);
		bad += !q || q->bytes != llround(dense[2 * i]) ||
		       llabs(q->time_ns - llround(dense[2 * i + 1])) > 1;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(c.nr_cells, nonempty);
	xfree(dense);
	comm_collectives__release(&c);
	pivot__release(&p);
}

static void t_scale(void)
{
	/* an Allreduce and a Bcast over 4096 ranks: 64 x 64 cells from per-bin
	 * sums, never the 16.7 M pairs */
	struct pivot p;
	pivot__init(&p);
	for (int r = 0; r < 4096; r++) {
		row(&p, r, "MPI_Allreduce", "0-4095", 4096, -1, 1, 2 * 4095, 8);
		row(&p, r, "MPI_Bcast", "0-4095", 4096, 0, 1, r ? 0 : 4095, 16);
	}
	struct comm_collectives c;
	CHECK_INT(comm_collectives_build(&p, 4096, &c), 0);
	CHECK(c.bin == 64 && c.nr_bins == 64 && c.nr_cells == 64 * 64);
	CHECK(c.bytes == 8LL * 4096 * 4095 + 16LL * 4095);
	const struct comm_pair *d = at(&c, 5, 5), *o = at(&c, 5, 6), *r0 = at(&c, 0, 7);
	CHECK(d && d->bytes == 8LL * 64 * 63 && d->messages == 64 * 63);
	/* each end's time: 2 x 4095 over 2 x 4095 pairs, 1 a pair end */
	CHECK(o && o->bytes == 8LL * 64 * 64 && o->time_ns == 2 * 64 * 64);
	/* the root's row: its Bcast too (16 B to each), and a share of its time */
	CHECK(r0 && r0->bytes == 8LL * 64 * 64 + 16 * 64 && r0->time_ns == 2 * 64 * 64 + 64);
	comm_collectives__release(&c);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"patterns", "rooted, all-pairs, prefix: pairs, bytes, calls, time; unplaced apart",
	 t_patterns},
	{"bins_match_pairs", "130 ranks in bins of 3: binned sums equal the pair by pair expansion",
	 t_bins_match_pairs},
	{"scale", "4096-rank Allreduce and Bcast into 64 x 64 cells", t_scale},
};

TEST_MAIN(cases)
