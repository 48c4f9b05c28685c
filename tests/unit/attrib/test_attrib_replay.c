// SPDX-License-Identifier: BSD-3-Clause
/* Attribution fed with corpus recordings through the replay executor: the
 * llvm-symbolizer / llvm-dwarfdump answers of real LLVM 19 runs on an EPYC
 * machine, with a pivot shaped as ingestion leaves it (one unresolved Hotspot
 * per sampled (module, offset), sample counts as in the recorded perf script). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attrib/attrib.h"
#include "tools/locate.h"
#include "attrib/views.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "model/model.h"

#define ENTRY_DIR TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/"

struct sample_row {
	const char *module, *build_id;
	uint64_t offset;
	int samples;
};

static void pivot_from(struct pivot *p, const struct sample_row *rows, size_t n)
{
	pivot__init(p);
	int64_t locus = pivot__intern_locus(p, "node0", -1, 4242);
	for (size_t i = 0; i < n; i++) {
		struct hotspot h = {.module = (char *)rows[i].module, .build_id = (char *)rows[i].build_id,
				    .level = RESOLUTION_UNRESOLVED, .offset = rows[i].offset,
				    .has_offset = rows[i].offset != 0};
		int64_t id = pivot__add_hotspot(p, &h);
		struct measurement m = {.hotspot = id, .locus = locus, .counter = (char *)"cycles",
					.value = 1000.0 * rows[i].samples, .unit = (char *)"cycles",
					.quality = QUALITY_MEASURED, .sample_count = rows[i].samples,
					.coverage = -1};
		CHECK(pivot__add_measurement(p, &m) >= 0);
	}
}

static double total_value(const struct pivot *p)
{
	double t = 0;
	for (size_t i = 0; i < p->nr_measurements; i++)
		t += p->measurements[i].value;
	return t;
}

static int64_t find_hotspot(const struct pivot *p, const char *name)
{
	for (size_t i = 0; i < p->nr_hotspots; i++)
		if (p->hotspots[i].name && strcmp(p->hotspots[i].name, name) == 0)
			return (int64_t)i;
	return -1;
}

static double hotspot_value(const struct pivot *p, int64_t h)
{
	double t = 0;
	for (size_t i = 0; i < p->nr_measurements; i++)
		if (p->measurements[i].hotspot == h)
			t += p->measurements[i].value;
	return t;
}

static const struct extract *find_extract(const struct pivot *p, int64_t h, const char *file)
{
	for (size_t i = 0; i < p->nr_extracts; i++)
		if (p->extracts[i].hotspot == h && strcmp(p->extracts[i].file, file) == 0)
			return &p->extracts[i];
	return NULL;
}

static void write_file(const char *path, int nr_lines, const char *tag)
{
	FILE *f = fopen(path, "w");
	CHECK(f);
	for (int i = 1; i <= nr_lines; i++)
		fprintf(f, "/* %s line %d */\n", tag, i);
	fclose(f);
}

/* Runs locate + attribution over a replayed entry. */
static void attribute(const char *entry, struct pivot *p, const struct attrib_opts *o,
		      struct degradations *d, struct attrib_tools *t)
{
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	if (!x)
		fprintf(stderr, "%s\n", e.msg);
	CHECK(x);
	CHECK_INT(attrib_locate(x, NULL, NULL, t, &e), 0);
	CHECK_INT(t->tool, ATTRIB_TOOL_LLVM);
	CHECK_INT(t->major, 19);
	CHECK_INT(attrib_run(p, x, t, o, d, &e), 0);
	executor__free(x);
}

static const struct sample_row debug_rows[] = {
	{"/tmp/nunatak-capture-debug/workload", "4ce402d2f4f91e424538da7cbab70af0d8100e4e", 0x1174, 105},
	{"/tmp/nunatak-capture-debug/workload", "4ce402d2f4f91e424538da7cbab70af0d8100e4e", 0x1178, 99},
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "205841581372e951d18b59e0d3b24c16d2291fef", 0x18a2c, 1},
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "205841581372e951d18b59e0d3b24c16d2291fef", 0xa519, 1},
	{"[unknown]", NULL, 0, 10},
};

