// SPDX-License-Identifier: BSD-3-Clause
/* Symbol keys (attrib/elf.h elf_info__symbol_key): a module without debug
 * information is symbolized at the start of the symbol each address falls
 * in, so that a warm Run finds every function it saw before in the
 * per-line cache. Checked against the real llvm-symbolizer(s) of this
 * machine on a program built here (tests/fixtures/attrib/symbol_keys.c
 * and the hand-placed symbols of symbol_layout.S): the answer at the key
 * is LLVM's answer at the address; a warm second attribution over other
 * addresses of the same functions starts no symbolizer and no readelf; a
 * module with debug information (in the file or a separate one), a
 * recording and debuginfod keep the sampled addresses. */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "self_libc.h"
#include "elf_offset.h"
#include "model/model.h"
#include "tools/locate.h"
#include "tools/symbolizer_parse.h"
#define TMPDIR_TAG "symkeys"
#include "tmpdir.h"

#define FIX TEST_SOURCE_DIR "/tests/fixtures/attrib/"

static const char *const no_debuginfod[] = {"DEBUGINFOD_URLS", NULL};

static int run_cmd(struct executor *x, const char *const *argv)
{
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
	struct exec_result res = {0};
	struct err e = {0};
	CHECK_INT(executor__run(x, &req, &res, &e), 0);
	if (res.exit_code)
		fprintf(stderr, "%s: %s\n", argv[0], res.err ? res.err : "");
	int rc = res.exit_code;
	exec_result__release(&res);
	return rc;
}

/* The fixtures, in d: keys (no -g, .symtab), libkeys.so (stripped to
 * .dynsym), keys_g (-g), keys_dl (debug info in keys_dl.debug beside it,
 * named by .gnu_debuglink). x86-64 only: the layout is x86-64 assembly. */
static char *build(void)
{
#if !defined(__x86_64__)
	SKIP("the hand-placed symbols are x86-64 assembly");
#endif
	struct executor *x = executor__new_real();
	char *d = tmpdir();
	char *exe = xasprintf("%s/keys", d), *lib = xasprintf("%s/libkeys.so", d);
	char *exe_g = xasprintf("%s/keys_g", d), *exe_dl = xasprintf("%s/keys_dl", d);
	char *dbg = xasprintf("%s/keys_dl.debug", d), *link = xasprintf("--add-gnu-debuglink=%s", dbg);
	const char *c1[] = {"gcc", "-O2", "-g0", FIX "symbol_keys.c", FIX "symbol_layout.S", "-o", exe, NULL};
	if (run_cmd(x, c1) == EXEC_NOT_FOUND)
		SKIP("gcc not installed");
	const char *c2[] = {"gcc", "-O2", "-g0", "-shared", "-fPIC", FIX "symbol_keys.c",
			    FIX "symbol_layout.S", "-o", lib, NULL};
	const char *c3[] = {"strip", "--strip-all", lib, NULL};
	const char *c4[] = {"gcc", "-O2", "-g", FIX "symbol_keys.c", FIX "symbol_layout.S", "-o", exe_g, NULL};
	const char *c5[] = {"objcopy", "--only-keep-debug", exe_g, dbg, NULL};
	const char *c6[] = {"objcopy", "--strip-debug", link, exe_g, exe_dl, NULL};
	CHECK_INT(run_cmd(x, c2), 0);
	if (run_cmd(x, c3) == EXEC_NOT_FOUND)
		SKIP("binutils (strip, objcopy) not installed");
	CHECK_INT(run_cmd(x, c4), 0);
	CHECK_INT(run_cmd(x, c5), 0);
	CHECK_INT(run_cmd(x, c6), 0);
	xfree(exe), xfree(lib), xfree(exe_g), xfree(exe_dl), xfree(dbg), xfree(link);
	executor__free(x);
	return d;
}

static struct elf_info read_elf(const char *d, const char *name)
{
	char *path = xasprintf("%s/%s", d, name);
	struct elf_info info;
	struct err e = {0};
	CHECK_INT(elf_info__read(&info, path, ELF_READ_SYMBOLS | ELF_READ_STARTS, &e), 0);
	xfree(path);
	return info;
}

/* The start of a sized function (of aliases, the reader keeps one name:
 * "a|b" finds either). */
