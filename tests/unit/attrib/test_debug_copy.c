// SPDX-License-Identifier: BSD-3-Clause
/* Decompressed copies of separate debug files (attrib/debug_copy.h), on a
 * program built here with -g -gz=zlib whose debug information is moved to
 * a file named by .gnu_debuglink (tests/fixtures/attrib/debug_copy.c), so
 * nothing depends on libc6-dbg: the first Run leaves a marker only, the
 * second makes the copy with llvm-objcopy, the third hands it to
 * llvm-symbolizer; the answers (functions, inline frames, files, lines) are
 * the same with and without it and the per-line cache keeps its key; a
 * changed original is copied again; a planted, replaced, linked or
 * foreign-owned copy is never handed over. The MPI call sites' and the
 * OpenMP regions' symbolizer calls use the same copies on the same terms,
 * one Run's calls share them (one marker, one copy), and a failed copy is
 * tried again after a back-off. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "attrib/attrib.h"
#include "attrib/debug_copy.h"
#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "elf_offset.h"
#include "model/model.h"
#include "mpi/sites.h"
#include "regions/lines_symbolize.h"
#include "run/pipeline.h"
#include "run/stages.h"
#include "tools/locate.h"
#define TMPDIR_TAG "debugcopy"
#include "tmpdir.h"

#define FIX TEST_SOURCE_DIR "/tests/fixtures/attrib/"

static const char *const no_debuginfod[] = {"DEBUGINFOD_URLS", NULL};

static int run_cmd(const char *const *argv, char **out)
{
	struct executor *x = executor__new_real();
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				   .env_unset = no_debuginfod};
	struct exec_result res = {0};
	struct err e = {0};
	CHECK_INT(executor__run(x, &req, &res, &e), 0);
	if (res.exit_code && res.exit_code != EXEC_NOT_FOUND)
		fprintf(stderr, "%s: %s\n", argv[0], res.err ? res.err : "");
	int rc = res.exit_code;
	if (out)
		*out = xstrdup(res.out ? res.out : "");
	exec_result__release(&res);
	executor__free(x);
	return rc;
}

/* Whether readelf -SW says .debug_info of path is compressed (flag C). */
static bool compressed(const char *path)
{
	const char *argv[] = {"readelf", "-SW", path, NULL};
	char *out = NULL;
	CHECK_INT(run_cmd(argv, &out), 0);
	bool yes = false;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		if (!strstr(l, " .debug_info "))
			continue;
		char *tok[16];
		size_t n = 0;
		for (char *t = strtok(strchr(l, ']') + 1, " "); t && n < 16; t = strtok(NULL, " "))
			tok[n++] = t;
		/* name type address off size es flg lk inf al */
		yes = n == 10 && strchr(tok[6], 'C');
		break;
	}
	xfree(out);
	return yes;
}

/* Under d: full (-g -gz=zlib), prog (its debug information moved to
 * prog.debug, named by .gnu_debuglink) and the tools. */
struct fixture {
	char *d, *prog, *debug, *copies;
	struct attrib_tools t;
	struct elf_info elf;
	uint64_t at[4];
};

static void fixture_v(struct fixture *f, int variant)
{
	memset(f, 0, sizeof(*f));
	f->d = tmpdir();
	char *xdg = xasprintf("%s/xdg", f->d), *def = xasprintf("-DDC_VARIANT=%d", variant);
	if (!variant) /* the seal key: this case's own */
		CHECK(!setenv("XDG_CACHE_HOME", xdg, 1));
	CHECK(!unsetenv("LLVM_SYMBOLIZER_OPTS"));
	/* the MPI sites' and OpenMP regions' calls keep the environment's
	 * debuginfod, which rules out the copy of a file found by its link
	 * (this one): a machine that sets it (Debian's profile.d) is not ours */
	CHECK(!unsetenv("DEBUGINFOD_URLS"));
	xfree(xdg);
	struct executor *x = executor__new_real();
	struct err e = {0};
	CHECK_INT(attrib_locate(x, NULL, NULL, &f->t, &e), 0);
	executor__free(x);
	if (f->t.tool != ATTRIB_TOOL_LLVM)
		SKIP("no llvm-symbolizer on this machine");
	char *objcopy = attrib_sibling(f->t.path, "llvm-objcopy"), *found = NULL;
	if (exec_which(objcopy, &found) != 0)
		SKIP("no llvm-objcopy beside llvm-symbolizer: the copies are made with it");
	xfree(found), xfree(objcopy);
	char *full = xasprintf("%s/full", f->d), *link = NULL;
	f->prog = xasprintf("%s/prog", f->d);
	f->debug = xasprintf("%s/prog.debug", f->d);
	f->copies = xasprintf("%s/copies", f->d);
	link = xasprintf("--add-gnu-debuglink=%s", f->debug);
	const char *c1[] = {"gcc", "-O2", "-g", "-gz=zlib", "-Wl,--build-id", def,
			    FIX "debug_copy.c", "-o", full, NULL};
	int rc = run_cmd(c1, NULL);
	if (rc == EXEC_NOT_FOUND)
		SKIP("gcc not installed");
	if (rc)
		SKIP("gcc cannot compress debug sections here (-gz=zlib: zlib-less binutils)");
	const char *c2[] = {"objcopy", "--only-keep-debug", full, f->debug, NULL};
	const char *c3[] = {"objcopy", "--strip-debug", link, full, f->prog, NULL};
	if (run_cmd(c2, NULL) == EXEC_NOT_FOUND)
		SKIP("binutils (objcopy) not installed");
	CHECK_INT(run_cmd(c3, NULL), 0);
	if (!compressed(f->debug))
		SKIP("the toolchain left the debug sections uncompressed (-gz=zlib)");
	CHECK_INT(elf_info__read(&f->elf, f->prog, ELF_READ_SYMBOLS, &e), 0);
	CHECK(f->elf.build_id && f->elf.debuglink && !f->elf.has_debug_info);
	const struct elf_func *fn = NULL;
	for (size_t i = 0; i < f->elf.nr_funcs; i++)
		if (!strcmp(f->elf.funcs[i].name, "dc_outer"))
			fn = &f->elf.funcs[i];
	CHECK(fn && fn->size >= 8);
	for (size_t i = 0; i < 4; i++)
		f->at[i] = fn->start + fn->size * (2 * i + 1) / 8;
	xfree(full), xfree(link), xfree(def);
}

