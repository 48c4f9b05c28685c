// SPDX-License-Identifier: BSD-3-Clause
// pivot.sqlite: round trip of every table including NULLs (unavailable is
// never 0) and non-ASCII text, refusal of newer schemas and foreign files,
// tolerance of absent tables, dangling references, atomic replacement.
#include "store/pivot_db.h"

#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "common/alloc.h"
#include "common/err.h"
#include <ftw.h>

#include "harness.h"
#include "model/model.h"
#include "store/pivot_tables.h"
#include "common/alloc.h"
#include "common/fsutil.h"

#define TMPDIR_TAG "pivot"
#include "tmpdir.h"

static char *tmpfile_path(void)
{
	char *d = tmpdir();
	char *path = fs_join(d, "pivot.sqlite");
	free(d);
	return path;
}

static void build(struct pivot *p)
{
	pivot__init(p);
	struct hotspot h = {(char *)"/opt/app/solver", (char *)"abcdef0123", (char *)"axpy",
			    (char *)"/src/\xc3\xa9quation.c", RESOLUTION_LINE, 0x1130, true};
	CHECK_INT(pivot__add_hotspot(p, &h), 0);
	struct hotspot u = {(char *)"[unknown]", NULL, NULL, NULL, RESOLUTION_UNRESOLVED, 0, false};
	CHECK_INT(pivot__add_hotspot(p, &u), 1);
	CHECK_INT(pivot__intern_locus(p, "node-\xe6\x97\xa5\xe6\x9c\xac", 3, 4242), 0);
	CHECK_INT(pivot__intern_locus(p, "node-b", -1, -1), 1);
	p->loci[0].pid = 4240; /* thread 4242 of process 4240; node-b's pid unknown */
	/* a hostile comm (markup, quotes, a byte that is no UTF-8); node-b has none */
	CHECK_INT(locus__set_name(&p->loci[0], "<b>&\"x\xff", 7), 0);
	struct measurement m = {0, 0, 0, (char *)"task-clock", 1.5e9, (char *)"ns",
				QUALITY_MEASURED, NULL, 1500, -1};
	CHECK_INT(pivot__add_measurement(p, &m), 0);
	struct measurement agg = {PIVOT_NONE, 1, 1, (char *)"flops", 0.0, (char *)"flop",
				  QUALITY_UNAVAILABLE, (char *)"no hardware counters", -1, 0.5};
	CHECK_INT(pivot__add_measurement(p, &agg), 1);
	struct measurement zero = {1, 1, 0, (char *)"cycles", 0.0, (char *)"cycles",
				   QUALITY_ESTIMATED, (char *)"multiplexed", 0, 0.25};
	CHECK_INT(pivot__add_measurement(p, &zero), 2);
	struct address a = {0, 0x1138, 0, (char *)"task-clock", 7.5e8, 750};
	CHECK_INT(pivot__add_address(p, &a), 0);
	struct frame f = {0, 0x1138, 0, (char *)"axpy_inner", (char *)"/src/k.h", 12, 10};
	CHECK_INT(pivot__add_frame(p, &f), 0);
	struct frame f2 = {0, 0x1138, 1, (char *)"axpy", NULL, 0, 0};
	CHECK_INT(pivot__add_frame(p, &f2), 1);
	struct extract x = {0, (char *)"/src/k.h", (char *)"/home/u/src/k.h", 8, 20,
			    (char *)"for (i = 0; i < n; i++)\n\ty[i] += a * x[i]; // \xe2\x88\x91\n",
			    true, NULL};
	CHECK_INT(pivot__add_extract(p, &x), 0);
	struct extract x2 = {1, (char *)"/src/gone.c", NULL, 0, 0, NULL, false,
			     (char *)"source not found"};
	CHECK_INT(pivot__add_extract(p, &x2), 1);
	struct stack s = {0, 0, (char *)"task-clock", 3e8, (char *)"ns", 300};
	CHECK_INT(pivot__add_stack(p, &s), 0);
	struct stack_frame sf = {0, 0, (char *)"/opt/app/solver", 0x1138, (char *)"axpy"};
	CHECK_INT(pivot__add_stack_frame(p, &sf), 0);
	struct stack_frame sf2 = {0, 1, (char *)"/lib/libc.so.6", 0x29d90, NULL};
	CHECK_INT(pivot__add_stack_frame(p, &sf2), 1);
	struct region_stat r = {0, (char *)"main > solve", (char *)"solve", 10, 5000, 4000,
				false, false, 0, 0, false, 0};
	CHECK_INT(pivot__add_region_stat(p, &r), 0);
	/* counted by scope_profiler: flop and bytes round-trip, 0 is a value */
	struct region_stat rc = {0, (char *)"main > dot", (char *)"dot", 3, 900, 900,
				 true, true, 2.5e9, 0, true, 300};
	CHECK_INT(pivot__add_region_stat(p, &rc), 1);
}

