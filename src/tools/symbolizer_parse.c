// SPDX-License-Identifier: BSD-3-Clause
#include "tools/symbolizer_parse.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

void attrib_chain__release(struct attrib_chain *c)
{
	for (size_t i = 0; i < c->nr_frames; i++) {
		xfree(c->frames[i].function);
		xfree(c->frames[i].file);
	}
	xfree(c->frames);
	xfree(c->error);
	memset(c, 0, sizeof(*c));
}

void attrib_chains__release(struct attrib_chains *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		attrib_chain__release(&cs->v[i]);
	xfree(cs->v);
	memset(cs, 0, sizeof(*cs));
}

const struct attrib_frame *attrib_chain__physical(const struct attrib_chain *c)
{
	return c->nr_frames ? &c->frames[c->nr_frames - 1] : NULL;
}

static struct attrib_chain *chains__push(struct attrib_chains *cs)
{
	if (xgrow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof(*cs->v)))
		return NULL;
	struct attrib_chain *c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	return c;
}

static int chain__push_frame(struct attrib_chain *c, const struct attrib_frame *f)
{
	struct attrib_frame *v = xrealloc(c->frames, (c->nr_frames + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->frames = v;
	v[c->nr_frames++] = *f;
	return 0;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s + 2, &end, 16);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool known_text(const char *s)
{
	return s && *s && strcmp(s, "??") != 0 && strcmp(s, "<invalid>") != 0;
}

static int json_int(const json_t *o, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(o, key));
	return v > 0 && v < 1000000000 ? (int)v : 0;
}

static int frame_from_json(struct attrib_chain *c, const json_t *s)
{
	const char *fn = json_string_value(json_object_get(s, "FunctionName"));
	if (!known_text(fn))
		return 0; /* an empty name drops the frame */
	const char *file = json_string_value(json_object_get(s, "FileName"));
	struct attrib_frame f = {.line = json_int(s, "Line"), .decl_line = json_int(s, "StartLine")};
	f.has_start = parse_hex(json_string_value(json_object_get(s, "StartAddress")), &f.start);
	f.function = xstrdup(fn);
	f.file = known_text(file) ? xstrdup(file) : NULL;
	if (!f.function || (known_text(file) && !f.file) || chain__push_frame(c, &f)) {
		xfree(f.function);
		xfree(f.file);
		return -ENOMEM;
	}
	if (!f.file) /* no source position without a file */
		c->frames[c->nr_frames - 1].line = 0;
	return 0;
}

static int entry_from_json(struct attrib_chains *out, const json_t *o, size_t idx, struct err *e)
{
	uint64_t addr;
	if (!json_is_object(o) || !parse_hex(json_string_value(json_object_get(o, "Address")), &addr))
		return err_set(e, -EINVAL, ERR_SYMBOLIZER_JSON,
			       "entry %zu: expected an object with \"Address\":\"0x…\"", idx);
	struct attrib_chain *c = chains__push(out);
	if (!c)
		return -ENOMEM;
	c->address = addr;
	const json_t *error = json_object_get(o, "Error");
	if (error) {
		const char *msg = json_string_value(json_object_get(error, "Message"));
		c->error = xstrdup(msg ? msg : "error");
		return c->error ? 0 : -ENOMEM;
	}
	const json_t *syms = json_object_get(o, "Symbol");
	if (!json_is_array(syms))
		return err_set(e, -EINVAL, ERR_SYMBOLIZER_JSON,
			       "entry %zu (0x%llx): expected a \"Symbol\" array", idx,
			       (unsigned long long)addr);
	size_t i;
	const json_t *s;
	json_array_foreach(syms, i, s) {
		int rc = frame_from_json(c, s);
		if (rc)
			return rc;
	}
	return 0;
}

int symbolizer_json__parse(const char *text, size_t len, struct attrib_chains *out, struct err *e)
{
	size_t pos = 0, idx = 0;
	while (pos < len) {
		while (pos < len && strchr(" \t\r\n", text[pos]))
			pos++;
		if (pos >= len)
			break;
		json_error_t je;
		json_t *doc = json_loadb(text + pos, len - pos, JSON_DISABLE_EOF_CHECK, &je);
		if (!doc)
			return err_set(e, -EINVAL, ERR_SYMBOLIZER_JSON,
				       "llvm-symbolizer output, byte %zu: %s", pos + (size_t)je.position,
				       je.text);
		pos += (size_t)je.position;
		int rc = 0;
		if (json_is_array(doc)) {
			size_t i;
			json_t *o;
			json_array_foreach(doc, i, o) {
				if ((rc = entry_from_json(out, o, idx++, e)))
					break;
			}
		} else {
			rc = entry_from_json(out, doc, idx++, e);
		}
		json_decref(doc);
		if (rc)
			return rc;
		if (je.position <= 0)
			break;
	}
	return 0;
}

/* A decimal number at the start of [s, s + n) (leading blanks skipped),
 * never reading past n: the texts parsed here are not NUL-terminated. */
static long bounded_long(const char *s, size_t n)
{
	size_t i = 0;
	long v = 0;
	while (i < n && s[i] == ' ')
		i++;
	bool neg = i < n && s[i] == '-';
	i += neg;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && v < 100000000; i++)
		v = v * 10 + (s[i] - '0');
	return neg ? -v : v;
}