static uint64_t sym(const struct elf_info *elf, const char *name)
{
	const char *bar = strchr(name, '|');
	for (size_t i = 0; i < elf->nr_funcs; i++)
		if (!strcmp(elf->funcs[i].name, name) || (bar && (!strcmp(elf->funcs[i].name, bar + 1) ||
		    !strncmp(elf->funcs[i].name, name, (size_t)(bar - name)))))
			return elf->funcs[i].start;
	fprintf(stderr, "%s: not among the sized functions\n", name);
	CHECK(!"symbol missing");
	return 0;
}

/* The symbolizers to hold the keys against: the one on PATH and every
 * /usr/lib/llvm-N install. */
static size_t symbolizers(char **out, size_t cap)
{
	size_t n = 0;
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	if (t.tool == ATTRIB_TOOL_LLVM)
		out[n++] = xstrdup(t.path);
	attrib_tools__release(&t);
	executor__free(x);
	glob_t g;
	if (glob("/usr/lib/llvm-*/bin/llvm-symbolizer", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && n < cap; i++)
			if (access(g.gl_pathv[i], X_OK) == 0)
				out[n++] = xstrdup(g.gl_pathv[i]);
		globfree(&g);
	}
	return n;
}

/* llvm-symbolizer's JSON lines for addrs, each without its "Address". */
static char **answers(const char *tool, const char *module, const uint64_t *addrs, size_t n)
{
	char *in = xcalloc(n * 20 + 1, 1), *obj = xasprintf("--obj=%s", module);
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(in + len, "0x%" PRIx64 "\n", addrs[i]);
	const char *argv[] = {tool, "--output-style=JSON", obj, NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				   .stdin_data = in, .stdin_len = len, .env_unset = no_debuginfod};
	struct exec_result res = {0};
	struct err e = {0};
	struct executor *x = executor__new_real();
	CHECK_INT(executor__run(x, &req, &res, &e), 0);
	CHECK_INT(res.exit_code, 0);
	char **v = xcalloc(n, sizeof(*v));
	char *s = res.out;
	for (size_t i = 0; i < n; i++) {
		char *nl = strchr(s, '\n');
		CHECK(nl);
		*nl = '\0';
		char *rest = strstr(s, "\"ModuleName\""); /* after "Address" */
		CHECK(rest && !strncmp(s, "{\"Address\":\"0x", 14));
		v[i] = xstrdup(rest);
		s = nl + 1;
	}
	exec_result__release(&res);
	executor__free(x);
	xfree(in), xfree(obj);
	return v;
}

/* Every address of m's executable segments: LLVM's answer at its key is its
 * answer at the address, for each symbolizer. Returns how many had a key. */
static size_t hold_keys(char **tools, size_t nt, const char *module, const struct elf_info *elf)
{
	size_t n = 0, cap = 0, keyed = 0;
	uint64_t *a = NULL;
	for (size_t s = 0; s < elf->nr_loads; s++) {
		const struct elf_segment *g = &elf->loads[s];
		for (uint64_t v = g->vaddr; (g->flags & 1) && v < g->vaddr + g->filesz; v++) {
			CHECK(!xgrow((void **)&a, &cap, n + 1, sizeof(*a)));
			a[n++] = v;
		}
	}
	CHECK(n > 0 && n < 100000);
	uint64_t *k = xcalloc(n, sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		k[i] = a[i];
		keyed += elf_info__symbol_key(elf, a[i], &k[i]);
	}
	for (size_t t = 0; t < nt; t++) {
		char **ra = answers(tools[t], module, a, n), **rk = answers(tools[t], module, k, n);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(ra[i], rk[i]))
				fprintf(stderr, "%s %s: 0x%" PRIx64 " answers %s\n  its key 0x%" PRIx64
					" answers %s\n", tools[t], module, a[i], ra[i], k[i], rk[i]);
			CHECK(!strcmp(ra[i], rk[i]));
			xfree(ra[i]), xfree(rk[i]);
		}
		xfree(ra), xfree(rk);
	}
	xfree(a), xfree(k);
	return keyed;
}

static void expect_key(const struct elf_info *elf, uint64_t vaddr, bool has, uint64_t key)
{
	uint64_t k = 0;
	bool got = elf_info__symbol_key(elf, vaddr, &k);
	if (got != has || (has && k != key))
		fprintf(stderr, "0x%" PRIx64 ": key %d 0x%" PRIx64 ", expected %d 0x%" PRIx64 "\n", vaddr,
			got, k, has, key);
	CHECK(got == has && (!has || k == key));
}