static void streq(const char *a, const char *b)
{
	if (!a || !b)
		CHECK(a == b);
	else
		CHECK_STR(a, b);
}

static void compare(const struct pivot *a, const struct pivot *b)
{
	CHECK_INT(b->nr_hotspots, a->nr_hotspots);
	for (size_t i = 0; i < a->nr_hotspots; i++) {
		streq(b->hotspots[i].module, a->hotspots[i].module);
		streq(b->hotspots[i].build_id, a->hotspots[i].build_id);
		streq(b->hotspots[i].name, a->hotspots[i].name);
		streq(b->hotspots[i].source_file, a->hotspots[i].source_file);
		CHECK_INT(b->hotspots[i].level, a->hotspots[i].level);
		CHECK_INT(b->hotspots[i].has_offset, a->hotspots[i].has_offset);
		if (a->hotspots[i].has_offset)
			CHECK_INT(b->hotspots[i].offset, a->hotspots[i].offset);
	}
	CHECK_INT(b->nr_loci, a->nr_loci);
	for (size_t i = 0; i < a->nr_loci; i++) {
		streq(b->loci[i].node, a->loci[i].node);
		CHECK_INT(b->loci[i].rank, a->loci[i].rank);
		CHECK_INT(b->loci[i].thread, a->loci[i].thread);
		CHECK_INT(b->loci[i].pid, a->loci[i].pid);
		streq(b->loci[i].name, a->loci[i].name);
	}
	CHECK_INT(b->nr_measurements, a->nr_measurements);
	for (size_t i = 0; i < a->nr_measurements; i++) {
		const struct measurement *x = &a->measurements[i], *y = &b->measurements[i];
		CHECK_INT(y->hotspot, x->hotspot);
		CHECK_INT(y->locus, x->locus);
		CHECK_INT(y->pass_index, x->pass_index);
		streq(y->counter, x->counter);
		streq(y->unit, x->unit);
		streq(y->reason, x->reason);
		CHECK_INT(y->quality, x->quality);
		if (x->quality == QUALITY_UNAVAILABLE)
			CHECK(isnan(y->value)); /* never read back as 0 */
		else
			CHECK(y->value == x->value);
		CHECK_INT(y->sample_count, x->sample_count);
		CHECK(y->coverage == x->coverage);
	}
	CHECK_INT(b->nr_addresses, a->nr_addresses);
	CHECK_INT(b->addresses[0].offset, a->addresses[0].offset);
	CHECK(b->addresses[0].value == a->addresses[0].value);
	CHECK_INT(b->nr_frames, a->nr_frames);
	for (size_t i = 0; i < a->nr_frames; i++) {
		streq(b->frames[i].file, a->frames[i].file);
		CHECK_INT(b->frames[i].line, a->frames[i].line);
		CHECK_INT(b->frames[i].declaration_line, a->frames[i].declaration_line);
		CHECK_INT(b->frames[i].depth, a->frames[i].depth);
	}
	CHECK_INT(b->nr_extracts, a->nr_extracts);
	for (size_t i = 0; i < a->nr_extracts; i++) {
		streq(b->extracts[i].text, a->extracts[i].text);
		streq(b->extracts[i].reason, a->extracts[i].reason);
		streq(b->extracts[i].resolved_path, a->extracts[i].resolved_path);
		CHECK_INT(b->extracts[i].truncated, a->extracts[i].truncated);
		CHECK_INT(b->extracts[i].end_line, a->extracts[i].end_line);
	}
	CHECK_INT(b->nr_stacks, a->nr_stacks);
	CHECK_INT(b->stacks[0].sample_count, a->stacks[0].sample_count);
	CHECK_INT(b->nr_stack_frames, a->nr_stack_frames);
	CHECK_INT(b->stack_frames[1].offset, a->stack_frames[1].offset);
	streq(b->stack_frames[1].function, a->stack_frames[1].function);
	CHECK_INT(b->nr_region_stats, a->nr_region_stats);
	streq(b->region_stats[0].path, a->region_stats[0].path);
	CHECK_INT(b->region_stats[0].exclusive_ns, a->region_stats[0].exclusive_ns);
	for (size_t i = 0; i < a->nr_region_stats; i++) {
		CHECK_INT(b->region_stats[i].has_flop, a->region_stats[i].has_flop);
		CHECK_INT(b->region_stats[i].has_dram_bytes, a->region_stats[i].has_dram_bytes);
		if (a->region_stats[i].has_flop)
			CHECK(b->region_stats[i].flop == a->region_stats[i].flop);
		if (a->region_stats[i].has_dram_bytes)
			CHECK(b->region_stats[i].dram_bytes == a->region_stats[i].dram_bytes);
		CHECK_INT(b->region_stats[i].has_offcpu, a->region_stats[i].has_offcpu);
		if (a->region_stats[i].has_offcpu)
			CHECK(b->region_stats[i].offcpu_ns == a->region_stats[i].offcpu_ns);
	}
}

