// SPDX-License-Identifier: BSD-3-Clause
/* Ingestion of collect/rank-<N>/ as the rank shim writes it: counted ranks
 * become Locus-level Measurements, sampled ranks fuse per Hotspot with their
 * Loci kept, and uncounted or absent ranks are declared once with numbers. */
#include <math.h>
#include <sys/stat.h>

#include "harness.h"

#include "common/alloc.h"
#include "common/err.h"
#include "ingest/mpi.h"
#include "ingest/ranks.h"

static char root[256];
static int g_world = 6; /* world_size written into rank.json */

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdir(path, 0755);
	*slash = '/';
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void rank_json(int rank, const char *node, const char *role, bool sampled, bool counted,
		      const char *degradations)
{
	char rel[64], text[1024];
	snprintf(rel, sizeof(rel), "rank-%d/rank.json", rank);
	snprintf(text, sizeof(text),
		 "{\"rank\": %d, \"world_size\": %d, \"local_rank\": %d, \"node\": \"%s\", "
		 "\"perf\": \"/usr/bin/perf\", \"role\": \"%s\", \"sampled\": %s, \"counted\": %s, "
		 "\"events\": \"task-clock\", \"preload\": null, \"exit_code\": 0, "
		 "\"degradations\": [%s]}",
		 rank, g_world, rank % 2, node, role, sampled ? "true" : "false", counted ? "true" : "false",
		 degradations);
	put(rel, text);
}

/* perf 6.14 `--fields comm,pid,tid,time,period,event,ip,sym,symoff,dso,dsoff`. */
static const char *script_of(int pid, int work, int wait)
{
	static char buf[8192];
	size_t len = 0;
	for (int i = 0; i < work + wait; i++)
		len += (size_t)snprintf(
			buf + len, sizeof(buf) - len,
			"          solver %d/%d 100.%06d:    1000000 task-clock:  55d0c0001344 %s\n",
			pid, pid, i,
			i < work ? "work+0x4 (/opt/app/solver+0x1344)"
				 : "opal_progress+0x10 (/usr/lib/libopen-pal.so.40+0x2a010)");
	return buf;
}

static void build_collect(void)
{
	snprintf(root, sizeof(root), "/tmp/nunatak-test-ranks-%d", (int)getpid());
	mkdir(root, 0755);
	rank_json(0, "nodeA", "sampler", true, false, "");
	put("rank-0/perf-script.txt", script_of(100, 30, 0));
	put("rank-0/perf-buildid-list.txt", "0123abcd /opt/app/solver\n");
	rank_json(1, "nodeB", "sampler", true, false, "");
	/* rank 1 also runs an MPI progress thread (tid 207 of pid 200) */
	char r1[8192 + 512];
	snprintf(r1, sizeof(r1), "%s", script_of(200, 10, 20));
	for (int i = 0; i < 4; i++)
		snprintf(r1 + strlen(r1), sizeof(r1) - strlen(r1),
			 "          solver 200/207 101.%06d:    1000000 task-clock:  7f0000002a010 "
			 "opal_progress+0x10 (/usr/lib/libopen-pal.so.40+0x2a010)\n", i);
	put("rank-1/perf-script.txt", r1);
	put("rank-1/perf-buildid-list.txt", "0123abcd /opt/app/solver\n");
	rank_json(2, "nodeB", "counter", false, true, "");
	put("rank-2/perf-stat.csv", "# started on Sun Nov 29 14:02:16 2026\n\n"
				    "1234.50,msec,task-clock,1234500000,100.00,0.99,CPUs utilized\n"
				    "<not supported>,,cycles,0,100.00,,\n");
	const char *d = "{\"name\": \"rank-perf-missing\", \"message\": \"perf not found on nodeC: "
			"rank 3 ran uncounted\", \"remedy\": \"install perf\"}";
	rank_json(3, "nodeC", "bare", false, false, d);
	/* rank 4 was killed: its directory holds a partial perf.data only. */
	put("rank-4/perf.data", "PERFILE2");
	/* rank 5 left nothing at all. */
}

static int64_t find_locus(const struct pivot *p, const char *node, int rank, bool whole)
{
	for (size_t i = 0; i < p->nr_loci; i++)
		if (p->loci[i].rank == rank && strcmp(p->loci[i].node, node) == 0 &&
		    (p->loci[i].thread == -1) == whole)
			return (int64_t)i;
	return -1;
}