static void t_llvm_choice(void)
{
	char *d = build();
	char *tools[8];
	size_t nt = symbolizers(tools, 8);
	if (!nt)
		SKIP("no llvm-symbolizer on this machine");
	struct elf_info e = read_elf(d, "keys");
	CHECK(e.has_symtab && !e.has_debug_info && !e.has_debug_sections);
	/* the cases LLVM decides, and the keys that say so */
	uint64_t outer = sym(&e, "lay_outer"), inner = sym(&e, "lay_inner");
	expect_key(&e, outer + 3, true, outer);
	expect_key(&e, inner + 5, true, inner);
	expect_key(&e, inner + 8, true, inner + 8);  /* inside outer, after inner: no name */
	expect_key(&e, outer + 63, true, inner + 8);
	expect_key(&e, sym(&e, "lay_adj_b"), true, sym(&e, "lay_adj_b"));
	expect_key(&e, sym(&e, "lay_adj_b") - 1, true, sym(&e, "lay_adj_a"));
	expect_key(&e, sym(&e, "lay_adj_b") + 20, true, sym(&e, "lay_adj_b") + 16); /* the gap */
	uint64_t alias = sym(&e, "lay_alias_one|lay_alias_two");
	expect_key(&e, alias + 31, true, alias);
	uint64_t wide = sym(&e, "lay_wide");
	expect_key(&e, wide + 15, true, wide);
	expect_key(&e, wide + 16, false, 0); /* the aliases disagree: kept */
	/* after lay_wide: lay_nosize (FUNC, no size), lay_label (NOTYPE), the
	 * ifunc's implementation, the ifunc, lay_datum (OBJECT) */
	uint64_t nosize = 0, label = 0, datum = 0;
	for (size_t i = 0; i < e.nr_starts; i++) {
		const struct elf_start *st = &e.starts[i];
		if (st->start <= wide || st->plain)
			continue;
		if (st->max_size == 0 && !nosize)
			nosize = st->start;
		else if (st->max_size == 0 && !label)
			label = st->start;
		else if (st->max_size == 16 && !datum)
			datum = st->start;
	}
	CHECK(nosize > wide && label == nosize + 16 && datum > label);
	expect_key(&e, nosize + 3, false, 0);
	expect_key(&e, label + 3, false, 0);
	expect_key(&e, datum + 3, false, 0);
	expect_key(&e, sym(&e, "lay_ifunc") + 9, true, sym(&e, "lay_ifunc"));
	expect_key(&e, sym(&e, "lay_last") + 15, true, sym(&e, "lay_last"));
	uint64_t cold = sym(&e, "keys_work.cold"), work = sym(&e, "keys_work");
	expect_key(&e, cold + 10, true, cold);
	expect_key(&e, work + 10, true, work);
	/* and LLVM agrees on every address of the program and of the library
	 * (.dynsym only); most have a key */
	char *exe = xasprintf("%s/keys", d), *lib = xasprintf("%s/libkeys.so", d);
	size_t keyed = hold_keys(tools, nt, exe, &e);
	elf_info__release(&e);
	e = read_elf(d, "libkeys.so");
	CHECK(!e.has_symtab && e.has_dynsym && e.nr_starts > 0);
	size_t lib_keyed = hold_keys(tools, nt, lib, &e);
	fprintf(stderr, "%zu + %zu addresses keyed, %zu symbolizer(s)\n", keyed, lib_keyed, nt);
	CHECK(keyed > 400 && lib_keyed > 300);
	elf_info__release(&e);
	xfree(exe), xfree(lib);
	for (size_t t = 0; t < nt; t++)
		xfree(tools[t]);
	xfree(d);
	done();
}

/* An executor between attribution and the real one: counts the tools it is
 * asked to run and keeps the addresses asked of llvm-symbolizer; never lets
 * the symbolizer reach debuginfod (the request says whether it would). */
struct counter {
	struct executor *inner;
	int symbolizers, readelfs;
	uint64_t asked[256];
	size_t nr_asked;
	bool debuginfod_allowed; /* some request kept DEBUGINFOD_URLS */
};