static void sql(const char *path, const char *stmt)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, stmt, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
}

static long long sql_int(const char *path, const char *query)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, query, -1, &st, NULL) == SQLITE_OK);
	long long v = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
			      ? sqlite3_column_int64(st, 0) : -999;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void t_roundtrip(void)
{
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	build(&p);
	CHECK_INT(pivot_db_write(&p, path, "nunatak test", &e), 0);
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	compare(&p, &r);
	/* Unavailable is NULL in the file, not 0; a Locus-level row has hotspot NULL. */
	CHECK_INT(sql_int(path, "SELECT value IS NULL FROM measurements WHERE id = 1"), 1);
	CHECK_INT(sql_int(path, "SELECT hotspot IS NULL FROM measurements WHERE id = 1"), 1);
	CHECK_INT(sql_int(path, "SELECT value FROM measurements WHERE id = 2"), 0); /* a real 0 */
	CHECK_INT(sql_int(path, "SELECT offset IS NULL FROM hotspots WHERE id = 1"), 1);
	CHECK_INT(sql_int(path, "SELECT line IS NULL FROM frames WHERE id = 1"), 1);
	CHECK_INT(sql_int(path, "SELECT rank IS NULL FROM loci WHERE id = 1"), 1);
	CHECK_INT(sql_int(path, "SELECT value FROM meta WHERE key = 'schema'"), 2);
	CHECK_INT(sql_int(path, "PRAGMA page_size"), 4096); /* small: no empty 64 kB pages */
	pivot__release(&p);
	pivot__release(&r);
	done();
}

static void t_empty(void)
{
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	pivot__init(&p);
	pivot__init(&r);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_hotspots + r.nr_measurements + r.nr_region_stats, 0);
	done();
}

static void t_newer_schema(void)
{
	char *path = tmpfile_path();
	struct pivot p;
	struct err e = {0};
	build(&p);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	sql(path, "UPDATE meta SET value = '3' WHERE key = 'schema'");
	struct pivot r;
	pivot__init(&r);
	CHECK(pivot_db_read(&r, path, &e) < 0);
	CHECK_STR(e.code, "run.newer_schema");
	CHECK_STR(e.msg, "Run written with schema 3, newer than the supported 2; upgrade nunatak "
			 "to read it");
	done();
}

static void t_foreign(void)
{
	char *path = tmpfile_path();
	struct pivot r;
	struct err e = {0};
	pivot__init(&r);
	CHECK(pivot_db_read(&r, path, &e) < 0);
	CHECK_STR(e.code, "run.not_a_run");
	CHECK(fs_write_atomic(path, "hello, not sqlite at all, just some text to fill a page",
			      55, &e) == 0);
	CHECK(pivot_db_read(&r, path, &e) < 0);
	CHECK_STR(e.code, "run.foreign");
	unlink(path);
	sql(path, "CREATE TABLE other (x)");
	CHECK(pivot_db_read(&r, path, &e) < 0);
	CHECK_STR(e.code, "run.foreign");
	CHECK(strstr(e.msg, "no meta table") != NULL);
	done();
}

static void t_absent_tables(void)
{
	/* An older file without (additive) tables reads back with them empty. */
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	build(&p);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	sql(path, "DROP TABLE region_stats; DROP TABLE stack_frames; "
		  "DROP TABLE mpi_collectives; ALTER TABLE measurements DROP COLUMN coverage");
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_mpi_collectives, 0); /* a Run from before the collectives */
	CHECK_INT(r.nr_region_stats, 0);
	CHECK_INT(r.nr_stack_frames, 0);
	CHECK_INT(r.nr_measurements, 3);
	CHECK(r.measurements[1].coverage == -1); /* absent column: not applicable, not 0 */
	done();
}

