// SPDX-License-Identifier: BSD-3-Clause
// Who talks to whom (analysis/comm_matrix.h) from hand-made mpi_peers rows:
// pairs merged from both sides, unplaced partners, binning at scale.
#include "harness.h"

#include "analysis/comm_matrix.h"
#include "model/model.h"

static void peer(struct pivot *p, int rank, const char *dir, int to, int64_t calls,
		 int64_t ns, int64_t bytes)
{
	int64_t locus = pivot__intern_locus(p, "n1", rank, -1);
	struct mpi_peer q = {.locus = locus, .peer = to, .direction = (char *)dir,
			     .calls = calls, .time_ns = ns, .bytes = bytes};
	CHECK(pivot__add_mpi_peer(p, &q) >= 0);
}

static void t_pairs(void)
{
	struct pivot p;
	pivot__init(&p);
	peer(&p, 0, "send", 1, 3, 100, 3000);
	peer(&p, 1, "recv", 0, 3, 900, 3000); /* the receiver's wait joins the pair */
	peer(&p, 1, "send", 0, 1, 10, 50000);
	peer(&p, 2, "recv", 1, 2, 70, 64);   /* rank 1 left no send row for it */
	peer(&p, 2, "send", -1, 4, 5, 400);  /* not placed */
	peer(&p, 2, "send", 9, 1, 5, 1);     /* outside the world: not placed either */
	struct comm_matrix m;
	CHECK_INT(comm_matrix_build(&p, 3, &m), 0);
	CHECK_INT(m.nr_reporting, 3);
	CHECK_INT(m.nr_pairs, 3);
	CHECK(m.messages == 4 && m.bytes == 53000 && m.time_ns == 1080);
	CHECK(m.unplaced_messages == 5 && m.unplaced_bytes == 401);
	/* most bytes first */
	CHECK(m.pairs[0].from == 1 && m.pairs[0].to == 0 && m.pairs[0].bytes == 50000);
	CHECK(m.pairs[1].from == 0 && m.pairs[1].to == 1 && m.pairs[1].messages == 3 &&
	      m.pairs[1].time_ns == 1000);
	CHECK(m.pairs[2].from == 1 && m.pairs[2].to == 2 && m.pairs[2].bytes == 0 &&
	      m.pairs[2].time_ns == 70);
	CHECK_INT(m.bin, 1);
	CHECK_INT(m.nr_bins, 3);
	CHECK_INT(m.nr_cells, 3);
	comm_matrix__release(&m);
	pivot__release(&p);
}

static void t_bins(void)
{
	/* 4096 ranks in a ring: 64 ranks a cell, the ring on the diagonal
	 * and one cell past it per row, wrapping at the end */
	struct pivot p;
	pivot__init(&p);
	for (int r = 0; r < 4096; r++)
		peer(&p, r, "send", (r + 1) % 4096, 1, 1, 8);
	struct comm_matrix m;
	CHECK_INT(comm_matrix_build(&p, 4096, &m), 0);
	CHECK_INT(m.bin, 64);
	CHECK_INT(m.nr_bins, 64);
	CHECK_INT(m.nr_pairs, 4096);
	CHECK_INT(m.nr_cells, 128);
	CHECK(m.cells[0].from == 0 && m.cells[0].to == 0 && m.cells[0].messages == 63);
	CHECK(m.cells[1].from == 0 && m.cells[1].to == 1 && m.cells[1].bytes == 8);
	CHECK(m.cells[127].from == 63 && m.cells[127].to == 63);
	CHECK(m.cells[126].from == 63 && m.cells[126].to == 0);
	comm_matrix__release(&m);
	/* no peer rows: nothing reported */
	struct pivot e;
	pivot__init(&e);
	CHECK_INT(comm_matrix_build(&e, 4, &m), 0);
	CHECK_INT(m.nr_reporting, 0);
	comm_matrix__release(&m);
	pivot__release(&e);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"pairs", "sender and receiver rows merged per pair; unplaced counted apart", t_pairs},
	{"bins", "4096 ranks binned into 64 x 64 cells", t_bins},
};

TEST_MAIN(cases)