static void t_debug(void)
{
	char dir[] = "/tmp/nunatak-attrib-XXXXXX";
	CHECK(mkdtemp(dir));
	char src[512];
	snprintf(src, sizeof(src), "%s/workload.c", dir);
	write_file(src, 30, "debug");
	struct attrib_source_map sm = {"/tmp/nunatak-capture-debug", dir};
	struct attrib_opts o = {.source_map = &sm, .nr_source_map = 1, .root = dir};
	struct pivot p;
	struct degradations d = {0};
	struct attrib_tools t;
	pivot_from(&p, debug_rows, 5);
	double before = total_value(&p);
	attribute(ENTRY_DIR "workload-c-debug", &p, &o, &d, &t);

	CHECK_NEAR(total_value(&p), before, 1e-9); /* values stay exact */
	int64_t main_h = find_hotspot(&p, "main");
	CHECK(main_h >= 0);
	const struct hotspot *h = &p.hotspots[main_h];
	CHECK_INT(h->level, RESOLUTION_LINE);
	CHECK_STR(h->source_file, "/tmp/nunatak-capture-debug/workload.c");
	CHECK_INT(h->offset, 0x10c0); /* physical identity: function start */
	CHECK_STR(h->build_id, "4ce402d2f4f91e424538da7cbab70af0d8100e4e");
	CHECK_NEAR(hotspot_value(&p, main_h), 204000.0, 1e-9); /* 0x1174 + 0x1178 fused */
	CHECK(find_hotspot(&p, "do_lookup_x") >= 0);
	CHECK(find_hotspot(&p, "handle_amd") >= 0);
	CHECK_INT(p.nr_hotspots, 4); /* main, 2 in ld.so, [unknown] unresolved */

	/* the inline chain of 0x1174: reduce (inlined) then main (physical) */
	int seen = 0;
	for (size_t i = 0; i < p.nr_frames; i++) {
		const struct frame *f = &p.frames[i];
		if (f->hotspot != main_h || f->offset != 0x1174)
			continue;
		seen++;
		if (f->depth == 0) {
			CHECK_STR(f->function, "reduce");
			CHECK_INT(f->line, 11);
			CHECK_INT(f->declaration_line, 8);
		} else {
			CHECK_STR(f->function, "main");
			CHECK_INT(f->line, 20);
			CHECK_INT(f->declaration_line, 15);
		}
	}
	CHECK_INT(seen, 2);

	/* extract: [min(8,15,10,11,20) - 3, max + 3] read through the source map */
	const struct extract *x = find_extract(&p, main_h, "/tmp/nunatak-capture-debug/workload.c");
	CHECK(x);
	CHECK_INT(x->start_line, 5);
	CHECK_INT(x->end_line, 23);
	CHECK_STR(x->resolved_path, src);
	CHECK(x->text && strncmp(x->text, "/* debug line 5 */\n", 19) == 0);
	CHECK(strstr(x->text, "line 23 */\n") && !strstr(x->text, "line 24"));
	CHECK(!x->truncated);
	/* ld.so sources are not on this machine: a reason, never a guess */
	const struct extract *lx = find_extract(&p, find_hotspot(&p, "do_lookup_x"), "./elf/dl-lookup.c");
	CHECK(lx && !lx->text);
	CHECK_STR(lx->reason, "source file not found on this machine");

	/* per-line shares: line 11 holds 105/204, line 10 holds 99/204 */
	struct attrib_share best;
	CHECK_INT(attrib_hottest_line(&p, main_h, NULL, &best), 0);
	CHECK_INT(best.line, 11);
	CHECK_NEAR(best.share, 105.0 / 204, 1e-9);
	struct attrib_share *lines;
	size_t nl;
	CHECK_INT(attrib_lines(&p, main_h, NULL, &lines, &nl), 0);
	CHECK_INT(nl, 2);
	CHECK_INT(lines[0].line, 10);
	CHECK_NEAR(lines[0].share, 99.0 / 204, 1e-9);
	free(lines);
	CHECK_INT(d.n, 0);
	degradations__release(&d);
	attrib_tools__release(&t);
	pivot__release(&p);
	unlink(src);
	rmdir(dir);
}

