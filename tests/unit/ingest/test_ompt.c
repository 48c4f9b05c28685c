// SPDX-License-Identifier: BSD-3-Clause
// The OMPT tool's profile (lib/ompt/nunatak_ompt.c) into the pivot: rows on
// the threads' Loci with their sites, a module path holding spaces, the
// rank under MPI; every malformed file refused whole with its line and what
// was expected; and the OpenMP view built from the rows (work = task -
// wait, OpenMP thread numbers, one region per call site).
#include "harness.h"

#include <errno.h>

#include "analysis/openmp.h"
#include "common/err.h"
#include "ingest/ompt.h"
#include "model/model.h"

static const char good[] = "nunatak-ompt 1\n"
			   "pid 100\n"
			   "node n1\n"
			   "runtime LLVM OMP version: 5.0.20140926\n"
			   "site 0 1261 /deep dir/with space/omp_imbalance\n"
			   "site 3 2000 /usr/lib/libx.so\n"
			   "row 101 0 1 1 566131448 398881487\n"
			   "row 100 0 0 1 566954035 8960735\n"
			   "row 100 3 0 4 1000 0\n"
			   "dropped 0\n"
			   "end\n";

static int parse(const char *text, const char *node, struct pivot *p, struct err *e)
{
	return ompt_parse(text, strlen(text), "ompt.100.txt", node, p, e);
}

static void t_rows(void)
{
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	CHECK_INT(parse(good, "host", &p, &e), 0);
	CHECK_INT(p.nr_omp_sites, 3);
	const struct omp_site *o = &p.omp_sites[0];
	CHECK_STR(o->module, "/deep dir/with space/omp_imbalance");
	CHECK_INT(o->address, 0x1261);
	CHECK_INT(o->thread_num, 1);
	CHECK_INT(o->task_ns, 566131448);
	CHECK_INT(o->wait_ns, 398881487);
	CHECK_STR(p.loci[o->locus].node, "host"); /* the caller's node outside MPI */
	CHECK_INT(p.loci[o->locus].thread, 101);
	CHECK_INT(p.loci[o->locus].pid, 100);
	CHECK_INT(p.loci[o->locus].rank, -1);
	CHECK(p.omp_sites[1].locus == p.omp_sites[2].locus); /* one thread, two regions */
	CHECK_STR(p.omp_sites[2].module, "/usr/lib/libx.so");
	pivot__release(&p);
}

static void t_rank_node(void)
{
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	static const char ranked[] = "nunatak-ompt 1\npid 7\nrank 3\nnode n2\n"
				     "site 0 10 /a\nrow 8 0 0 2 50 20\nend\n";
	CHECK_INT(parse(ranked, NULL, &p, &e), 0);
	CHECK_INT(p.nr_omp_sites, 1);
	CHECK_STR(p.loci[p.omp_sites[0].locus].node, "n2"); /* the file's own under MPI */
	CHECK_INT(p.loci[p.omp_sites[0].locus].rank, 3);
	pivot__release(&p);
}

static void refused(const char *text, const char *where)
{
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	CHECK(parse(text, "host", &p, &e) == -EINVAL);
	if (!strstr(e.msg, where)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", e.msg, where);
		exit(1);
	}
	CHECK_INT(p.nr_omp_sites, 0);
	CHECK_INT(p.nr_loci, 0);
	pivot__release(&p);
}

static void t_malformed(void)
{
	refused("", "the file is empty");
	refused("nunatak-ompt 2\n", "ompt.100.txt:1: expected `nunatak-ompt 1`");
	refused("nunatak-ompt 1\npid 1\nsite 0 10 /a\nrow 2 0 0 1 5 1\n", "the file is cut short");
	refused("nunatak-ompt 1\npid 1\nend", "ending in a newline");
	refused("nunatak-ompt 1\npid 1\nrow 2 0 0 1 5 9\nend\n", ":3: expected a wait no longer");
	refused("nunatak-ompt 1\npid 1\nrow 2 0 0 1 5\nend\n", ":3: expected `row <tid>");
	refused("nunatak-ompt 1\npid 1\nrow 2 0 0 1 5 1 7\nend\n", ":3: expected `row <tid>");
	refused("nunatak-ompt 1\npid 1\nrow 2 0 0 1 99999999999999999999 1\nend\n", ":3:");
	refused("nunatak-ompt 1\npid 1\nsite 5000 10 /a\nend\n", ":3: expected `site");
	refused("nunatak-ompt 1\npid 1\nsite 0 10 /a\nsite 0 11 /b\nend\n", ":4: expected each site once");
	refused("nunatak-ompt 1\npid 1\nsite 0 zz /a\nend\n", ":3: expected `site");
	refused("nunatak-ompt 1\npid 1\nrow 2 4 0 1 5 1\nend\n", "names site 4");
	refused("nunatak-ompt 1\nend\n", "a `pid` line");
	refused("nunatak-ompt 1\npid 1\nnode \nend\n", ":3: expected one `node <name>`");
	refused("nunatak-ompt 1\npid 1\nnode a\nnode b\nend\n", ":4: expected one `node <name>`");
	refused("nunatak-ompt 1\npid 1\nbogus\nend\n", ":3: expected one of");
	refused("nunatak-ompt 1\npid 1\nend\nrow 2 0 0 1 5 1\n", ":4: expected nothing after");
	static const char nul[] = "nunatak-ompt 1\npid 1\0\nend\n";
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	CHECK(ompt_parse(nul, sizeof(nul) - 1, "f", "h", &p, &e) == -EINVAL);
	pivot__release(&p);
}

static void t_view(void)
{
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	CHECK_INT(parse(good, "host", &p, &e), 0);
	/* attribution names the first two sites' rows (same call site) */
	p.omp_sites[0].function = strdup("main");
	p.omp_sites[0].file = strdup("/src/omp_imbalance.c");
	p.omp_sites[0].line = 27;
	p.omp_sites[1].function = strdup("main");
	p.omp_sites[1].file = strdup("/src/omp_imbalance.c");
	p.omp_sites[1].line = 27;
	struct omp_view v;
	CHECK_INT(omp_view_build(&p, NULL, &v), 0); /* no time base needed */
	CHECK(v.ompt && v.wait_measured);
	CHECK_STR(v.runtime, "libomp");
	CHECK_INT(v.nr_regions, 2);
	const struct omp_region *r = &v.regions[0];
	CHECK_STR(r->name, "main");
	CHECK_INT(r->line, 27);
	CHECK(r->pragma);
	CHECK_INT(r->nr_threads, 2);
	CHECK_INT(r->threads[0].thread, 0); /* sorted by OpenMP number */
	CHECK_INT(r->threads[1].thread, 1);
	CHECK(r->threads[1].wait_ns == 398881487.0);
	CHECK(r->threads[1].work_ns == 566131448.0 - 398881487.0);
	CHECK(r->time_ns == 566954035.0);
	CHECK_STR(v.regions[1].name, "libx.so+0x2000"); /* unnamed: module+address */
	CHECK_INT(v.regions[1].nr_threads, 1);
	omp_view__release(&v);
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"rows", "rows on the threads' Loci, module paths with spaces", t_rows},
	{"rank_node", "under MPI: the file's rank and node", t_rank_node},
	{"malformed", "every malformed file refused whole, with its line", t_malformed},
	{"view", "the OpenMP view from the OMPT rows", t_view},
};
TEST_MAIN(cases)