static void fixture(struct fixture *f)
{
	fixture_v(f, 0);
}

static void fixture_release(struct fixture *f)
{
	elf_info__release(&f->elf);
	attrib_tools__release(&f->t);
	xfree(f->d), xfree(f->prog), xfree(f->debug), xfree(f->copies);
}

/* Counts what attribution asks of the real executor. */
struct counter {
	struct executor *inner;
	const char *copies;
	int symbolizers, objcopies, with_copy, default_dir;
	bool fail_objcopy; /* each llvm-objcopy fails as on a full disk */
};

static const char *const failing_objcopy[] = {
	"sh", "-c", "echo \"llvm-objcopy: error: 'x': No space left on device\" >&2; exit 1",
	NULL};

static int counter_batch(struct executor *x, const struct exec_request *reqs, size_t n,
			 struct exec_result *res, struct err *e)
{
	struct counter *c = x->priv;
	struct exec_request *v = xcalloc(n ? n : 1, sizeof(*v));
	size_t cl = strlen(c->copies);
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(reqs[i].argv[0], '/');
		base = base ? base + 1 : reqs[i].argv[0];
		c->objcopies += strstr(base, "llvm-objcopy") != NULL;
		c->symbolizers += strstr(base, "llvm-symbolizer") != NULL;
		for (size_t a = 1; reqs[i].argv[a]; a++) {
			const char *s = reqs[i].argv[a], *p = "--debug-file-directory=";
			if (strncmp(s, p, strlen(p)))
				continue;
			s += strlen(p);
			c->with_copy += !strncmp(s, c->copies, cl) && s[cl] == '/';
			c->default_dir += !strcmp(s, "/usr/lib/debug");
		}
		v[i] = reqs[i];
		v[i].env_unset = no_debuginfod;
		if (c->fail_objcopy && strstr(base, "llvm-objcopy"))
			v[i].argv = failing_objcopy;
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
	(void)x;
}

static const struct executor_ops counter_ops = {.run = counter_run, .free = counter_free,
						.run_batch = counter_batch};

/* The same as a replay looks to attribution: a recording's meta.json. */
static const json_t *replay_meta(struct executor *x)
{
	static json_t *meta;
	(void)x;
	if (!meta)
		meta = json_object();
	return meta;
}

static const struct executor_ops counter_replay_ops = {
	.run = counter_run, .free = counter_free, .run_batch = counter_batch,
	.recorded_meta = replay_meta};

/* A Run's debug copies, its clock moved by shift seconds. */
static void run_begin(const struct fixture *f, struct debug_copies *dc, time_t shift)
{
	CHECK_INT(debug_copies__init(dc, f->copies, f->t.path), 0);
	CHECK(dc->dir != NULL);
	dc->now += shift;
}

/* What -v would say of the Run, one string; the copies released. */
static char *run_end(struct debug_copies *dc)
{
	const char *const *notes = debug_copies__notes(dc);
	size_t cap = 1, len = 0;
	char *all = xcalloc(cap, 1);
	for (size_t i = 0; notes && notes[i]; i++) {
		CHECK(!xgrow((void **)&all, &cap, len + strlen(notes[i]) + 2, 1));
		len += (size_t)sprintf(all + len, "%s\n", notes[i]);
	}
	debug_copies__release(dc);
	return all;
}