static const struct sample_row clang_rows[] = {
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1244, 46},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1248, 63},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1250, 61},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1254, 57},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1262, 41},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1266, 46},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1273, 46},
	{"/tmp/nunatak-capture-clang/workload", "4053b542009ca7ee6b0e7fc774f07ebfed9883e1", 0x1277, 42},
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "205841581372e951d18b59e0d3b24c16d2291fef", 0x1b29d, 1},
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "205841581372e951d18b59e0d3b24c16d2291fef", 0x22314, 1},
	{"[unknown]", NULL, 0, 10},
};

static void t_clang_stale(void)
{
	char dir[] = "/tmp/nunatak-attrib-XXXXXX";
	CHECK(mkdtemp(dir));
	char src[512];
	snprintf(src, sizeof(src), "%s/workload.c", dir);
	write_file(src, 30, "edited since the build"); /* MD5 differs from the line table's */
	struct attrib_source_map sm = {"/tmp/nunatak-capture-clang", dir};
	struct attrib_opts o = {.source_map = &sm, .nr_source_map = 1, .root = dir};
	struct pivot p;
	struct degradations d = {0};
	struct attrib_tools t;
	pivot_from(&p, clang_rows, 11);
	double before = total_value(&p);
	attribute(ENTRY_DIR "workload-c-clang", &p, &o, &d, &t);

	CHECK_NEAR(total_value(&p), before, 1e-9);
	int64_t main_h = find_hotspot(&p, "main");
	CHECK(main_h >= 0);
	CHECK_INT(p.hotspots[main_h].level, RESOLUTION_LINE);
	CHECK_NEAR(hotspot_value(&p, main_h), 402000.0, 1e-9); /* all 8 addresses fuse */
	CHECK(find_hotspot(&p, "init_cpu_features") >= 0); /* physical, not the inlined leaf */
	CHECK(find_hotspot(&p, "get_extended_indices") < 0);
	int64_t dl = find_hotspot(&p, "_dl_start");
	CHECK(dl >= 0 && !p.hotspots[dl].has_offset); /* no start address: no physical offset */

	const struct extract *x = find_extract(&p, main_h, "/tmp/nunatak-capture-clang/workload.c");
	CHECK(x && !x->text);
	CHECK_STR(x->resolved_path, src);
	CHECK_STR(x->reason, "source file changed since the profiled binary was built "
			     "(line-table MD5 mismatch)");

	/* axpy_element inlined at 0x1248: 63 of main's 402 samples */
	struct attrib_share *inl;
	size_t ni;
	CHECK_INT(attrib_inline_frames(&p, main_h, NULL, &inl, &ni), 0);
	int found = 0;
	for (size_t i = 0; i < ni; i++)
		if (strcmp(inl[i].function, "axpy_element") == 0) {
			CHECK_NEAR(inl[i].share, 63.0 / 402, 1e-9);
			CHECK_INT(inl[i].line, 4);
			found = 1;
		}
	CHECK(found);
	free(inl);
	/* transverse: shares of all sampled time (414 samples incl. [unknown]) */
	CHECK_INT(attrib_inline_view(&p, NULL, &inl, &ni), 0);
	CHECK(ni >= 3);
	CHECK_STR(inl[0].function, "reduce");
	CHECK_NEAR(inl[0].share, 339.0 / 414, 1e-9);
	free(inl);
	degradations__release(&d);
	attrib_tools__release(&t);
	pivot__release(&p);
	unlink(src);
	rmdir(dir);
}

