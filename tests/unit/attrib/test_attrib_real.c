// SPDX-License-Identifier: BSD-3-Clause
/* Attribution with the real tools of this machine (llvm-symbolizer, GNU
 * addr2line) on fixtures built with gcc at test time: a hot helper inlined
 * into its caller (-O2 -g), a function from an object without -g, a shared
 * library stripped to .dynsym, an address in a gap between functions and a
 * module that cannot be read. Each must land at its own resolution level. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/elf.h"
#include "tools/locate.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "elf_offset.h"
#include "model/model.h"

#define FIX TEST_SOURCE_DIR "/tests/fixtures/attrib/"

static char dir[64];

static int run(struct executor *x, const char *const *argv)
{
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
	struct exec_result res = {0};
	struct err e = {0};
	if (executor__run(x, &req, &res, &e))
		return -1;
	if (res.exit_code)
		fprintf(stderr, "%s: %s\n", argv[0], res.err ? res.err : "");
	int rc = res.exit_code;
	exec_result__release(&res);
	return rc;
}

/* Builds hot (hot.c -O2 -g + nodebug.c without -g + libw.so stripped). */
static bool no_pie; /* link a non-PIE executable: file offsets != vaddrs */

static void build(struct executor *x)
{
	strcpy(dir, "/tmp/nunatak-attrib-real-XXXXXX");
	CHECK(mkdtemp(dir));
	char hot_o[128], nd_o[128], lib[128], exe[128], rpath[160];
	snprintf(hot_o, sizeof(hot_o), "%s/hot.o", dir);
	snprintf(nd_o, sizeof(nd_o), "%s/nodebug.o", dir);
	snprintf(lib, sizeof(lib), "%s/libw.so", dir);
	snprintf(exe, sizeof(exe), "%s/hot", dir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", dir);
	const char *pic = no_pie ? "-fno-pie" : "-fpie";
	const char *c1[] = {"gcc", "-O2", "-g", pic, "-c", FIX "hot.c", "-o", hot_o, NULL};
	const char *c2[] = {"gcc", "-O2", "-g0", pic, "-c", FIX "nodebug.c", "-o", nd_o, NULL};
	const char *c3[] = {"gcc", "-O2", "-g", "-shared", "-fPIC", FIX "lib.c", "-o", lib, NULL};
	const char *c4[] = {"strip", "--strip-all", lib, NULL};
	const char *c5[] = {"gcc", no_pie ? "-no-pie" : "-pie", hot_o, nd_o, lib, rpath, "-o", exe, NULL};
	if (run(x, c1) == EXEC_NOT_FOUND)
		SKIP("gcc not installed");
	CHECK_INT(run(x, c2), 0);
	CHECK_INT(run(x, c3), 0);
	CHECK_INT(run(x, c4), 0);
	CHECK_INT(run(x, c5), 0);
}

static const struct elf_func *func(const struct elf_info *elf, const char *name)
{
	for (size_t i = 0; i < elf->nr_funcs; i++)
		if (strcmp(elf->funcs[i].name, name) == 0)
			return &elf->funcs[i];
	CHECK(!"function not in the symbol table");
	return NULL;
}

static void add(struct pivot *p, const char *module, uint64_t off, double value)
{
	struct hotspot h = {.module = (char *)module, .level = RESOLUTION_UNRESOLVED, .offset = off,
			    .has_offset = true};
	struct measurement m = {.hotspot = pivot__add_hotspot(p, &h), .locus = 0,
				.counter = (char *)"task-clock", .value = value, .unit = (char *)"ns",
				.quality = QUALITY_MEASURED, .sample_count = 1, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

static int64_t named(const struct pivot *p, const char *name)
{
	for (size_t i = 0; i < p->nr_hotspots; i++)
		if (p->hotspots[i].name && !strcmp(p->hotspots[i].name, name))
			return (int64_t)i;
	return -1;
}

static void check_levels(const struct attrib_tools *t)
{
	struct executor *x = executor__new_real();
	char exe[128], lib[128];
	snprintf(exe, sizeof(exe), "%s/hot", dir);
	snprintf(lib, sizeof(lib), "%s/libw.so", dir);
	struct elf_info he, le;
	struct err e = {0};
	CHECK_INT(elf_info__read(&he, exe, ELF_READ_SYMBOLS, &e), 0);
	CHECK_INT(elf_info__read(&le, lib, ELF_READ_SYMBOLS, &e), 0);
	CHECK(he.has_symtab && he.has_debug_info && he.build_id);
	CHECK(!le.has_symtab && le.has_dynsym && !le.has_debug_info);
	struct pivot p;
	pivot__init(&p);
	CHECK(pivot__intern_locus(&p, "n", -1, 1) == 0);
	const struct elf_func *r = func(&he, "reduce"), *nd = func(&he, "nodebug_work");
	for (uint64_t a = r->start; a < r->start + r->size; a++)
		add(&p, exe, file_offset(&he, a), 1);
	add(&p, exe, file_offset(&he, nd->start + 4), 10);
	add(&p, lib, file_offset(&le, func(&le, "lib_work")->start + 4), 100);
	uint64_t gap = 0; /* the first gap between two sized functions */
	for (size_t i = 0; i + 1 < he.nr_funcs && !gap; i++)
		if (he.funcs[i].start + he.funcs[i].size < he.funcs[i + 1].start)
			gap = he.funcs[i].start + he.funcs[i].size;
	CHECK(gap);
	add(&p, exe, file_offset(&he, gap), 1000);
	/* _init starts the executable segment with st_size 0: LLVM 14 and addr2line
	 * both name _init+4 "_init"; a zero-size symbol has no extent */
	uint64_t init = 0;
	for (size_t i = 0; i < he.nr_loads && !init; i++)
		if (he.loads[i].flags & 1)
			init = he.loads[i].vaddr + 4;
	CHECK(init && !elf_info__func_at(&he, init));
	add(&p, exe, file_offset(&he, init), 1000);
	add(&p, "/nonexistent/libgone.so", 0x1234, 10000);
	add(&p, "/nonexistent/libgone.so", 0x1238, 10000);

	struct degradations d = {0};
	struct attrib_opts o = {.root = dir};
	CHECK_INT(attrib_run(&p, x, t, &o, &d, &e), 0);
	double total = 0;
	for (size_t i = 0; i < p.nr_measurements; i++)
		total += p.measurements[i].value;
	CHECK_NEAR(total, (double)r->size + 10 + 100 + 2000 + 20000, 1e-9);

	int64_t hr = named(&p, "reduce"), hn = named(&p, "nodebug_work"), hl = named(&p, "lib_work");
	CHECK(hr >= 0 && hn >= 0 && hl >= 0);
	CHECK_INT(p.hotspots[hr].level, RESOLUTION_LINE);
	CHECK_INT(p.hotspots[hr].offset, r->start);
	CHECK_INT(p.hotspots[hn].level, RESOLUTION_FUNCTION);
	CHECK_INT(p.hotspots[hl].level, RESOLUTION_SYMBOL);
	bool inlined = false; /* axpy_element seen inlined inside reduce */
	for (size_t i = 0; i < p.nr_frames; i++)
		if (p.frames[i].hotspot == hr && p.frames[i].depth == 0 &&
		    !strcmp(p.frames[i].function, "axpy_element"))
			inlined = true;
	CHECK(inlined);
	int unresolved = 0; /* the gap, _init+4 and the two addresses of the missing module */
	for (size_t i = 0; i < p.nr_hotspots; i++)
		if (p.hotspots[i].level == RESOLUTION_UNRESOLVED) {
			unresolved++;
			CHECK(!p.hotspots[i].name);
		}
	CHECK_INT(unresolved, 4);
	CHECK_INT(p.nr_hotspots, 7);
	CHECK(named(&p, "_init") < 0);
	int gone = 0, missing = 0; /* the unreadable module, said once */
	for (size_t i = 0; i < d.n; i++) {
		if (!strcmp(d.v[i].name, "module-unreadable")) {
			gone++;
			CHECK(strstr(d.v[i].message, "/nonexistent/libgone.so"));
		}
		missing += !strcmp(d.v[i].name, "llvm-missing");
	}
	CHECK_INT(gone, 1);
	CHECK_INT(missing, t->tool == ATTRIB_TOOL_ADDR2LINE); /* addr2line stands in */
	CHECK_INT(d.n, gone + missing);
	/* the extract of reduce reads hot.c where DWARF recorded it */
	bool extract = false;
	for (size_t i = 0; i < p.nr_extracts; i++)
		if (p.extracts[i].hotspot == hr && strstr(p.extracts[i].file, "hot.c")) {
			CHECK(p.extracts[i].text && strstr(p.extracts[i].text, "reduce("));
			extract = true;
		}
	CHECK(extract);
	degradations__release(&d);
	pivot__release(&p);
	elf_info__release(&he);
	elf_info__release(&le);
	executor__free(x);
}

static void cleanup(void)
{
	static const char *const files[] = {"hot.o", "nodebug.o", "libw.so", "hot"};
	char path[128];
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void t_llvm(void)
{
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	if (t.tool != ATTRIB_TOOL_LLVM)
		SKIP("no llvm-symbolizer on this machine");
	build(x);
	executor__free(x);
	check_levels(&t);
	attrib_tools__release(&t);
	cleanup();
}

/* A non-PIE executable: its samples' file offsets (0x1xxx) differ from the
 * link-time addresses (0x401xxx) the symbolizer wants; the PT_LOAD converts. */
static void t_nopie(void)
{
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	if (t.tool != ATTRIB_TOOL_LLVM)
		SKIP("no llvm-symbolizer on this machine");
	no_pie = true;
	build(x);
	executor__free(x);
	char exe[128];
	snprintf(exe, sizeof(exe), "%s/hot", dir);
	struct elf_info he;
	CHECK_INT(elf_info__read(&he, exe, 0, &e), 0);
	CHECK_INT(he.type, ELF_TYPE_EXEC);
	elf_info__release(&he);
	check_levels(&t);
	attrib_tools__release(&t);
	cleanup();
}

/* A module rebuilt since the run (its build-id is not the recorded one) is not
 * symbolized: its code is not the code that was sampled. */
static void t_rebuilt(void)
{
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	if (t.tool != ATTRIB_TOOL_LLVM)
		SKIP("no llvm-symbolizer on this machine");
	no_pie = false;
	build(x);
	char exe[128];
	snprintf(exe, sizeof(exe), "%s/hot", dir);
	struct elf_info he;
	CHECK_INT(elf_info__read(&he, exe, ELF_READ_SYMBOLS, &e), 0);
	struct pivot p;
	pivot__init(&p);
	CHECK(pivot__intern_locus(&p, "n", -1, 1) == 0);
	add(&p, exe, file_offset(&he, func(&he, "reduce")->start), 5);
	xfree(p.hotspots[0].build_id);
	p.hotspots[0].build_id = xstrdup("0123456789abcdef0123456789abcdef01234567");
	struct degradations d = {0};
	CHECK_INT(attrib_run(&p, x, &t, NULL, &d, &e), 0);
	CHECK_INT(p.hotspots[0].level, RESOLUTION_UNRESOLVED);
	CHECK_INT(d.n, 1);
	CHECK_STR(d.v[0].name, "module-unreadable");
	CHECK(strstr(d.v[0].message, "build-id"));
	degradations__release(&d);
	pivot__release(&p);
	elf_info__release(&he);
	attrib_tools__release(&t);
	executor__free(x);
	cleanup();
}

static void t_addr2line(void)
{
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	/* a configured symbolizer that does not run: addr2line stands in */
	CHECK_INT(attrib_locate(x, "/nonexistent/llvm-symbolizer", NULL, &t, &e), 0);
	if (t.tool == ATTRIB_TOOL_LLVM) { /* LLVM on PATH wins: force the fallback */
		attrib_tools__release(&t);
		t = (struct attrib_tools){.tool = ATTRIB_TOOL_ADDR2LINE, .path = xstrdup("addr2line")};
	}
	if (t.tool != ATTRIB_TOOL_ADDR2LINE)
		SKIP("no GNU addr2line on this machine");
	build(x);
	executor__free(x);
	check_levels(&t);
	attrib_tools__release(&t);
	cleanup();
}

static void t_locate(void)
{
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	if (t.tool != ATTRIB_TOOL_LLVM)
		SKIP("no llvm-symbolizer on this machine");
	CHECK(t.major >= 10);
	CHECK(strstr(t.readelf, "llvm-readelf"));
	CHECK(strstr(t.dwarfdump, "llvm-dwarfdump"));
	CHECK(t.major >= ATTRIB_LLVM_MINIMUM ? t.cost == NULL : t.cost != NULL);
	const char *name;
	char *msg, *remedy;
	CHECK_INT(attrib_tools__degradation(&t, &name, &msg, &remedy), 0);
	attrib_tools__release(&t);
	executor__free(x);
	char *s = attrib_sibling("/usr/bin/llvm-symbolizer-14", "llvm-readelf");
	CHECK_STR(s, "/usr/bin/llvm-readelf-14");
	xfree(s);
	s = attrib_sibling("llvm-symbolizer", "llvm-dwarfdump");
	CHECK_STR(s, "llvm-dwarfdump");
	xfree(s);
}

static const struct test_case cases[] = {
	{"locate", "llvm-symbolizer found by invoking it, siblings and cost", t_locate},
	{"llvm", "line / function / symbol / unresolved with llvm-symbolizer", t_llvm},
	{"addr2line", "the same levels with the GNU addr2line fallback", t_addr2line},
	{"nopie", "a non-PIE executable: file offsets converted to vaddrs", t_nopie},
	{"rebuilt", "a module whose build-id changed is not symbolized", t_rebuilt},
};
TEST_MAIN(cases)