static void count(struct counter *c, const struct exec_request *rq)
{
	const char *base = strrchr(rq->argv[0], '/');
	base = base ? base + 1 : rq->argv[0];
	c->readelfs += strstr(base, "llvm-readelf") != NULL;
	if (!strstr(base, "llvm-symbolizer"))
		return;
	c->symbolizers++;
	if (!rq->env_unset || !rq->env_unset[0])
		c->debuginfod_allowed = true;
	/* stdin: stdin_len bytes, "0x…" lines (after a "module" prefix when
	 * merged), not NUL-terminated */
	char *in = xstrndup(rq->stdin_data ? rq->stdin_data : "", rq->stdin_data ? rq->stdin_len : 0);
	CHECK(in);
	for (char *p = in; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		char *sp = strrchr(p, ' '), *hex = sp ? sp + 1 : p; /* the last word */
		if (!strncmp(hex, "0x", 2) && c->nr_asked < 256)
			c->asked[c->nr_asked++] = strtoull(hex, NULL, 16);
		p = nl ? nl + 1 : p + strlen(p);
	}
	xfree(in);
	for (size_t i = 1; rq->argv[i]; i++)
		if (!strncmp(rq->argv[i], "0x", 2) && c->nr_asked < 256)
			c->asked[c->nr_asked++] = strtoull(rq->argv[i], NULL, 16);
}

static int counter_batch(struct executor *x, const struct exec_request *reqs, size_t n,
			 struct exec_result *res, struct err *e)
{
	struct counter *c = x->priv;
	struct exec_request *v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		count(c, &reqs[i]);
		v[i] = reqs[i];
		v[i].env_unset = no_debuginfod;
	}
	int rc = executor__run_batch(c->inner, v, n, res, e);
	xfree(v);
	return rc;
}

static int counter_run(struct executor *x, const struct exec_request *req, struct exec_result *res,
		       struct err *e)
{
	return counter_batch(x, req, 1, res, e);
}

static void counter_free(struct executor *x)
{
	(void)x; /* the test owns it */
}

static const struct executor_ops counter_ops = {.run = counter_run, .free = counter_free,
						.run_batch = counter_batch};

static struct attrib_tools llvm_tools(void)
{
	struct executor *x = executor__new_real();
	struct attrib_tools t;
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &t, &e), 0);
	executor__free(x);
	if (t.tool != ATTRIB_TOOL_LLVM || !t.readelf)
		SKIP("no llvm-symbolizer on this machine");
	return t;
}

static void add(struct pivot *p, const char *module, uint64_t off)
{
	struct hotspot h = {.module = (char *)module, .level = RESOLUTION_UNRESOLVED, .offset = off,
			    .has_offset = true};
	struct measurement m = {.hotspot = pivot__add_hotspot(p, &h), .locus = 0,
				.counter = (char *)"task-clock", .value = 1, .unit = (char *)"ns",
				.quality = QUALITY_MEASURED, .sample_count = 1, .coverage = -1};
	CHECK(pivot__add_measurement(p, &m) >= 0);
}

/* Attribution of `at` (vaddrs, one Hotspot each) in module d/name through
 * x; the Hotspots' names sorted and joined into names. */
static void attribute(struct executor *x, const struct attrib_tools *t, const struct attrib_opts *o,
		      const char *d, const char *name, const uint64_t *at, size_t n, char *names,
		      size_t cap)
{
	char *path = xasprintf("%s/%s", d, name);
	struct elf_info elf = read_elf(d, name);
	struct pivot p;
	pivot__init(&p);
	CHECK(pivot__intern_locus(&p, "n", -1, 1) == 0);
	for (size_t i = 0; i < n; i++)
		add(&p, path, file_offset(&elf, at[i]));
	struct degradations dg = {0};
	struct err e = {0};
	CHECK_INT(attrib_run(&p, x, t, o, &dg, &e), 0);
	CHECK_INT(dg.n, 0);
	names[0] = '\0';
	for (size_t i = 0; i < p.nr_hotspots; i++) {
		CHECK(p.hotspots[i].name);
		CHECK(strlen(names) + strlen(p.hotspots[i].name) + 2 < cap);
		strcat(strcat(names, p.hotspots[i].name), ";");
	}
	degradations__release(&dg);
	pivot__release(&p);
	elf_info__release(&elf);
	xfree(path);
}

/* Two Runs of a program without debug information, sampled at other
 * addresses of the same functions: the second starts no process. */