/* Thread names: written as text (the comm's stray byte escaped), NULL when
 * none was recorded; a Run from before the column reads back unnamed. */
static void t_locus_names(void)
{
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	build(&p);
	CHECK_STR(p.loci[0].name, "<b>&\"x\\xff");
	CHECK(p.loci[1].name == NULL);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_loci, 2);
	CHECK_STR(r.loci[0].name, "<b>&\"x\\xff");
	CHECK(r.loci[1].name == NULL);
	pivot__release(&r);
	/* a hand-made file: a name with a line break, an escape and a stray
	 * byte reads back as one line of UTF-8, as nunatak would have written it */
	sql(path, "UPDATE loci SET name = CAST(x'3cff0a1b5b324a' AS TEXT) WHERE id = 0");
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_STR(r.loci[0].name, "<\\xff\\x0a\\x1b[2J");
	pivot__release(&r);
	sql(path, "ALTER TABLE loci DROP COLUMN name"); /* as written before the column */
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_loci, 2);
	CHECK_INT(r.loci[0].thread, 4242);
	CHECK_INT(r.loci[0].pid, 4240);
	CHECK(r.loci[0].name == NULL && r.loci[1].name == NULL);
	pivot__release(&r);
	pivot__release(&p);
	free(path);
}

static void t_dangling(void)
{
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	build(&p);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	sql(path, "UPDATE measurements SET locus = 99 WHERE id = 2");
	pivot__init(&r);
	CHECK(pivot_db_read(&r, path, &e) < 0);
	CHECK_STR(e.code, "run.corrupt");
	CHECK(strstr(e.msg, "table measurements, id 2") != NULL);
	CHECK(strstr(e.msg, "locus 99 refers to no row") != NULL);
	pivot__release(&r);
	sql(path, "UPDATE measurements SET locus = 1, quality = 'great' WHERE id = 2");
	pivot__init(&r);
	CHECK(pivot_db_read(&r, path, &e) < 0);
	CHECK(strstr(e.msg, "quality \"great\" is unknown") != NULL);
	done();
}

/* A tampered pivot (issue 28): a generated column that would build a huge
 * string, a view or trigger, text where a number belongs, -1e308: each is
 * refused with the table and column named, before anything is shown. */
static void tampered(const char *path, const char *stmt, const char *want)
{
	struct pivot p, r;
	struct err e = {0};
	build(&p);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	sql(path, stmt);
	pivot__init(&r);
	CHECK(pivot_db_read(&r, path, &e) < 0);
	if (!strstr(e.msg, want))
		fprintf(stderr, "for %s: %s\n", stmt, e.msg);
	CHECK(strstr(e.msg, want) != NULL);
	CHECK_STR(e.code, "run.corrupt");
	pivot__release(&r);
	pivot__release(&p);
}

static void t_tampered(void)
{
	char *path = tmpfile_path();
	tampered(path, "ALTER TABLE hotspots ADD COLUMN boom TEXT "
		 "GENERATED ALWAYS AS (printf('%.*c', 900000000, 'x')) VIRTUAL",
		 "column boom");
	tampered(path, "CREATE VIEW v AS SELECT * FROM hotspots", "holds view v");
	tampered(path, "CREATE TRIGGER t AFTER INSERT ON loci BEGIN SELECT 1; END", "holds trigger t");
	tampered(path, "CREATE INDEX i ON loci(rank)", "holds index i");
	tampered(path, "UPDATE measurements SET value = 'abc' WHERE id = 0",
		 "table measurements, id 0: column value holds text");
	tampered(path, "UPDATE measurements SET value = -1e308 WHERE id = 0",
		 "column value holds a number out of range");
	tampered(path, "UPDATE measurements SET coverage = -0.5 WHERE id = 1",
		 "column coverage holds a number out of range");
	tampered(path, "UPDATE loci SET rank = 'two' WHERE id = 0", "column rank holds text");
	tampered(path, "UPDATE hotspots SET name = x'00ff' WHERE id = 0", "column name holds a blob");
	xfree(path);
	done();
}