/* No LLVM recorded (workload-c): the pivot is untouched and llvm-missing said. */
static void t_no_llvm(void)
{
	struct err e = {0};
	struct executor *x = executor__new_replay(ENTRY_DIR "workload-c", &e);
	CHECK(x);
	struct attrib_tools t;
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	CHECK_INT(t.tool, ATTRIB_TOOL_NONE);
	struct pivot p;
	struct degradations d = {0};
	pivot_from(&p, debug_rows, 5);
	CHECK_INT(attrib_run(&p, x, &t, NULL, &d, &e), 0);
	CHECK_INT(d.n, 1);
	CHECK_STR(d.v[0].name, "llvm-missing");
	CHECK_INT(p.nr_hotspots, 5);
	CHECK_INT(p.hotspots[0].level, RESOLUTION_UNRESOLVED);
	degradations__release(&d);
	attrib_tools__release(&t);
	pivot__release(&p);
	executor__free(x);
}

/* --no-source: no extracts and no llvm-dwarfdump, the detail is all kept. */
static void t_no_source(void)
{
	struct attrib_opts o = {.no_source = true};
	struct pivot p;
	struct degradations d = {0};
	struct attrib_tools t;
	pivot_from(&p, clang_rows, 11);
	attribute(ENTRY_DIR "workload-c-clang", &p, &o, &d, &t);
	CHECK_INT(p.nr_extracts, 0);
	CHECK(p.nr_frames >= 8 * 2);
	CHECK(find_hotspot(&p, "main") >= 0);
	degradations__release(&d);
	attrib_tools__release(&t);
	pivot__release(&p);
}

/* Allocation failure at every step: a clean error or a complete result, never
 * a crash, a leak (ASan build) or a changed total. */
static void t_oom(void)
{
	char dir[] = "/tmp/nunatak-attrib-XXXXXX";
	CHECK(mkdtemp(dir));
	char src[512];
	snprintf(src, sizeof(src), "%s/workload.c", dir);
	write_file(src, 30, "oom");
	struct attrib_source_map sm = {"/tmp/nunatak-capture-clang", dir};
	struct attrib_opts o = {.source_map = &sm, .nr_source_map = 1, .root = dir};
	int completed = 0;
	for (int n = 1; n <= 1500 && completed < 3; n++) {
		struct err e = {0};
		struct executor *x = executor__new_replay(ENTRY_DIR "workload-c-clang", &e);
		CHECK(x);
		struct attrib_tools t;
		CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
		struct pivot p;
		struct degradations d = {0};
		pivot_from(&p, clang_rows, 11);
		double before = total_value(&p);
		char env[16];
		snprintf(env, sizeof(env), "%d", n);
		setenv("NUNATAK_FAIL_ALLOC", env, 1);
		alloc_fault_init();
		int rc = attrib_run(&p, x, &t, &o, &d, &e);
		setenv("NUNATAK_FAIL_ALLOC", "0", 1);
		alloc_fault_init();
		CHECK(rc == 0 || rc < 0);
		if (rc == 0) { /* complete: the same answer as without faults */
			completed++;
			CHECK_NEAR(total_value(&p), before, 1e-9);
			int64_t h = find_hotspot(&p, "main");
			CHECK(h >= 0);
			const struct extract *ex = find_extract(&p, h, "/tmp/nunatak-capture-clang/workload.c");
			CHECK(ex && !ex->text && ex->reason && strstr(ex->reason, "MD5 mismatch"));
			CHECK_INT(d.n, 0);
		}
		degradations__release(&d);
		attrib_tools__release(&t);
		pivot__release(&p);
		executor__free(x);
	}
	CHECK(completed > 0);
	unlink(src);
	rmdir(dir);
}

static const struct test_case cases[] = {
	{"oom", "allocation failures: an error or a complete result", t_oom},
	{"no_source", "--no-source: frames kept, no extract", t_no_source},
	{"debug", "workload-c-debug: main at line level, reduce inlined, extracts", t_debug},
	{"clang_stale", "workload-c-clang: MD5 staleness withholds the text", t_clang_stale},
	{"no_llvm", "workload-c: no symbolizer, Hotspots unresolved, llvm-missing", t_no_llvm},
};
TEST_MAIN(cases)