static const struct degradation *find_degr(const struct degradations *d, const char *name)
{
	const struct degradation *found = NULL;
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].name, name) == 0) {
			CHECK(found == NULL); /* declared once */
			found = &d->v[i];
		}
	return found;
}

static void t_collect_dir(void)
{
	build_collect();
	struct pivot p;
	pivot__init(&p);
	struct degradations d = {0};
	struct ranks_summary s;
	struct err e = {0};
	CHECK_INT(ingest_ranks(root, -1, &p, &d, &s, &e), 0);
	CHECK_INT(s.world_size, 6);
	CHECK_INT(s.nr_ranks, 4);
	CHECK_INT(s.nr_sampled, 2);
	CHECK_INT(s.nr_counted, 1);
	CHECK_INT(s.nr_missing, 2);
	CHECK_INT(s.nr_uncounted, 1);
	CHECK_INT(s.nr_samples, 64);
	/* Each thread Locus knows its process: the main thread (tid == pid) and
	 * the progress thread apart (analysis/threads.h). */
	int threads = 0;
	for (size_t i = 0; i < p.nr_loci; i++) {
		const struct locus *l = &p.loci[i];
		if (l->rank == 1 && (l->thread == 200 || l->thread == 207)) {
			CHECK_INT(l->pid, 200);
			threads++;
		}
		if (l->rank == 0 && l->thread == 100)
			CHECK_INT(l->pid, 100);
	}
	CHECK_INT(threads, 2);

	/* The counting layer: Locus-level, in ns, unsupported counters unavailable. */
	int64_t l2 = find_locus(&p, "nodeB", 2, true);
	CHECK(l2 >= 0);
	int found = 0;
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		if (m->locus != l2)
			continue;
		CHECK_INT(m->hotspot, PIVOT_NONE);
		if (strcmp(m->counter, "task-clock") == 0) {
			CHECK_NEAR(m->value, 1234.5e6, 1);
			CHECK_STR(m->unit, "ns");
			CHECK_INT(m->quality, QUALITY_MEASURED);
			found++;
		} else if (strcmp(m->counter, "cycles") == 0) {
			CHECK_INT(m->quality, QUALITY_UNAVAILABLE);
			CHECK(m->reason != NULL);
			found++;
		}
	}
	CHECK_INT(found, 2);

	/* Sampled ranks fuse on one Hotspot per module offset, Loci kept apart. */
	int64_t work = -1;
	for (size_t h = 0; h < p.nr_hotspots; h++)
		if (p.hotspots[h].module && strcmp(p.hotspots[h].module, "/opt/app/solver") == 0)
			work = (int64_t)(work < 0 ? (int64_t)h : -2);
	CHECK(work >= 0);
	double on0 = 0, on1 = 0;
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		if (m->hotspot != work)
			continue;
		const struct locus *l = &p.loci[m->locus];
		if (l->rank == 0 && strcmp(l->node, "nodeA") == 0)
			on0 += (double)m->sample_count;
		if (l->rank == 1 && strcmp(l->node, "nodeB") == 0)
			on1 += (double)m->sample_count;
	}
	CHECK_NEAR(on0, 30, 0);
	CHECK_NEAR(on1, 10, 0);

	/* Declarations: once each, with the rank numbers. */
	const struct degradation *miss = find_degr(&d, "ranks-missing");
	CHECK(miss && strstr(miss->message, "2 of 6 ranks left no usable artefacts (no rank.json): 4-5"));
	const struct degradation *unc = find_degr(&d, "ranks-uncounted");
	CHECK(unc && strstr(unc->message, "1 rank ran neither counted nor sampled: 3"));
	CHECK(find_degr(&d, "rank-perf-missing") != NULL);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
	degradations__release(&d);
	pivot__release(&p);
}