static void counter_reset(struct counter *c, const struct fixture *f, struct executor *real)
{
	*c = (struct counter){.inner = real, .copies = f->copies};
}

/* f's Hotspots attributed through a per-line cache in <d>/<cache> with the
 * Run's copies dc, counted in c; returns every frame of the answers
 * ("offset depth function file:line decl;"), malloc'd. */
static char *attribute_in(struct fixture *f, const char *cache, struct counter *c,
			  struct debug_copies *dc)
{
	struct executor cx = {.ops = &counter_ops, .priv = c};
	char *cdir = xasprintf("%s/%s", f->d, cache);
	struct executor *x = executor__new_caching_take(&cx, cdir);
	CHECK(x != &cx);
	struct pivot p;
	pivot__init(&p);
	CHECK(pivot__intern_locus(&p, "n", -1, 1) == 0);
	for (size_t i = 0; i < 4; i++) {
		struct hotspot h = {.module = f->prog, .level = RESOLUTION_UNRESOLVED,
				    .offset = file_offset(&f->elf, f->at[i]), .has_offset = true};
		struct measurement m = {.hotspot = pivot__add_hotspot(&p, &h), .locus = 0,
					.counter = (char *)"task-clock", .value = 1 + (double)i,
					.unit = (char *)"ns", .quality = QUALITY_MEASURED,
					.sample_count = 1, .coverage = -1};
		CHECK(pivot__add_measurement(&p, &m) >= 0);
	}
	struct attrib_opts o = {.debuginfod_disabled = true, .no_source = true,
				.debug_copies = dc};
	struct degradations dg = {0};
	struct err e = {0};
	CHECK_INT(attrib_run(&p, x, &f->t, &o, &dg, &e), 0);
	CHECK_INT(dg.n, 0);
	size_t cap = 64, len = 0;
	char *s = xcalloc(cap, 1);
	int inlined = 0;
	for (size_t i = 0; i < p.nr_frames; i++) {
		const struct frame *fr = &p.frames[i];
		char *one = xasprintf("%#jx %d %s %s:%d %d;", (uintmax_t)fr->offset, fr->depth,
				      fr->function, fr->file ? fr->file : "?", fr->line,
				      fr->declaration_line);
		CHECK(!xgrow((void **)&s, &cap, len + strlen(one) + 1, 1));
		strcpy(s + len, one);
		len += strlen(one);
		inlined += fr->depth > 0;
		xfree(one);
	}
	CHECK(inlined > 0 && strstr(s, "dc_inner") && strstr(s, "dc_outer") &&
	      strstr(s, "debug_copy.c:"));
	degradations__release(&dg);
	pivot__release(&p);
	executor__free(x);
	xfree(cdir);
	return s;
}

/* One attribution as a Run of its own (its own copies), counted in *c. */
static char *attribute(struct fixture *f, const char *cache, struct counter *c)
{
	struct executor *real = executor__new_real();
	struct debug_copies dc;
	counter_reset(c, f, real);
	run_begin(f, &dc, 0);
	char *s = attribute_in(f, cache, c, &dc);
	xfree(run_end(&dc));
	executor__free(real);
	return s;
}

/* A site's answer, "address function file:line;" */
static void site_text(char **s, size_t *cap, size_t *len, uint64_t a, const char *fn,
		      const char *file, int line)
{
	char *one = xasprintf("%#jx %s %s:%d;", (uintmax_t)a, fn ? fn : "?", file ? file : "?",
			      line);
	CHECK(!xgrow((void **)s, cap, *len + strlen(one) + 1, 1));
	strcpy(*s + *len, one);
	*len += strlen(one);
	xfree(one);
}

/* f's addresses as MPI call sites, named by mpi_sites_symbolize() through
 * a per-line cache in <d>/<cache> with the Run's copies dc. */
static bool as_replay; /* sites_in and ompt_in through counter_replay_ops */

static char *sites_in(struct fixture *f, const char *cache, struct counter *c,
		      struct debug_copies *dc)
{
	struct executor cx = {.ops = as_replay ? &counter_replay_ops : &counter_ops, .priv = c};
	char *cdir = xasprintf("%s/%s", f->d, cache);
	struct executor *x = executor__new_caching_take(&cx, cdir);
	struct pivot p;
	pivot__init(&p);
	for (size_t i = 0; i < 4; i++) {
		struct mpi_site m = {.locus = 0, .name = (char *)"MPI_Send", .module = f->prog,
				     .address = f->at[i], .calls = 1};
		CHECK(pivot__add_mpi_site(&p, &m) >= 0);
	}
	struct degradations dg = {0};
	struct err e = {0};
	struct lines_run run = {.copies = dc};
	CHECK_INT(mpi_sites_symbolize(&p, x, &f->t, &run, &dg, &e), 0);
	CHECK_INT(dg.n, 0);
	size_t cap = 64, len = 0;
	char *s = xcalloc(cap, 1);
	for (size_t i = 0; i < p.nr_mpi_sites; i++)
		site_text(&s, &cap, &len, p.mpi_sites[i].address, p.mpi_sites[i].function,
			  p.mpi_sites[i].file, p.mpi_sites[i].line);
	CHECK(strstr(s, "dc_inner") && strstr(s, "debug_copy.c:"));
	degradations__release(&dg);
	pivot__release(&p);
	executor__free(x);
	xfree(cdir);
	return s;
}

