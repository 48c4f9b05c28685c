// SPDX-License-Identifier: BSD-3-Clause
/* Source resolution and extraction: recorded path, source map (longest
 * prefix), unique basename under the root (dot-dirs skipped), ambiguity and
 * absence as reasons, range and cap, MD5 verdicts. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/internal.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/md5.h"
#include "harness.h"

static char root[64];

static void mk(const char *rel, int nr_lines)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	CHECK(f);
	for (int i = 1; i <= nr_lines; i++)
		fprintf(f, "%s:%d\n", rel, i);
	fclose(f);
}

static void setup(void)
{
	strcpy(root, "/tmp/nunatak-src-XXXXXX");
	CHECK(mkdtemp(root));
	mk("a/dup.c", 10);
	mk("b/dup.c", 10);
	mk("src/only.c", 500);
	mk(".nunatak/run/only.c", 10); /* never searched */
	mk(".git/only.c", 10);
	mk("mapped/proj/m.c", 30);
	mk("mapped/m.c", 30);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	CHECK(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

static void frame_fn(struct pivot *p, int64_t h, const char *fn, const char *file, int line,
		     int decl)
{
	struct frame f = {.hotspot = h, .offset = 0x10, .function = (char *)fn, .file = (char *)file,
			  .line = line, .declaration_line = decl};
	CHECK(pivot__add_frame(p, &f) >= 0);
}

static void frame(struct pivot *p, int64_t h, const char *file, int line, int decl)
{
	frame_fn(p, h, "f", file, line, decl);
}

static const struct extract *extract_of(const struct pivot *p, const char *file)
{
	for (size_t i = 0; i < p->nr_extracts; i++)
		if (!strcmp(p->extracts[i].file, file))
			return &p->extracts[i];
	CHECK(!"no extract for file");
	return NULL;
}

static void t_resolution(void)
{
	setup();
	struct pivot p;
	pivot__init(&p);
	struct hotspot hs = {.module = (char *)"/m", .name = (char *)"f", .level = RESOLUTION_LINE};
	int64_t h = pivot__add_hotspot(&p, &hs);
	frame(&p, h, "/build/gone/dup.c", 5, 2);
	/* found by name: line 10 ("src/only.c:10") names `only`, as the binary's
	 * declaration line says */
	frame_fn(&p, h, "ns::only(int)", "/build/gone/only.c", 400, 10); /* 10..400: capped */
	frame(&p, h, "/build/gone/absent.c", 5, 2);
	frame(&p, h, "/build/proj/m.c", 12, 10);
	struct attrib_source_map sm[2] = {{"/build", NULL}, {"/build/proj", NULL}};
	char to0[128], to1[128];
	snprintf(to0, sizeof(to0), "%s/mapped", root);
	snprintf(to1, sizeof(to1), "%s/mapped/proj", root);
	sm[0].to = to0;
	sm[1].to = to1;
	struct attrib_opts o = {.source_map = sm, .nr_source_map = 2, .root = root};
	struct err e = {0};
	CHECK_INT(attrib_extract_sources(&p, &o, NULL, 0, &e), 0);
	CHECK_INT(p.nr_extracts, 4);

	const struct extract *x = extract_of(&p, "/build/gone/dup.c");
	char want[256];
	snprintf(want, sizeof(want), "ambiguous: 2 files named 'dup.c' under %s", root);
	CHECK(!x->text && !x->resolved_path);
	CHECK_STR(x->reason, want);

	x = extract_of(&p, "/build/gone/only.c"); /* unique once dot-dirs are skipped */
	snprintf(want, sizeof(want), "%s/src/only.c", root);
	CHECK_STR(x->resolved_path, want);
	CHECK_INT(x->start_line, 7);
	CHECK_INT(x->end_line, 206);
	CHECK(x->truncated);
	CHECK(!strncmp(x->text, "src/only.c:7\n", 13) && strstr(x->text, "src/only.c:206\n"));
	CHECK(!strstr(x->text, ":207\n"));

	x = extract_of(&p, "/build/gone/absent.c");
	CHECK(!x->text);
	CHECK_STR(x->reason, "source file not found on this machine");

	x = extract_of(&p, "/build/proj/m.c"); /* the longest prefix wins */
	snprintf(want, sizeof(want), "%s/mapped/proj/m.c", root);
	CHECK_STR(x->resolved_path, want);
	CHECK_INT(x->start_line, 7);
	CHECK_INT(x->end_line, 15);
	CHECK(strstr(x->text, "mapped/proj/m.c:7\n"));
	pivot__release(&p);
	teardown();
}

static void t_staleness(void)
{
	setup();
	struct pivot p;
	pivot__init(&p);
	struct hotspot hs = {.module = (char *)"/m", .name = (char *)"f", .level = RESOLUTION_LINE};
	int64_t h = pivot__add_hotspot(&p, &hs);
	char a[256], b[256];
	snprintf(a, sizeof(a), "%s/a/dup.c", root);
	snprintf(b, sizeof(b), "%s/b/dup.c", root);
	frame(&p, h, a, 5, 2);
	frame(&p, h, b, 5, 2);
	struct attrib_module_sums ms = {.module = "/m"};
	ms.sums.v = xcalloc(2, sizeof(*ms.sums.v));
	ms.sums.n = 2;
	ms.sums.v[0].path = xstrdup(a);
	CHECK_INT(md5_file_hex(a, ms.sums.v[0].md5), 0); /* agrees: shown */
	ms.sums.v[1].path = xstrdup(b);
	strcpy(ms.sums.v[1].md5, "00000000000000000000000000000000"); /* disagrees: withheld */
	struct attrib_opts o = {.root = root};
	struct err e = {0};
	CHECK_INT(attrib_extract_sources(&p, &o, &ms, 1, &e), 0);
	CHECK(extract_of(&p, a)->text);
	const struct extract *x = extract_of(&p, b);
	CHECK(!x->text);
	CHECK_STR(x->resolved_path, b);
	CHECK_STR(x->reason, "source file changed since the profiled binary was built "
			     "(line-table MD5 mismatch)");
	line_checksums__release(&ms.sums);
	pivot__release(&p);
	teardown();
}

/* Issue 24: a same-named unrelated file found by name is never embedded
 * without proof: its declaration line must name the function, or the line
 * table's MD5 must agree; otherwise the reason says why, with the remedy. */
static void t_by_name(void)
{
	setup();
	mk("other/same.c", 20);   /* "other/same.c:N": names no function */
	mk("other/nodecl.c", 20);
	mk("other/summed.c", 20);
	struct pivot p;
	pivot__init(&p);
	struct hotspot hs = {.module = (char *)"/m", .name = (char *)"kernel", .level = RESOLUTION_LINE};
	int64_t h = pivot__add_hotspot(&p, &hs);
	frame_fn(&p, h, "kernel", "/build/gone/same.c", 12, 8);
	frame_fn(&p, h, "kernel", "/build/gone/nodecl.c", 12, 0);
	frame_fn(&p, h, "kernel", "/build/gone/summed.c", 12, 8);
	struct attrib_module_sums ms = {.module = "/m"};
	ms.sums.v = xcalloc(1, sizeof(*ms.sums.v));
	ms.sums.n = 1;
	ms.sums.v[0].path = xstrdup("/build/gone/summed.c");
	char found[256];
	snprintf(found, sizeof(found), "%s/other/summed.c", root);
	CHECK_INT(md5_file_hex(found, ms.sums.v[0].md5), 0);
	struct attrib_opts o = {.root = root};
	struct err e = {0};
	CHECK_INT(attrib_extract_sources(&p, &o, &ms, 1, &e), 0);
	char want[512];
	const struct extract *x = extract_of(&p, "/build/gone/same.c");
	snprintf(want, sizeof(want), "not embedded: %s/other/same.c has the name of the binary's "
		 "/build/gone/same.c but its line 8 does not declare kernel as the binary's line "
		 "table says: another file of that name, or one changed since the build; point at "
		 "the right directory with --source-map OLD=NEW", root);
	CHECK(!x->text);
	CHECK_STR(x->reason, want);
	x = extract_of(&p, "/build/gone/nodecl.c");
	CHECK(!x->text);
	CHECK(x->reason && strstr(x->reason, "nothing proves it is that file (no line-table MD5, "
					     "no declaration line to check)"));
	x = extract_of(&p, "/build/gone/summed.c"); /* the MD5 vouches */
	CHECK(x->text && strstr(x->text, "other/summed.c:12\n"));
	line_checksums__release(&ms.sums);
	pivot__release(&p);
	teardown();
}

/* The walk by name trusts readdir's entry types: a symbolic link to a
 * file counts (found through it), a link to a directory is not descended
 * (its files would count twice), a fifo named like a source is no source. */
static void t_walk_kinds(void)
{
	setup();
	char from[256], to[256];
	mk("data/lnk_target.txt", 20);
	mk("src/kinds.c", 20);
	snprintf(to, sizeof(to), "%s/links", root);
	CHECK(mkdir(to, 0755) == 0);
	snprintf(from, sizeof(from), "%s/data/lnk_target.txt", root);
	snprintf(to, sizeof(to), "%s/links/linked.c", root);
	CHECK(symlink(from, to) == 0);
	snprintf(from, sizeof(from), "%s/src", root);
	snprintf(to, sizeof(to), "%s/alias", root);
	CHECK(symlink(from, to) == 0);
	snprintf(to, sizeof(to), "%s/a/kinds.c", root);
	CHECK(mkfifo(to, 0644) == 0);
	struct pivot p;
	pivot__init(&p);
	struct hotspot hs = {.module = (char *)"/m", .name = (char *)"f", .level = RESOLUTION_LINE};
	int64_t h = pivot__add_hotspot(&p, &hs);
	frame_fn(&p, h, "only", "/build/gone/only.c", 12, 10);
	frame_fn(&p, h, "lnk_target", "/build/gone/linked.c", 12, 10);
	frame_fn(&p, h, "kinds", "/build/gone/kinds.c", 12, 10);
	struct attrib_opts o = {.root = root};
	struct err e = {0};
	CHECK_INT(attrib_extract_sources(&p, &o, NULL, 0, &e), 0);
	char want[256];
	snprintf(want, sizeof(want), "%s/src/only.c", root); /* not also alias/only.c */
	CHECK_STR(extract_of(&p, "/build/gone/only.c")->resolved_path, want);
	snprintf(want, sizeof(want), "%s/links/linked.c", root);
	const struct extract *x = extract_of(&p, "/build/gone/linked.c");
	CHECK_STR(x->resolved_path, want);
	CHECK(x->text && strstr(x->text, "data/lnk_target.txt:12\n"));
	snprintf(want, sizeof(want), "%s/src/kinds.c", root); /* the fifo a/kinds.c is none */
	CHECK_STR(extract_of(&p, "/build/gone/kinds.c")->resolved_path, want);
	pivot__release(&p);
	teardown();
}

static void t_source_map(void)
{
	struct attrib_source_map sm[3] = {{"/a", "/x"}, {"/a/b", "/y"}, {"/a/b", "/z"}};
	struct attrib_opts o = {.source_map = sm, .nr_source_map = 3};
	char *s = attrib_source_map_apply(&o, "/a/b/c.c");
	CHECK_STR(s, "/z/c.c"); /* longest prefix; the later entry (a flag) wins a tie */
	xfree(s);
	s = attrib_source_map_apply(&o, "/a/c.c");
	CHECK_STR(s, "/x/c.c");
	xfree(s);
	CHECK(!attrib_source_map_apply(&o, "/ab/c.c")); /* a component boundary */
	CHECK(!attrib_source_map_apply(&o, "/q/c.c"));
}

static const struct test_case cases[] = {
	{"resolution", "recorded, mapped, basename; ambiguous and absent reasons; cap", t_resolution},
	{"by_name", "a file found by name alone is embedded only when vouched for", t_by_name},
	{"staleness", "a present and discordant MD5 withholds the text", t_staleness},
	{"source_map", "longest prefix, later entries win ties, component boundary", t_source_map},
	{"walk_kinds", "file links count, directory links and fifos do not", t_walk_kinds},
};
TEST_MAIN(cases)
