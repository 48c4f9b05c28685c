// SPDX-License-Identifier: BSD-3-Clause
#include "tools/llvm_dwarfdump.h"

#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/text.h"
#include "tools/symbolizer_parse.h"

void llvm_dwarfdump__lines_argv(const char *argv[LLVM_DWARFDUMP_ARGC + 1], const char *path,
				const char *module)
{
	argv[0] = path;
	argv[1] = "--debug-line";
	argv[2] = module;
	argv[3] = NULL;
}

/* State of one line-table prologue while its lines stream by. */
struct prologue {
	char **dirs;
	size_t nr_dirs;
	char *name;
	long dir_index;
	char md5[33];
};

static void prologue__reset_file(struct prologue *p)
{
	zfree(&p->name);
	p->dir_index = -1;
	p->md5[0] = '\0';
}

static void prologue__reset(struct prologue *p)
{
	for (size_t i = 0; i < p->nr_dirs; i++)
		xfree(p->dirs[i]);
	zfree(&p->dirs);
	p->nr_dirs = 0;
	prologue__reset_file(p);
}

/* The quoted value of `key … = "value"` or `key: "value"` into *out (NULL
 * when the line has none). Returns 0 or -ENOMEM. */
static int quoted(const char *s, size_t n, char **out)
{
	*out = NULL;
	const char *a = memchr(s, '"', n);
	if (!a)
		return 0;
	const char *b = memchr(a + 1, '"', n - (size_t)(a + 1 - s));
	if (!b)
		return 0;
	*out = xstrndup(a + 1, (size_t)(b - a - 1));
	return *out ? 0 : -ENOMEM;
}

static int prologue__flush(struct prologue *p, struct line_checksums *out)
{
	if (!p->name || !p->md5[0]) {
		prologue__reset_file(p);
		return 0;
	}
	char *path;
	const char *dir = p->dir_index >= 0 && (size_t)p->dir_index < p->nr_dirs ?
				  p->dirs[p->dir_index] : NULL;
	const char *dir0 = p->nr_dirs ? p->dirs[0] : NULL;
	if (p->name[0] == '/' || !dir)
		path = xstrdup(p->name);
	else if (dir[0] == '/' || !dir0 || p->dir_index == 0)
		path = xasprintf("%s/%s", dir, p->name);
	else /* DWARF 5: a relative directory is relative to directory 0 */
		path = xasprintf("%s/%s/%s", dir0, dir, p->name);
	if (!path || xgrow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v))) {
		xfree(path);
		return -ENOMEM;
	}
	out->v[out->n].path = path;
	memcpy(out->v[out->n].md5, p->md5, sizeof(p->md5));
	out->n++;
	prologue__reset_file(p);
	return 0;
}

static int dwarf_dir(struct prologue *p, const char *s, size_t n)
{
	long idx = text_long_in(s + 20, n - 20);
	char *dir;
	if (quoted(s, n, &dir))
		return -ENOMEM;
	if (!dir || idx < 0 || idx >= 100000) {
		xfree(dir);
		return 0;
	}
	if ((size_t)idx >= p->nr_dirs) {
		char **v = xrealloc(p->dirs, ((size_t)idx + 1) * sizeof(*v));
		if (!v) {
			xfree(dir);
			return -ENOMEM;
		}
		for (size_t i = p->nr_dirs; i <= (size_t)idx; i++)
			v[i] = NULL;
		p->dirs = v;
		p->nr_dirs = (size_t)idx + 1;
	}
	xfree(p->dirs[idx]);
	p->dirs[idx] = dir;
	return 0;
}

static int dwarf_line(struct prologue *p, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n > 20 && memcmp(s, "include_directories[", 20) == 0)
		return dwarf_dir(p, s, n);
	if (n > 5 && memcmp(s, "name:", 5) == 0) {
		zfree(&p->name);
		return quoted(s, n, &p->name);
	}
	if (n > 10 && memcmp(s, "dir_index:", 10) == 0) {
		p->dir_index = text_long_in(s + 10, n - 10);
	} else if (n > 13 && memcmp(s, "md5_checksum:", 13) == 0) {
		const char *h = s + 13;
		size_t k = n - 13;
		while (k && *h == ' ')
			h++, k--;
		if (k >= 32) {
			for (int i = 0; i < 32; i++)
				p->md5[i] = (char)(h[i] >= 'A' && h[i] <= 'F' ? h[i] + 32 : h[i]);
			p->md5[32] = '\0';
			if (strspn(p->md5, "0123456789abcdef") != 32)
				p->md5[0] = '\0';
		}
	}
	return 0;
}

int dwarfdump_checksums__parse(const char *text, size_t len, struct line_checksums *out)
{
	struct prologue p = {.dir_index = -1};
	size_t pos = 0;
	const char *s;
	size_t n;
	int rc = 0;
	while (!rc && text_next_line_in(text, len, &pos, &s, &n)) {
		bool new_file = memmem(s, n, "file_names[", 11) != NULL;
		bool new_table = n >= 11 && memcmp(s, "debug_line[", 11) == 0;
		bool rows = n >= 7 && memcmp(s, "Address", 7) == 0;
		if (new_file || new_table || rows)
			rc = prologue__flush(&p, out);
		if (new_table)
			prologue__reset(&p);
		else if (!rc)
			rc = dwarf_line(&p, s, n);
	}
	if (!rc)
		rc = prologue__flush(&p, out);
	prologue__reset(&p);
	return rc;
}

void line_checksums__release(struct line_checksums *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		xfree(cs->v[i].path);
	xfree(cs->v);
	memset(cs, 0, sizeof(*cs));
}

/* Skips the "/." and "/" that "/./" and "//" add at *p, so "dir/./x.c" and
 * "dir//x.c" compare equal to "dir/x.c" (no allocation: never fails). */
static void skip_redundant(const char **p)
{
	for (;;) {
		if ((*p)[0] == '/' && (*p)[1] == '.' && (*p)[2] == '/')
			*p += 2;
		else if ((*p)[0] == '/' && (*p)[1] == '/')
			*p += 1;
		else
			return;
	}
}

static bool path_eq(const char *a, const char *b)
{
	for (;;) {
		skip_redundant(&a);
		skip_redundant(&b);
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++, b++;
	}
}

const char *line_checksums__find(const struct line_checksums *cs, const char *path)
{
	for (size_t i = 0; i < cs->n; i++)
		if (path_eq(cs->v[i].path, path))
			return cs->v[i].md5;
	return NULL;
}