static void t_warm_run(void)
{
	char *d = build();
	struct attrib_tools t = llvm_tools();
	struct executor *real = executor__new_real();
	struct counter c = {.inner = real};
	struct executor cx = {.ops = &counter_ops, .priv = &c};
	char *cache = tmpdir();
	struct executor *x = executor__new_caching_take(&cx, cache);
	CHECK(x != &cx);
	struct elf_info lib = read_elf(d, "libkeys.so"), exe = read_elf(d, "keys");
	uint64_t w = sym(&lib, "keys_work"), o = sym(&lib, "keys_other");
	uint64_t a = sym(&exe, "lay_adj_a"), cold = sym(&exe, "keys_work.cold");
	uint64_t run1[] = {w + 4, o + 8}, run2[] = {w + 20, o + 30, w + 33};
	uint64_t erun1[] = {a + 1, cold + 2}, erun2[] = {a + 9, cold + 30};
	struct attrib_opts opts = {.debuginfod_disabled = true};
	char n1[512], n2[512], e1[512], e2[512];
	attribute(x, &t, &opts, d, "libkeys.so", run1, 2, n1, sizeof(n1));
	attribute(x, &t, &opts, d, "keys", erun1, 2, e1, sizeof(e1));
	CHECK(c.symbolizers >= 1);
	CHECK(strstr(n1, "keys_work") && strstr(n1, "keys_other") && strstr(e1, "lay_adj_a") &&
	      strstr(e1, "keys_work.cold"));
	c.symbolizers = 0;
	attribute(x, &t, &opts, d, "libkeys.so", run2, 3, n2, sizeof(n2));
	attribute(x, &t, &opts, d, "keys", erun2, 2, e2, sizeof(e2));
	CHECK_INT(c.symbolizers, 0);
	CHECK_STR(n2, n1);
	CHECK_STR(e2, e1);
	/* the library's names are symbols (.dynsym only), known without readelf */
	CHECK_INT(c.readelfs, 0);
	executor__free(x);
	executor__free(real);
	elf_info__release(&lib), elf_info__release(&exe);
	attrib_tools__release(&t);
	xfree(d), xfree(cache);
	done();
}

/* Whether attribution of module d/name asked the symbolizer for exactly
 * the addresses at[0..n) (sorted), after running it with o. */
static void asked(const struct attrib_opts *o, const char *d, const char *name, const uint64_t *at,
		  size_t n, int readelfs)
{
	struct attrib_tools t = llvm_tools();
	struct executor *real = executor__new_real();
	struct counter c = {.inner = real};
	struct executor cx = {.ops = &counter_ops, .priv = &c};
	char names[512];
	attribute(&cx, &t, o, d, name, at, n, names, sizeof(names));
	CHECK_INT(c.symbolizers, 1);
	CHECK_INT(c.nr_asked, n);
	for (size_t i = 0; i < n; i++)
		CHECK_INT(c.asked[i], at[i]);
	CHECK_INT(c.readelfs, readelfs);
	executor__free(real);
	attrib_tools__release(&t);
}

/* A module with debug information keeps each address: its lines differ. */
static void t_debug_info(void)
{
	char *d = build();
	struct attrib_tools t = llvm_tools();
	for (int v = 0; v < 2; v++) { /* in the file; in keys_dl.debug beside it */
		const char *name = v ? "keys_dl" : "keys_g";
		struct elf_info elf = read_elf(d, name);
		CHECK(v ? !elf.has_debug_info && elf.debuglink : elf.has_debug_info);
		uint64_t w = sym(&elf, "keys_work");
		struct attrib_opts opts = {.debuginfod_disabled = true};
		uint64_t at[] = {w, w + 4, w + 24};
		asked(&opts, d, name, at, 3, 0);
		/* the lines are the symbolizer's for each address */
		char *path = xasprintf("%s/%s", d, name);
		struct pivot p;
		pivot__init(&p);
		CHECK(pivot__intern_locus(&p, "n", -1, 1) == 0);
		for (size_t i = 0; i < 3; i++)
			add(&p, path, file_offset(&elf, at[i]));
		struct executor *x = executor__new_real();
		struct degradations dg = {0};
		struct err e = {0};
		CHECK_INT(attrib_run(&p, x, &t, &opts, &dg, &e), 0);
		char **direct = answers(t.path, path, at, 3);
		int lines = 0;
		for (size_t i = 0; i < 3; i++) {
			int want = atoi(strstr(direct[i], "\"Line\":") + 7), got = -1;
			for (size_t f = 0; f < p.nr_frames; f++)
				if (p.frames[f].depth == 0 && p.frames[f].offset == file_offset(&elf, at[i]))
					got = p.frames[f].line;
			CHECK_INT(got, want);
			lines |= 1 << (want & 15);
			xfree(direct[i]);
		}
		CHECK(lines & (lines - 1)); /* at least two different lines */
		xfree(direct);
		degradations__release(&dg);
		pivot__release(&p);
		executor__free(x);
		xfree(path);
		elf_info__release(&elf);
	}
	attrib_tools__release(&t);
	xfree(d);
	done();
}