static void t_atomic(void)
{
	/* A failing write (a file size limit: the temporary name is random, and
	 * root ignores modes) leaves the previous file, and no temporary. */
	char *path = tmpfile_path();
	struct pivot p, empty, r;
	struct err e = {0};
	build(&p);
	pivot__init(&empty);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	struct rlimit old, small = {4096, 4096};
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rc = pivot_db_write(&empty, path, NULL, &e);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK(rc < 0);
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_measurements, 3);
	char *cmd = xasprintf("ls '%s'.tmp.* 2>/dev/null | grep -q .", path);
	CHECK(system(cmd) != 0);
	xfree(cmd);
	CHECK_INT(pivot_db_write(&empty, path, NULL, &e), 0);
	done();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void t_bulk(void)
{
	/* 200k measurement rows round trip; the rate is printed, never asserted. */
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	pivot__init(&p);
	CHECK_INT(pivot__intern_locus(&p, "n", 0, 1), 0);
	struct hotspot h = {(char *)"m", NULL, (char *)"f", NULL, RESOLUTION_FUNCTION, 16, true};
	CHECK_INT(pivot__add_hotspot(&p, &h), 0);
	const size_t n = 200000;
	for (size_t i = 0; i < n; i++) {
		struct measurement m = {0, 0, (int)(i % 3), (char *)"task-clock", (double)i,
					(char *)"ns", QUALITY_MEASURED, NULL, (int64_t)i, -1};
		CHECK(pivot__add_measurement(&p, &m) >= 0);
	}
	double t0 = now_s();
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	double t1 = now_s();
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	double t2 = now_s();
	CHECK_INT(r.nr_measurements, n);
	CHECK(r.measurements[n - 1].value == (double)(n - 1));
	for (size_t i = 0; i < n; i += 997)
		CHECK(r.measurements[i].value == (double)i && r.measurements[i].sample_count == (int64_t)i);
	CHECK_INT(sql_int(path, "PRAGMA page_size"), 65536); /* large: the faster pages */
	printf("  pivot.sqlite: write %.2f M rows/s, read %.2f M rows/s (CPU time)\n",
	       (double)n / (t1 - t0) / 1e6, (double)n / (t2 - t1) / 1e6);
	done();
}

/* OpenMP regions measured by the OMPT tool survive write + read. */
static void t_omp_sites(void)
{
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	pivot__init(&p);
	CHECK_INT(pivot__intern_locus(&p, "n", -1, 12), 0);
	struct omp_site o = {.locus = 0, .module = (char *)"/a b/app", .address = 0x1261,
			     .function = (char *)"main", .file = (char *)"/s/x.c", .line = 27,
			     .thread_num = 1, .calls = 3, .task_ns = 500, .wait_ns = 200};
	CHECK_INT(pivot__add_omp_site(&p, &o), 0);
	o.function = o.file = NULL;
	o.line = 0;
	CHECK_INT(pivot__add_omp_site(&p, &o), 1);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_omp_sites, 2);
	CHECK_STR(r.omp_sites[0].module, "/a b/app");
	CHECK_INT(r.omp_sites[0].address, 0x1261);
	CHECK_STR(r.omp_sites[0].function, "main");
	CHECK_INT(r.omp_sites[0].line, 27);
	CHECK_INT(r.omp_sites[0].thread_num, 1);
	CHECK_INT(r.omp_sites[0].task_ns, 500);
	CHECK_INT(r.omp_sites[0].wait_ns, 200);
	CHECK(r.omp_sites[1].function == NULL && r.omp_sites[1].file == NULL);
	CHECK_INT(r.omp_sites[1].line, 0);
	pivot__release(&p);
	pivot__release(&r);
	done();
}

/* Collectives per communicator survive write + read: members NULL (not
 * placed), root NULL (none). */
static void t_mpi_collectives(void)
{
	char *path = tmpfile_path();
	struct pivot p, r;
	struct err e = {0};
	pivot__init(&p);
	CHECK_INT(pivot__intern_locus(&p, "n", 3, -1), 0);
	struct mpi_collective c = {.locus = 0, .name = (char *)"MPI_Bcast",
				   .members = (char *)"3,1", .size = 2, .root = 3, .calls = 2,
				   .time_ns = 700, .bytes = 500};
	CHECK_INT(pivot__add_mpi_collective(&p, &c), 0);
	c.members = NULL, c.size = 0, c.root = -1, c.name = (char *)"MPI_Allreduce";
	CHECK_INT(pivot__add_mpi_collective(&p, &c), 1);
	CHECK_INT(pivot_db_write(&p, path, NULL, &e), 0);
	pivot__init(&r);
	CHECK_INT(pivot_db_read(&r, path, &e), 0);
	CHECK_INT(r.nr_mpi_collectives, 2);
	CHECK_STR(r.mpi_collectives[0].members, "3,1");
	CHECK(r.mpi_collectives[0].size == 2 && r.mpi_collectives[0].root == 3 &&
	      r.mpi_collectives[0].calls == 2 && r.mpi_collectives[0].time_ns == 700 &&
	      r.mpi_collectives[0].bytes == 500);
	CHECK(r.mpi_collectives[1].members == NULL && r.mpi_collectives[1].root == -1);
	pivot__release(&p);
	pivot__release(&r);
	done();
}