/* f's addresses as OpenMP regions' sites, named by run_ompt_symbolize()
 * through a per-line cache in <d>/<cache> with the Run's copies dc. */
static char *ompt_in(struct fixture *f, const char *cache, struct counter *c,
		     struct debug_copies *dc)
{
	struct executor cx = {.ops = as_replay ? &counter_replay_ops : &counter_ops, .priv = c};
	char *cdir = xasprintf("%s/%s", f->d, cache);
	struct executor *x = executor__new_caching_take(&cx, cdir);
	struct run_state s;
	memset(&s, 0, sizeof(s));
	pivot__init(&s.pivot);
	s.x = x;
	s.tools = &f->t;
	for (size_t i = 0; i < 4; i++) {
		struct omp_site o = {.locus = 0, .module = f->prog, .address = f->at[i],
				     .thread_num = 0, .calls = 1};
		CHECK(pivot__add_omp_site(&s.pivot, &o) >= 0);
	}
	struct err e = {0};
	struct lines_run run = {.copies = dc};
	CHECK_INT(run_ompt_symbolize(&s, &run, &e), 0);
	size_t cap = 64, len = 0;
	char *out = xcalloc(cap, 1);
	for (size_t i = 0; i < s.pivot.nr_omp_sites; i++)
		site_text(&out, &cap, &len, s.pivot.omp_sites[i].address,
			  s.pivot.omp_sites[i].function, s.pivot.omp_sites[i].file,
			  s.pivot.omp_sites[i].line);
	CHECK(strstr(out, "dc_inner") && strstr(out, "debug_copy.c:"));
	pivot__release(&s.pivot);
	executor__free(x);
	xfree(cdir);
	return out;
}

/* The copies' files now: how many, and the first one's path. */
static size_t copies(const struct fixture *f, char **first)
{
	char *pat = xasprintf("%s/*.*/.build-id/*/*.debug", f->copies);
	glob_t g;
	size_t n = glob(pat, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	if (first)
		*first = n ? xstrdup(g.gl_pathv[0]) : NULL;
	if (n)
		globfree(&g);
	xfree(pat);
	return n;
}

static void expect(const struct counter *c, int symbolizers, int objcopies, bool used)
{
	if (c->symbolizers != symbolizers || c->objcopies != objcopies ||
	    (c->with_copy > 0) != used || c->default_dir != c->with_copy)
		fprintf(stderr, "symbolizers %d objcopies %d with the copy %d default %d; expected "
			"%d %d %d\n", c->symbolizers, c->objcopies, c->with_copy, c->default_dir,
			symbolizers, objcopies, used);
	CHECK_INT(c->symbolizers, symbolizers);
	CHECK_INT(c->objcopies, objcopies);
	CHECK_INT(c->with_copy > 0, used);
	CHECK_INT(c->default_dir, c->with_copy); /* /usr/lib/debug still read, after it */
}

/* One Run through a fresh per-line cache: what it asked, the same answers. */
static void one(struct fixture *f, const char *ref, const char *cache, int objcopies, bool used)
{
	struct counter c;
	char *r = attribute(f, cache, &c);
	expect(&c, 1, objcopies, used);
	CHECK_STR(r, ref);
	xfree(r);
}

/* llvm-symbolizer's JSON for f's addresses, with the copy's directory or
 * without. */
static char *direct(const struct fixture *f, const char *dir)
{
	char *obj = xasprintf("--obj=%s", f->prog), *arg = dir ? xasprintf(
		"--debug-file-directory=%s", dir) : NULL, hex[4][24];
	const char *argv[10] = {f->t.path, "--output-style=JSON", obj};
	size_t n = 3;
	if (arg)
		argv[n++] = arg;
	for (size_t i = 0; i < 4; i++) {
		snprintf(hex[i], sizeof(hex[i]), "%#jx", (uintmax_t)f->at[i]);
		argv[n++] = hex[i];
	}
	char *out = NULL;
	CHECK_INT(run_cmd(argv, &out), 0);
	xfree(obj), xfree(arg);
	return out;
}

static void t_lifecycle(void)
{
	struct fixture f;
	fixture(&f);
	struct counter c;
	/* first Run: the original answers, a marker is left, nothing copied */
	char *ref = attribute(&f, "c1", &c);
	expect(&c, 1, 0, false);
	CHECK_INT(copies(&f, NULL), 0);
	glob_t g;
	char *pat = xasprintf("%s/%s.*.seen", f.copies, f.elf.build_id);
	CHECK(glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1);
	globfree(&g);
	/* second: llvm-objcopy beside the symbolizer, which still reads the
	 * original */
	char *r = attribute(&f, "c2", &c);
	expect(&c, 1, 1, false);
	CHECK_STR(r, ref);
	xfree(r);
	char *copy = NULL;
	CHECK_INT(copies(&f, &copy), 1);
	CHECK(!compressed(copy));
	/* third: the copy's directory, the same answers */
	r = attribute(&f, "c3", &c);
	expect(&c, 1, 0, true);
	CHECK_STR(r, ref);
	xfree(r);
	/* the per-line cache of the first Run still answers: same key */
	r = attribute(&f, "c1", &c);
	expect(&c, 0, 0, false);
	CHECK_STR(r, ref);
	xfree(r);
	/* the symbolizer reads the copy (the original moved away, it still
	 * answers lines) and answers as from the original */
	char *dir = xstrndup(copy, (size_t)(strstr(copy, "/.build-id/") - copy));
	char *want = direct(&f, NULL), *moved = xasprintf("%s.away", f.debug);
	CHECK(!rename(f.debug, moved));
	char *got = direct(&f, dir), *none = direct(&f, NULL);
	CHECK(!rename(moved, f.debug));
	CHECK_STR(got, want);
	CHECK(strstr(want, "debug_copy.c") && !strstr(none, "debug_copy.c"));
	xfree(got), xfree(none), xfree(want), xfree(moved);
	/* a changed original (its mtime) is copied again; the old copy goes */
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1700000000, .tv_nsec = 5}};
	CHECK(!utimensat(AT_FDCWD, f.debug, ts, 0));
	one(&f, ref, "c4", 0, false); /* met for the first time */
	one(&f, ref, "c5", 1, false);
	char *again = NULL;
	CHECK_INT(copies(&f, &again), 1);
	CHECK(strcmp(again, copy) != 0);
	struct stat st;
	CHECK(stat(dir, &st) != 0 && errno == ENOENT);
	r = attribute(&f, "c7", &c);
	expect(&c, 1, 0, true);
	CHECK_STR(r, ref);
	xfree(r);
	xfree(again), xfree(dir), xfree(copy), xfree(pat), xfree(ref);
	fixture_release(&f);
	done();
}