/* A recording keeps the sampled addresses (its replay serves them in
 * order) and asks readelf; debuginfod in play keeps them too. */
static void t_record_debuginfod(void)
{
	char *d = build();
	struct elf_info lib = read_elf(d, "libkeys.so");
	uint64_t w = sym(&lib, "keys_work");
	uint64_t at[] = {w + 4, w + 20}, key[] = {w};
	struct attrib_opts rec = {.debuginfod_disabled = true, .record = true};
	asked(&rec, d, "libkeys.so", at, 2, 1);
	CHECK(!setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9/", 1));
	struct attrib_opts plain = {0}, off = {.debuginfod_disabled = true};
	asked(&plain, d, "libkeys.so", at, 2, 0);
	asked(&off, d, "libkeys.so", key, 1, 0);
	CHECK(!unsetenv("DEBUGINFOD_URLS"));
	asked(&plain, d, "libkeys.so", key, 1, 0);
	elf_info__release(&lib);
	xfree(d);
	done();
}

/* What the ELF reader says of a module's sections is what `llvm-readelf -S`
 * says (attribution no longer asks readelf for a module it read): the
 * fixtures, this process's libc, and LAMMPS and Open MPI where installed. */
static void sections_agree(struct executor *x, const char *readelf, const char *path)
{
	const char *argv[] = {readelf, "-S", path, NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
	struct exec_result res = {0};
	struct err e = {0};
	CHECK_INT(executor__run(x, &req, &res, &e), 0);
	CHECK_INT(res.exit_code, 0);
	struct module_sections sec;
	CHECK_INT(readelf_sections__parse(res.out, res.out_len, &sec, &e), 0);
	struct elf_info info;
	CHECK_INT(elf_info__read(&info, path, ELF_READ_SYMBOLS | ELF_READ_STARTS, &e), 0);
	if (info.has_symtab != sec.symtab || info.has_dynsym != sec.dynsym ||
	    info.has_debug_info != sec.debug_info)
		fprintf(stderr, "%s: reader symtab %d dynsym %d debug_info %d, readelf %d %d %d\n", path,
			info.has_symtab, info.has_dynsym, info.has_debug_info, sec.symtab, sec.dynsym,
			sec.debug_info);
	CHECK(info.has_symtab == sec.symtab && info.has_dynsym == sec.dynsym &&
	      info.has_debug_info == sec.debug_info);
	elf_info__release(&info);
	exec_result__release(&res);
}

static void t_sections(void)
{
	char *d = build();
	struct attrib_tools t = llvm_tools();
	struct executor *x = executor__new_real();
	/* (not keys_dl.debug: a debug file's .dynsym is NOBITS, which readelf
	 * lists by name; no Run samples a debug file) */
	static const char *const fixtures[] = {"keys", "keys_g", "keys_dl", "libkeys.so"};
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		char *path = xasprintf("%s/%s", d, fixtures[i]);
		sections_agree(x, t.readelf, path);
		xfree(path);
	}
	char libc[4096];
	self_libc(libc, sizeof(libc));
	sections_agree(x, t.readelf, libc);
	static const char *const installed[] = {"/usr/bin/lmp", "/usr/lib/*/liblammps.so.0",
						"/usr/lib/*/libmpi.so.40"};
	for (size_t i = 0; i < sizeof(installed) / sizeof(*installed); i++) {
		glob_t g;
		if (glob(installed[i], 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			sections_agree(x, t.readelf, g.gl_pathv[k]);
		globfree(&g);
	}
	executor__free(x);
	attrib_tools__release(&t);
	xfree(d);
	done();
}

static const struct test_case cases[] = {
	{"llvm_choice", "the key of an address gets LLVM's answer for it, on every address", t_llvm_choice},
	{"warm_run", "a warm Run over other addresses of the same functions runs no tool", t_warm_run},
	{"debug_info", "debug information, in the file or beside it, keeps each address", t_debug_info},
	{"sections", "the ELF reader's .symtab/.dynsym/.debug_info are readelf's", t_sections},
	{"record_debuginfod", "a recording and debuginfod keep the sampled addresses", t_record_debuginfod},
};

TEST_MAIN(cases)