/* The schema is generated from the column tables; the SQL a reader of old
 * Runs depends on stays what it was, word for word. */
static void t_schema(void)
{
	CHECK_INT(nr_pivot_tables, 16);
	CHECK_STR(pivot_tables[15].name, "mpi_collectives");
	char *coll = pivot_table__ddl(&pivot_tables[15]);
	CHECK_STR(coll, "locus INTEGER NOT NULL REFERENCES loci(id), name TEXT NOT NULL, members "
			"TEXT, size INTEGER NOT NULL, root INTEGER, calls INTEGER NOT NULL, time_ns "
			"INTEGER NOT NULL, bytes INTEGER NOT NULL");
	xfree(coll);
	CHECK_STR(pivot_tables[14].name, "omp_sites");
	char *omp = pivot_table__ddl(&pivot_tables[14]);
	CHECK_STR(omp, "locus INTEGER NOT NULL REFERENCES loci(id), module TEXT, address INTEGER "
		       "NOT NULL, function TEXT, file TEXT, line INTEGER, thread_num INTEGER NOT "
		       "NULL, calls INTEGER NOT NULL, task_ns INTEGER NOT NULL, wait_ns INTEGER NOT "
		       "NULL");
	xfree(omp);
	CHECK_STR(pivot_tables[0].name, "hotspots");
	char *ddl = pivot_table__ddl(&pivot_tables[0]);
	CHECK_STR(ddl, "module TEXT, build_id TEXT, name TEXT, source_file TEXT, resolution_level "
		       "TEXT NOT NULL, offset INTEGER");
	xfree(ddl);
	CHECK_STR(pivot_tables[2].name, "measurements");
	ddl = pivot_table__ddl(&pivot_tables[2]);
	CHECK_STR(ddl, "hotspot INTEGER REFERENCES hotspots(id), locus INTEGER NOT NULL REFERENCES "
		       "loci(id), pass_index INTEGER NOT NULL, counter TEXT NOT NULL, value REAL, "
		       "unit TEXT, quality TEXT NOT NULL, reason TEXT, sample_count INTEGER, "
		       "coverage REAL");
	xfree(ddl);
	char *ins = pivot_table__insert_sql(&pivot_tables[1]);
	CHECK_STR(ins, "INSERT INTO loci (id, node, rank, thread, pid, name) VALUES (?, ?, ?, ?, ?, "
		       "?)");
	xfree(ins);
	CHECK_STR(pivot_tables[13].name, "mpi_peers");
	ddl = pivot_table__ddl(&pivot_tables[13]);
	CHECK_STR(ddl, "locus INTEGER NOT NULL REFERENCES loci(id), peer INTEGER, direction TEXT "
		       "NOT NULL, calls INTEGER NOT NULL, time_ns INTEGER NOT NULL, bytes INTEGER "
		       "NOT NULL");
	xfree(ddl);
}

static const struct test_case cases[] = {
	{"mpi_collectives", "collectives per communicator and root: write + read, NULLs kept",
	 t_mpi_collectives},
	{"schema", "the column tables generate the schema of every Run so far", t_schema},
	{"roundtrip", "every table survives write + read; NULLs stay NULL", t_roundtrip},
	{"locus_names", "thread names survive write + read, a hand-made one escaped; an older pivot reads",
	 t_locus_names},
	{"omp_sites", "OMPT regions survive write + read", t_omp_sites},
	{"empty", "an empty pivot writes and reads", t_empty},
	{"newer_schema", "meta.schema 3 is refused with the upgrade message", t_newer_schema},
	{"foreign", "missing, non-SQLite and non-nunatak files are refused", t_foreign},
	{"absent_tables", "absent tables read back empty, absent columns NULL", t_absent_tables},
	{"dangling", "a dangling reference or unknown enum is named", t_dangling},
	{"atomic", "a failed write leaves the previous file, no temp left", t_atomic},
	{"tampered", "generated columns, views, triggers, mistyped values are refused",
	 t_tampered},
	{"bulk", "200k rows round trip (rate printed)", t_bulk},
};
TEST_MAIN(cases)