/* Replaces path by a file of the same bytes (another inode): what another
 * writer, or an attacker with the user's rights, would leave. */
static void replant(const char *path)
{
	char *text = NULL, *tmp = xasprintf("%s.planted", path);
	FILE *in = fopen(path, "rb");
	CHECK(in);
	CHECK(!fseek(in, 0, SEEK_END));
	long n = ftell(in);
	rewind(in);
	text = xmalloc((size_t)n + 1);
	CHECK(fread(text, 1, (size_t)n, in) == (size_t)n);
	fclose(in);
	FILE *out = fopen(tmp, "wb");
	CHECK(out && fwrite(text, 1, (size_t)n, out) == (size_t)n && !fclose(out));
	CHECK(!rename(tmp, path));
	xfree(text), xfree(tmp);
}

static void t_planted(void)
{
	struct fixture f;
	fixture(&f);
	struct counter c;
	char *ref = attribute(&f, "c0", &c);
	xfree(attribute(&f, "c1", &c));
	expect(&c, 1, 1, false);
	char *copy = NULL;
	CHECK_INT(copies(&f, &copy), 1);
	/* the same bytes under another inode: not what nunatak sealed; met
	 * anew, it is copied again */
	replant(copy);
	one(&f, ref, "c2", 0, false);
	one(&f, ref, "c3", 1, false);
	one(&f, ref, "c4", 0, true);
	/* a symbolic link in its place (to the compressed original) */
	CHECK(!unlink(copy) && !symlink(f.debug, copy));
	one(&f, ref, "c5", 0, false);
	one(&f, ref, "c6", 1, false);
	one(&f, ref, "c7", 0, true);
	/* another user's file, with nunatak's seal */
	if (geteuid() == 0) {
		CHECK(!chown(copy, 65534, 65534));
		one(&f, ref, "c8", 0, false);
	} else {
		fprintf(stderr, "(a copy another user owns: not checked, it needs root to chown)\n");
	}
	xfree(copy), xfree(ref);
	fixture_release(&f);
	done();
}

/* A copy whose original is gone (a package upgrade removed it) is dropped
 * when another copy is made. */