/* Next line of text as [*s, *s + *n), advancing *pos. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **s, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *p = text + *pos, *nl = memchr(p, '\n', len - *pos);
	*s = p;
	*n = nl ? (size_t)(nl - p) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	if (*n && p[*n - 1] == '\r')
		(*n)--;
	return true;
}

static bool is_address_line(const char *s, size_t n, uint64_t *addr)
{
	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	uint64_t v = 0;
	for (size_t i = 2; i < n; i++) {
		int c = s[i], d = c >= '0' && c <= '9' ? c - '0'
				 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*addr = v;
	return true;
}

/* "file:line" or "file:line (discriminator N)" or "??:0" / "??:?". */
static int a2l_position(struct attrib_frame *f, const char *s, size_t n)
{
	const char *disc = memmem(s, n, " (discriminator", 15);
	if (disc)
		n = (size_t)(disc - s);
	const char *colon = NULL;
	for (size_t i = n; i > 0; i--)
		if (s[i - 1] == ':') {
			colon = s + i - 1;
			break;
		}
	size_t flen = colon ? (size_t)(colon - s) : n;
	if (colon) {
		long line = bounded_long(colon + 1, n - (size_t)(colon + 1 - s));
		f->line = line > 0 && line < 1000000000 ? (int)line : 0;
	}
	if (flen && !(flen == 2 && s[0] == '?' && s[1] == '?')) {
		f->file = xstrndup(s, flen);
		if (!f->file)
			return -ENOMEM;
	}
	if (!f->file)
		f->line = 0;
	return 0;
}

int addr2line__parse(const char *text, size_t len, struct attrib_chains *out, struct err *e)
{
	size_t pos = 0, lineno = 0;
	const char *s;
	size_t n;
	struct attrib_chain *c = NULL;
	while (next_line(text, len, &pos, &s, &n)) {
		lineno++;
		uint64_t addr;
		if (is_address_line(s, n, &addr)) {
			if (!(c = chains__push(out)))
				return -ENOMEM;
			c->address = addr;
			continue;
		}
		if (!c)
			return err_set(e, -EINVAL, ERR_ADDR2LINE_OUTPUT,
				       "addr2line output, line %zu: expected an address 0x…", lineno);
		const char *ps;
		size_t pn;
		if (!next_line(text, len, &pos, &ps, &pn))
			return err_set(e, -EINVAL, ERR_ADDR2LINE_OUTPUT,
				       "addr2line output, line %zu: function without a position",
				       lineno);
		lineno++;
		if (n == 2 && s[0] == '?' && s[1] == '?')
			continue; /* unknown function: the frame is dropped */
		struct attrib_frame f = {0};
		f.function = xstrndup(s, n);
		if (!f.function || a2l_position(&f, ps, pn) || chain__push_frame(c, &f)) {
			xfree(f.function);
			xfree(f.file);
			return -ENOMEM;
		}
	}
	return 0;
}

int readelf_sections__parse(const char *text, size_t len, struct module_sections *out,
			    struct err *e)
{
	memset(out, 0, sizeof(*out));
	size_t pos = 0;
	const char *s;
	size_t n;
	bool table = false;
	while (next_line(text, len, &pos, &s, &n)) {
		if (memmem(s, n, "Section Headers:", 16))
			table = true;
		const char *lb = memchr(s, '[', n), *rb = lb ? memchr(lb, ']', n - (size_t)(lb - s)) : NULL;
		if (!table || !rb)
			continue;
		const char *p = rb + 1, *end = s + n;
		while (p < end && *p == ' ')
			p++;
		const char *q = p;
		while (q < end && *q != ' ')
			q++;
		size_t k = (size_t)(q - p);
#define IS(name) (k == sizeof(name) - 1 && memcmp(p, name, k) == 0)
		out->symtab |= IS(".symtab");
		out->dynsym |= IS(".dynsym");
		out->debug_info |= IS(".debug_info") || IS(".zdebug_info");
#undef IS
	}
	if (!table)
		return err_set(e, -EINVAL, ERR_READELF_OUTPUT,
			       "readelf -S output: no \"Section Headers:\" table");
	return 0;
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
	long idx = bounded_long(s + 20, n - 20);
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
		p->dir_index = bounded_long(s + 10, n - 10);
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
	while (!rc && next_line(text, len, &pos, &s, &n)) {
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