static void t_merged_per_name(void)
{
	snprintf(root, sizeof(root), "/tmp/nunatak-test-ranks-m-%d", (int)getpid());
	mkdir(root, 0755);
	g_world = 4;
	for (int r = 0; r < 4; r++) {
		char d[256];
		snprintf(d, sizeof(d),
			 "{\"name\": \"rank-perf-missing\", \"message\": \"perf not found on n%d: "
			 "rank %d ran uncounted\", \"remedy\": \"install perf\"}", r, r);
		rank_json(r, "n", "bare", false, false, d);
	}
	struct pivot p;
	pivot__init(&p);
	struct degradations d = {0};
	struct ranks_summary s;
	CHECK_INT(ingest_ranks(root, 4, &p, &d, &s, NULL), 0);
	const struct degradation *pm = find_degr(&d, "rank-perf-missing");
	CHECK(pm && strstr(pm->message, "(on 4 ranks: 0-3)"));
	CHECK(find_degr(&d, "ranks-missing") == NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
	degradations__release(&d);
	pivot__release(&p);
}

static void t_no_rank_dirs(void)
{
	struct pivot p;
	pivot__init(&p);
	struct degradations d = {0};
	struct ranks_summary s;
	CHECK_INT(ingest_ranks("/nonexistent/collect", -1, &p, &d, &s, NULL), 0);
	CHECK_INT(s.nr_ranks, 0);
	CHECK_INT(d.n, 0);
	CHECK_INT(p.nr_measurements, 0);
	pivot__release(&p);
}

/* A sampling rank's perf.data read in place, its build-ids from the list the
 * shim wrote beside it (perf record -B wrote none in the header, issue 27):
 * the list wins over a header, and a rank without a list keeps its header's. */
static void t_shim_build_ids(void)
{
	snprintf(root, sizeof(root), "/tmp/nunatak-test-ranks-b-%d", (int)getpid());
	mkdir(root, 0755);
	g_world = 2;
	char cmd[1024];
	for (int r = 0; r < 2; r++) {
		rank_json(r, "n", "sampler", true, false, "");
		snprintf(cmd, sizeof(cmd), "cp '%s/tests/golden/perf-data/flat.data' '%s/rank-%d/perf.data'",
			 TEST_SOURCE_DIR, root, r);
		CHECK_INT(system(cmd), 0);
	}
	put("rank-0/perf-buildid-list.txt", "00112233445566778899aabbccddeeff00112233 /tmp/ing_prog\n");
	struct pivot p;
	pivot__init(&p);
	struct degradations d = {0};
	struct ranks_summary s;
	CHECK_INT(ingest_ranks(root, 2, &p, &d, &s, NULL), 0);
	CHECK_INT(s.nr_sampled, 2);
	bool listed = false, header = false;
	for (size_t i = 0; i < p.nr_hotspots; i++) {
		const struct hotspot *h = &p.hotspots[i];
		if (!h->module || strcmp(h->module, "/tmp/ing_prog") != 0)
			continue;
		CHECK(h->build_id != NULL);
		listed |= strcmp(h->build_id, "00112233445566778899aabbccddeeff00112233") == 0;
		header |= strcmp(h->build_id, "939c377cb6dd31137b0f5490d95a3ea5cc6302a2") == 0;
	}
	CHECK(listed); /* rank 0: the shim's list */
	CHECK(header); /* rank 1: no list, the header's */
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
	degradations__release(&d);
	pivot__release(&p);
}

/* A rank that preloaded the MPI library but left no profile: every possible
 * cause is named, mpi_f08 included, never static linking alone. */
static void t_mpi_missing(void)
{
	snprintf(root, sizeof(root), "/tmp/nunatak-test-ranks-f-%d", (int)getpid());
	mkdir(root, 0755);
	put("rank-0/rank.json", "{\"rank\": 0, \"node\": \"n\", \"exit_code\": 0, "
				"\"mpi_profile\": \"rank-0/mpi-profile.txt\"}");
	struct pivot p;
	pivot__init(&p);
	struct degradations d = {0};
	struct mpi_ingest_summary s;
	struct err e = {0};
	CHECK_INT(ingest_mpi(root, 1, &p, &d, &s, &e), 0);
	CHECK_INT(s.nr_expected, 1);
	CHECK_INT(s.nr_profiled, 0);
	const struct degradation *g = find_degr(&d, "mpi-analysis-unavailable");
	CHECK(g && strstr(g->message, "1 rank left no MPI profile (0)"));
	CHECK(g && strstr(g->message, "linked statically") && strstr(g->message, "mpi_f08"));
	CHECK(g && strstr(g->remedy, "`use mpi` instead of `use mpi_f08`"));
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
	degradations__release(&d);
	pivot__release(&p);
}

/* An MPICH program under Open MPI's mpirun: the launch numbered 2 ranks
 * (rank.json; or, when the launcher published no size, its 2 directories),
 * each rank's own MPI says its world holds 1. Said once, naming both MPIs
 * and MPICH's own launcher; each rank's world size kept in the pivot. */
static void t_mpi_separate_worlds(void)
{
	static const char prof[] = "nunatak-mpi\t1\nrank\t0\nworld\t1\nnode\tvm\npid\t100\n"
				   "state\tfinalized\nlibrary\tMPICH Version:\ninit_ns\t1000\n"
				   "wall_ns\t4000\nfunction\tMPI_Barrier\t1\t900\t0\nend\n";
	for (int announced = 1; announced >= 0; announced--) {
		snprintf(root, sizeof(root), "/tmp/nunatak-test-ranks-w-%d", (int)getpid());
		mkdir(root, 0755);
		for (int r = 0; r < 2; r++) {
			char rel[64], meta[300];
			snprintf(rel, sizeof(rel), "rank-%d/rank.json", r);
			snprintf(meta, sizeof(meta), "{\"rank\": %d, \"world_size\": %s, \"node\": "
				 "\"vm\", \"exit_code\": 0, \"runtime\": \"openmpi\", \"mpi_profile\": "
				 "\"lib.so\"}", r, announced ? "2" : "null");
			put(rel, meta);
			snprintf(rel, sizeof(rel), "rank-%d/mpi-profile.txt", r);
			put(rel, prof);
		}
		struct pivot p;
		pivot__init(&p);
		struct degradations d = {0};
		struct mpi_ingest_summary s;
		struct err e = {0};
		CHECK_INT(ingest_mpi(root, announced ? 2 : -1, &p, &d, &s, &e), 0);
		CHECK_INT(s.nr_profiled, 2);
		const struct degradation *g = find_degr(&d, "mpi-separate-worlds");
		CHECK(g && strstr(g->message, "launcher and MPI library do not match: Open MPI's "
					      "launcher (it set OMPI_COMM_WORLD_RANK/SIZE) numbered 2 "
					      "ranks, but the MPI library of ranks 0-1 (MPICH) says its "
					      "MPI_COMM_WORLD holds 1 rank"));
		CHECK(g && strstr(g->remedy, "MPICH's own launcher (mpirun.mpich"));
		int sizes = 0;
		for (size_t i = 0; i < p.nr_measurements; i++)
			if (!strcmp(p.measurements[i].counter, "mpi_world_size")) {
				CHECK(p.measurements[i].value == 1.0);
				CHECK_STR(p.measurements[i].unit, "ranks");
				sizes++;
			}
		CHECK_INT(sizes, 2);
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		CHECK_INT(system(cmd), 0);
		degradations__release(&d);
		pivot__release(&p);
	}
}

static void t_format_list(void)
{
	char buf[64];
	int r[] = {0, 1, 2, 3, 7, 9, 10};
	CHECK_STR(ranks_format_list(r, 7, buf, sizeof(buf)), "0-3, 7, 9-10");
	int one[] = {5};
	CHECK_STR(ranks_format_list(one, 1, buf, sizeof(buf)), "5");
	int many[40];
	for (int i = 0; i < 40; i++)
		many[i] = 2 * i;
	ranks_format_list(many, 40, buf, 24);
	CHECK(strstr(buf, "...") != NULL);
}

static const struct test_case cases[] = {
	{"mpi_separate_worlds", "ranks whose own MPI world is smaller than the launch: said once, "
	 "with both MPIs and the remedy", t_mpi_separate_worlds},
	{"collect_dir", "counts, fused samples, missing and uncounted ranks", t_collect_dir},
	{"merged", "one per-rank degradation name is declared once", t_merged_per_name},
	{"no_ranks", "a Run without ranks yields nothing", t_no_rank_dirs},
	{"format_list", "rank lists are compact", t_format_list},
	{"mpi_missing", "a rank without an MPI profile: every cause named, mpi_f08 too", t_mpi_missing},
	{"shim_build_ids", "a rank's build-ids from the shim's list, else its header", t_shim_build_ids},
};

TEST_MAIN(cases)