static void t_gone(void)
{
	struct fixture f, g;
	fixture(&f);
	fixture_v(&g, 7);
	xfree(g.copies);
	g.copies = xstrdup(f.copies);
	char *ref = attribute(&f, "c0", &(struct counter){0});
	one(&f, ref, "c1", 1, false);
	char *copy = NULL;
	CHECK_INT(copies(&f, &copy), 1);
	CHECK(!unlink(f.debug));
	char *gref = attribute(&g, "g0", &(struct counter){0});
	CHECK(strcmp(gref, ref) != 0);
	CHECK(access(copy, F_OK) == 0); /* nothing made yet: nothing dropped */
	one(&g, gref, "g1", 1, false);
	char *now = NULL;
	CHECK_INT(copies(&g, &now), 1);
	CHECK(strcmp(now, copy) != 0 && access(copy, F_OK) != 0);
	one(&g, gref, "g2", 0, true);
	xfree(copy), xfree(now), xfree(ref), xfree(gref);
	fixture_release(&f);
	fixture_release(&g);
	done();
}

/* One Run's symbolizer calls in stage_attribute's order (the OpenMP
 * regions', the Hotspots', the MPI call sites': those in `which`), sharing
 * its copies, its clock moved by shift; each call through a per-line cache
 * of its own under <d>/<cache>-*, so that each asks the symbolizer. */
enum { OMP = 1, HOT = 2, MPI = 4 };
struct run_out {
	char *omp, *hot, *mpi, *notes;
	struct counter c;
};

static void a_run(struct fixture *f, const char *cache, int which, time_t shift, bool fail,
		  struct run_out *o)
{
	struct executor *real = executor__new_real();
	struct debug_copies dc;
	memset(o, 0, sizeof(*o));
	counter_reset(&o->c, f, real);
	o->c.fail_objcopy = fail;
	run_begin(f, &dc, shift);
	char *hc = xasprintf("%s-hot", cache), *mc = xasprintf("%s-mpi", cache);
	char *oc = xasprintf("%s-omp", cache);
	if (which & OMP)
		o->omp = ompt_in(f, oc, &o->c, &dc);
	if (which & HOT)
		o->hot = attribute_in(f, hc, &o->c, &dc);
	if (which & MPI)
		o->mpi = sites_in(f, mc, &o->c, &dc);
	o->notes = run_end(&dc);
	executor__free(real);
	xfree(hc), xfree(mc), xfree(oc);
}

static void run_out_release(struct run_out *o)
{
	xfree(o->omp), xfree(o->hot), xfree(o->mpi), xfree(o->notes);
}

/* The same answers as the reference Run's, for each call made. */
static void same(const struct run_out *o, const struct run_out *ref)
{
	if (o->omp)
		CHECK_STR(o->omp, ref->omp);
	if (o->hot)
		CHECK_STR(o->hot, ref->hot);
	if (o->mpi)
		CHECK_STR(o->mpi, ref->mpi);
}

/* The lifecycle of a copy met only by one kind of call (the MPI call
 * sites, or the OpenMP regions): marker, copy, use, same answers. */
static void lifecycle_of(int which)
{
	struct fixture f;
	fixture(&f);
	struct run_out ref, r;
	a_run(&f, "k1", which, 0, false, &ref);
	expect(&ref.c, 1, 0, false);
	CHECK_INT(copies(&f, NULL), 0);
	CHECK(strstr(ref.notes, "1 met for the first time"));
	a_run(&f, "k2", which, 0, false, &r);
	expect(&r.c, 1, 1, false);
	same(&r, &ref);
	CHECK(strstr(r.notes, "1 copy made"));
	run_out_release(&r);
	char *copy = NULL;
	CHECK_INT(copies(&f, &copy), 1);
	CHECK(!compressed(copy));
	a_run(&f, "k3", which, 0, false, &r);
	expect(&r.c, 1, 0, true);
	same(&r, &ref);
	CHECK(strstr(r.notes, "1 read from a decompressed copy"));
	run_out_release(&r);
	/* identity re-checked at each use: a replaced copy is not handed over */
	replant(copy);
	a_run(&f, "k4", which, 0, false, &r);
	expect(&r.c, 1, 0, false);
	same(&r, &ref);
	run_out_release(&r);
	run_out_release(&ref);
	xfree(copy);
	fixture_release(&f);
	done();
}

static void t_sites(void)
{
	lifecycle_of(MPI);
}

static void t_ompt(void)
{
	lifecycle_of(OMP);
}

/* The OpenMP regions' calls are cached address by address, as the MPI
 * call sites': a second Run of the same build asks no symbolizer, and
 * names its sites the same. */
static void t_ompt_cached(void)
{
	struct fixture f;
	fixture(&f);
	struct run_out ref, r;
	a_run(&f, "o", OMP, 0, false, &ref);
	expect(&ref.c, 1, 0, false);
	a_run(&f, "o", OMP, 0, false, &r); /* the same cache: no symbolizer */
	expect(&r.c, 0, 1, false);         /* (the file was needed: copied) */
	same(&r, &ref);
	run_out_release(&r);
	run_out_release(&ref);
	fixture_release(&f);
	done();
}

/* One Run's three kinds of call share the copies: the file they all meet
 * is met once (one marker: the later calls of the first Run do not make
 * the copy), copied once on the second Run, read by all three on the
 * third, with the same answers; a copy changed between two calls of one
 * Run is not handed to the later one. */
static void t_shared(void)
{
	struct fixture f;
	fixture(&f);
	struct run_out ref, r;
	a_run(&f, "r1", OMP | HOT | MPI, 0, false, &ref);
	expect(&ref.c, 3, 0, false);
	CHECK(strstr(ref.notes, "1 separate debug file met") &&
	      strstr(ref.notes, "1 met for the first time"));
	a_run(&f, "r2", OMP | HOT | MPI, 0, false, &r);
	expect(&r.c, 3, 1, false);
	same(&r, &ref);
	run_out_release(&r);
	a_run(&f, "r3", OMP | HOT | MPI, 0, false, &r);
	CHECK_INT(r.c.with_copy, 3);
	expect(&r.c, 3, 0, true);
	same(&r, &ref);
	run_out_release(&r);
	/* the copy replaced after the Run's first call: the later ones read
	 * the original */
	char *copy = NULL;
	CHECK_INT(copies(&f, &copy), 1);
	struct executor *real = executor__new_real();
	struct debug_copies dc;
	counter_reset(&r.c, &f, real);
	run_begin(&f, &dc, 0);
	char *h = attribute_in(&f, "r4-hot", &r.c, &dc);
	CHECK_INT(r.c.with_copy, 1);
	replant(copy);
	char *m = sites_in(&f, "r4-mpi", &r.c, &dc);
	CHECK_INT(r.c.with_copy, 1);
	CHECK_STR(h, ref.hot);
	CHECK_STR(m, ref.mpi);
	xfree(run_end(&dc));
	executor__free(real);
	xfree(h), xfree(m), xfree(copy);
	run_out_release(&ref);
	fixture_release(&f);
	done();
}

/* The copies stay out of the MPI sites' and OpenMP regions' calls, as out
 * of the Hotspots', under LLVM_SYMBOLIZER_OPTS (the user's options come
 * first) and under a replay (another machine's files), even once a copy
 * exists; nothing is marked or copied then. */
static char *marker(const struct fixture *f);

static void t_off(void)
{
	struct fixture f;
	fixture(&f);
	struct run_out ref, r;
	a_run(&f, "u1", OMP | MPI, 0, false, &ref);
	a_run(&f, "u2", OMP | MPI, 0, false, &r);
	run_out_release(&r);
	a_run(&f, "u3", OMP | MPI, 0, false, &r);
	expect(&r.c, 2, 0, true); /* the copy is there and used */
	run_out_release(&r);
	struct executor *real = executor__new_real();
	struct debug_copies dc;
	CHECK(!setenv("LLVM_SYMBOLIZER_OPTS", "--demangle", 1));
	CHECK_INT(debug_copies__init(&dc, f.copies, f.t.path), 0);
	CHECK(dc.dir == NULL);
	counter_reset(&r.c, &f, real);
	char *o = ompt_in(&f, "u4-omp", &r.c, &dc), *m = sites_in(&f, "u4-mpi", &r.c, &dc);
	expect(&r.c, 2, 0, false);
	CHECK_STR(o, ref.omp);
	CHECK_STR(m, ref.mpi);
	xfree(o), xfree(m);
	debug_copies__release(&dc);
	CHECK(!unsetenv("LLVM_SYMBOLIZER_OPTS"));
	/* a replay's executor, with a Run's copies at hand */
	char *before = marker(&f);
	as_replay = true;
	counter_reset(&r.c, &f, real);
	run_begin(&f, &dc, DEBUG_COPY_RETRY_MAX_S);
	o = ompt_in(&f, "u5-omp", &r.c, &dc);
	m = sites_in(&f, "u5-mpi", &r.c, &dc);
	as_replay = false;
	expect(&r.c, 2, 0, false);
	CHECK_INT(dc.nr_met, 0);
	CHECK_STR(o, ref.omp);
	CHECK_STR(m, ref.mpi);
	xfree(run_end(&dc));
	char *after = marker(&f);
	CHECK_STR(after, before);
	xfree(o), xfree(m), xfree(before), xfree(after);
	executor__free(real);
	run_out_release(&ref);
	fixture_release(&f);
	done();
}

/* The marker of f's file, its text (malloc'd, "" when there is none). */
static char *marker(const struct fixture *f)
{
	char *pat = xasprintf("%s/%s.*.seen", f->copies, f->elf.build_id), *text = NULL;
	glob_t g;
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1) {
		FILE *in = fopen(g.gl_pathv[0], "r");
		char buf[128] = "";
		size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;
		if (in)
			fclose(in);
		buf[n] = '\0';
		text = xstrdup(buf);
		globfree(&g);
	}
	xfree(pat);
	return text ? text : xstrdup("");
}

/* A failed copy is tried again after DEBUG_COPY_RETRY_FIRST_S, then after
 * twice that, ...: not on every Run, not never; -v says which. */
static void t_retry(void)
{
	CHECK_INT(debug_copy_retry_wait(1), DEBUG_COPY_RETRY_FIRST_S);
	CHECK_INT(debug_copy_retry_wait(2), 2 * DEBUG_COPY_RETRY_FIRST_S);
	CHECK_INT(debug_copy_retry_wait(3), 4 * DEBUG_COPY_RETRY_FIRST_S);
	CHECK_INT(debug_copy_retry_wait(40), DEBUG_COPY_RETRY_MAX_S);
	CHECK_INT(debug_copy_retry_wait(1000000), DEBUG_COPY_RETRY_MAX_S);
	struct fixture f;
	fixture(&f);
	const time_t h = DEBUG_COPY_RETRY_FIRST_S;
	struct run_out ref, r;
	a_run(&f, "t1", HOT | MPI, 0, false, &ref);
	/* the second Run's copy fails (a full disk): said, marked */
	a_run(&f, "t2", HOT | MPI, 0, true, &r);
	expect(&r.c, 2, 1, false);
	same(&r, &ref);
	CHECK(strstr(r.notes, "failed (exit status 1: llvm-objcopy: error: 'x': No space left "
		      "on device; attempt 1): tried again after "));
	run_out_release(&r);
	char *m = marker(&f);
	CHECK(!strncmp(m, "fail 1 ", 7));
	xfree(m);
	/* within the back-off: not tried, and said */
	a_run(&f, "t3", HOT | MPI, h / 2, false, &r);
	expect(&r.c, 2, 0, false);
	CHECK(strstr(r.notes, "failed 1 time: not tried again before "));
	run_out_release(&r);
	/* after it: tried again (failing again: twice the wait) */
	a_run(&f, "t4", HOT | MPI, h + 1, true, &r);
	expect(&r.c, 2, 1, false);
	CHECK(strstr(r.notes, "is tried again (1 failed attempt before)") &&
	      strstr(r.notes, "attempt 2): tried again after "));
	run_out_release(&r);
	a_run(&f, "t5", HOT | MPI, h + 1 + 2 * h - h / 2, false, &r);
	expect(&r.c, 2, 0, false);
	CHECK(strstr(r.notes, "failed 2 times: not tried again before "));
	run_out_release(&r);
	a_run(&f, "t6", HOT | MPI, h + 1 + 2 * h + 1, false, &r);
	expect(&r.c, 2, 1, false);
	CHECK(strstr(r.notes, "1 copy made"));
	run_out_release(&r);
	a_run(&f, "t7", HOT | MPI, 0, false, &r);
	expect(&r.c, 2, 0, true);
	same(&r, &ref);
	run_out_release(&r);
	/* an older nunatak's "fail" marker: one failure, at its mtime */
	char *copy = NULL;
	CHECK_INT(copies(&f, &copy), 1);
	CHECK(!unlink(copy));
	a_run(&f, "t8", HOT, 0, false, &r); /* met anew: a marker */
	run_out_release(&r);
	char *pat = xasprintf("%s/%s.*.seen", f.copies, f.elf.build_id);
	glob_t g;
	CHECK(glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1);
	FILE *w = fopen(g.gl_pathv[0], "w");
	CHECK(w && fputs("fail\n", w) >= 0 && !fclose(w));
	globfree(&g);
	a_run(&f, "t9", HOT, h / 2, false, &r);
	expect(&r.c, 1, 0, false);
	run_out_release(&r);
	a_run(&f, "t10", HOT, h + 60, false, &r);
	expect(&r.c, 1, 1, false);
	run_out_release(&r);
	xfree(pat), xfree(copy);
	run_out_release(&ref);
	fixture_release(&f);
	done();
}

static const struct test_case cases[] = {
	{"lifecycle", "marker, copy, use; same answers and key; a changed original is copied again",
	 t_lifecycle},
	{"planted", "a replaced, linked or foreign-owned copy is never handed to the symbolizer",
	 t_planted},
	{"gone", "a copy whose original is gone is dropped when another is made", t_gone},
	{"sites", "the MPI call sites' symbolizer calls: marker, copy, use, same names", t_sites},
	{"ompt", "the OpenMP regions' symbolizer calls: marker, copy, use, same names", t_ompt},
	{"ompt_cached", "the OpenMP regions' calls are cached: a second Run asks no symbolizer",
	 t_ompt_cached},
	{"shared", "one Run's calls share the copies: one marker, one copy, used by all",
	 t_shared},
	{"retry", "a failed copy is tried again after a growing back-off, said in -v", t_retry},
	{"off", "no copy for the MPI sites' and OMPT calls under LLVM_SYMBOLIZER_OPTS or replay",
	 t_off},
};

TEST_MAIN(cases)
