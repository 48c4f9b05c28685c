// SPDX-License-Identifier: BSD-3-Clause
/*
 * Source extracts: one per (Hotspot, file), never a whole file. The true end
 * of a function is not in the line table, so an extract runs from the
 * earliest declaration or sampled line to the last sampled line, plus
 * context, capped with the truncation marked. A file that cannot be resolved,
 * or resolves ambiguously, or changed since the build, yields an extract
 * without text and with the reason: a wrong file shown confidently would be
 * worse than none.
 *
 * A file found by its name alone (the recorded path is absent and no source
 * map covers it) may be another file of that name (issue 24): it is embedded
 * only when something in the binary vouches for it, the line table's MD5
 * when the compiler wrote one (clang; GCC 12 writes none), else the
 * declaration line of a function of the Hotspot, which must name that
 * function in the file found. Otherwise the reason says why it was not
 * embedded and how to point at the right directory (--source-map).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/internal.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/md5.h"

#define CONTEXT_LINES 3
#define MAX_EXTRACT_LINES 200
/* Bounds the basename search in a huge tree: a bounded walk that gives up
 * says "not found" rather than stalling the run. */
#define MAX_WALK_ENTRIES 500000

#define REASON_STALE "source file changed since the profiled binary was built (line-table MD5 mismatch)"
#define REASON_MISSING "source file not found on this machine"

struct group {
	int64_t hotspot;
	const char *file; /* borrowed from the pivot's frames */
	int first, last;
	const char *function; /* a function declared in file (borrowed), or NULL */
	int declaration_line;
};

/* How resolve() found a file. */
enum found { FOUND_RECORDED, FOUND_MAPPED, FOUND_BY_NAME };

struct basename_hit {
	char *name;
	size_t count;
	char *first;
};

struct index {
	struct basename_hit *v;
	size_t n;
	char *root;
	bool built;
};

char *attrib_source_map_apply(const struct attrib_opts *o, const char *path)
{
	size_t best = 0;
	const struct attrib_source_map *hit = NULL;
	for (size_t i = 0; o && i < o->nr_source_map; i++) {
		const struct attrib_source_map *m = &o->source_map[i];
		size_t n = m->from ? strlen(m->from) : 0;
		if (!n || strncmp(path, m->from, n) != 0)
			continue;
		/* a prefix must end at a path component boundary */
		if (path[n] != '\0' && path[n] != '/' && m->from[n - 1] != '/')
			continue;
		if (n >= best) {
			best = n;
			hit = m;
		}
	}
	return hit ? xasprintf("%s%s", hit->to, path + best) : NULL;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static struct basename_hit *index__find(struct index *ix, const char *name)
{
	for (size_t i = 0; i < ix->n; i++)
		if (strcmp(ix->v[i].name, name) == 0)
			return &ix->v[i];
	return NULL;
}

/* One walk of the root for every basename needed: dot-dirs (.git, .nunatak
 * …) and symlinked directories are skipped. */
static int index__build(struct index *ix)
{
	char **stack = NULL;
	size_t depth = 0, cap = 0, visited = 0;
	int rc = 0;
	ix->built = true;
	char *root = xstrdup(ix->root);
	if (!root || xgrow((void **)&stack, &cap, 1, sizeof(*stack))) {
		xfree(root);
		return -ENOMEM;
	}
	stack[depth++] = root;
	while (depth && !rc && visited < MAX_WALK_ENTRIES) {
		char *dir = stack[--depth];
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && !rc && (de = readdir(d)) && visited++ < MAX_WALK_ENTRIES) {
			if (de->d_name[0] == '.')
				continue;
			/* the type readdir gives spares a stat per entry (two per
			 * file before): a regular file is only looked up by name,
			 * a directory only descended; a symbolic link or a file
			 * system that gives no type is asked as before */
			struct basename_hit *h = NULL;
			unsigned char t = de->d_type;
			if (t == DT_REG && !(h = index__find(ix, de->d_name)))
				continue;
			if (t != DT_REG && t != DT_DIR && t != DT_LNK && t != DT_UNKNOWN)
				continue; /* a fifo, socket or device: never a source */
			char *path = xasprintf("%s/%s", dir, de->d_name);
			struct stat st;
			if (!path) {
				rc = -ENOMEM;
			} else if (t == DT_REG) {
				if (h->count++ == 0)
					h->first = path, path = NULL;
			} else if (t == DT_DIR || (t == DT_UNKNOWN && lstat(path, &st) == 0 &&
						   S_ISDIR(st.st_mode))) {
				if (!xgrow((void **)&stack, &cap, depth + 1, sizeof(*stack))) {
					stack[depth++] = path;
					path = NULL;
				} else {
					rc = -ENOMEM;
				}
			} else if ((h = index__find(ix, de->d_name)) && is_file(path)) {
				if (h->count++ == 0)
					h->first = path, path = NULL;
			}
			xfree(path);
		}
		if (d)
			closedir(d);
		xfree(dir);
	}
	while (depth)
		xfree(stack[--depth]);
	xfree(stack);
	return rc;
}

static void index__release(struct index *ix)
{
	for (size_t i = 0; i < ix->n; i++) {
		xfree(ix->v[i].name);
		xfree(ix->v[i].first);
	}
	xfree(ix->v);
	xfree(ix->root);
}

/* Where the text of `file` is on this machine; *reason set when nowhere. */
static int resolve(struct index *ix, const struct attrib_opts *o, const char *file, char **path,
		   char **reason, enum found *how)
{
	*path = *reason = NULL;
	*how = FOUND_RECORDED;
	if (is_file(file))
		return (*path = xstrdup(file)) ? 0 : -ENOMEM;
	char *mapped = attrib_source_map_apply(o, file);
	*how = FOUND_MAPPED;
	if (mapped && is_file(mapped)) {
		*path = mapped;
		return 0;
	}
	*how = FOUND_BY_NAME;
	xfree(mapped);
	if (!ix->built) {
		int rc = index__build(ix);
		if (rc)
			return rc;
	}
	const struct basename_hit *h = index__find(ix, base_of(file));
	if (h && h->count == 1)
		*path = xstrdup(h->first);
	else if (h && h->count > 1)
		*reason = xasprintf("ambiguous: %zu files named '%s' under %s", h->count,
				    base_of(file), ix->root);
	else
		*reason = xstrdup(REASON_MISSING);
	return *path || *reason ? 0 : -ENOMEM;
}

/* Lines [first, last] of path into *text; *end_line = the last line read.
 * Returns 0, -ENOMEM, or -errno when the file cannot be read. */
static int read_lines(const char *path, int first, int last, int *end_line, char **text)
{
	*text = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	char *buf = xstrdup(""), *line = NULL;
	size_t len = 0, cap = buf ? 1 : 0, lcap = 0;
	ssize_t n;
	int no = 0, rc = buf ? 0 : -ENOMEM;
	*end_line = first - 1;
	while (!rc && (n = getline(&line, &lcap, f)) >= 0 && ++no <= last) {
		if (no < first)
			continue;
		if (xgrow((void **)&buf, &cap, len + (size_t)n + 2, 1)) {
			rc = -ENOMEM;
			break;
		}
		memcpy(buf + len, line, (size_t)n);
		len += (size_t)n;
		if (buf[len - 1] != '\n')
			buf[len++] = '\n';
		buf[len] = '\0';
		*end_line = no;
	}
	if (!rc && ferror(f))
		rc = -EIO;
	free(line); /* getline's buffer comes from libc */
	fclose(f);
	if (rc)
		xfree(buf);
	else
		*text = buf;
	return rc;
}

static const char *module_md5(const struct pivot *p, int64_t hotspot,
			      const struct attrib_module_sums *ms, size_t nr_ms, const char *file)
{
	const char *module = p->hotspots[hotspot].module;
	for (size_t i = 0; module && i < nr_ms; i++)
		if (ms[i].module && strcmp(ms[i].module, module) == 0)
			return line_checksums__find(&ms[i].sums, file);
	return NULL;
}

/* Whether `line` names the function: its identifier (C++ scopes, arguments
 * and templates stripped) as a whole word; an OpenMP outlined function is
 * declared at its pragma. */
static bool line_names(const char *line, const char *function)
{
	if (strstr(function, "._omp_fn.") || !strncmp(function, ".omp_outlined.", 14))
		return strstr(line, "omp") != NULL;
	char id[256];
	size_t n = strcspn(function, "(<");
	const char *b = function;
	for (const char *q = function; q + 1 < function + n; q++)
		if (q[0] == ':' && q[1] == ':')
			b = q + 2;
	n -= (size_t)(b - function);
	if (n == 0 || n >= sizeof(id))
		return false;
	memcpy(id, b, n);
	id[n] = '\0';
	for (const char *q = line; (q = strstr(q, id)); q += n) {
		bool before = q > line && (isalnum((unsigned char)q[-1]) || q[-1] == '_');
		bool after = isalnum((unsigned char)q[n]) || q[n] == '_';
		if (!before && !after)
			return true;
	}
	return false;
}

/* A file found by name alone: embedded when the line table's MD5 vouched
 * (checked by the caller: want) or its declaration line names the function;
 * else the reason why not. */
static char *unproven(const struct group *g, const char *path, bool md5)
{
	if (md5)
		return NULL;
	if (!g->function || g->declaration_line <= 0)
		return xasprintf("not embedded: %s has the name of the binary's %s but nothing proves "
				 "it is that file (no line-table MD5, no declaration line to "
				 "check); point at the right directory with --source-map OLD=NEW",
				 path, g->file);
	int end = 0;
	char *decl = NULL;
	if (read_lines(path, g->declaration_line, g->declaration_line, &end, &decl) == 0 &&
	    end == g->declaration_line && line_names(decl, g->function)) {
		xfree(decl);
		return NULL;
	}
	xfree(decl);
	return xasprintf("not embedded: %s has the name of the binary's %s but its line %d does "
			 "not declare %s as the binary's line table says: another file of that "
			 "name, or one changed since the build; point at the right directory with "
			 "--source-map OLD=NEW",
			 path, g->file, g->declaration_line, g->function);
}

static int extract_one(struct pivot *p, struct index *ix, const struct attrib_opts *o,
		       const struct group *g, const struct attrib_module_sums *ms, size_t nr_ms)
{
	enum found how;
	struct extract x = {.hotspot = g->hotspot, .file = (char *)g->file};
	x.start_line = g->first - CONTEXT_LINES > 1 ? g->first - CONTEXT_LINES : 1;
	x.end_line = g->last + CONTEXT_LINES;
	if (x.end_line - x.start_line + 1 > MAX_EXTRACT_LINES) {
		x.end_line = x.start_line + MAX_EXTRACT_LINES - 1;
		x.truncated = true;
	}
	int rc = resolve(ix, o, g->file, &x.resolved_path, &x.reason, &how);
	if (rc)
		return rc;
	const char *want = x.resolved_path ? module_md5(p, g->hotspot, ms, nr_ms, g->file) : NULL;
	char have[MD5_HEX_SIZE];
	if (want && md5_file_hex(x.resolved_path, have) == 0 && strcmp(want, have) != 0) {
		x.reason = xstrdup(REASON_STALE);
	} else if (x.resolved_path && how == FOUND_BY_NAME &&
		   (x.reason = unproven(g, x.resolved_path, want != NULL))) {
		/* withheld: the reason says why */
	} else if (x.resolved_path) {
		int end = 0;
		rc = read_lines(x.resolved_path, x.start_line, x.end_line, &end, &x.text);
		if (rc == -ENOMEM)
			goto out;
		if (rc)
			x.reason = xasprintf("%s: %s", x.resolved_path, strerror(-rc));
		else if (end >= x.start_line && end < x.end_line)
			x.end_line = end; /* the file is shorter than the context asked */
	}
	if (!x.text && !x.reason) /* a reason or a text always: only allocation can miss both */
		rc = -ENOMEM;
	else
		rc = pivot__add_extract(p, &x) < 0 ? -ENOMEM : 0;
out:
	xfree(x.resolved_path);
	xfree(x.reason);
	xfree(x.text);
	return rc;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->hotspot != y->hotspot)
		return x->hotspot < y->hotspot ? -1 : 1;
	return strcmp(x->file, y->file);
}

#define OMP_PRAGMA_LINES 8

/* (Hotspot, file) groups with their line range: min/max of line and
 * declaration line over every frame that names the file. */
static int collect_groups(const struct pivot *p, struct group **out, size_t *nr)
{
	struct group *g = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];
		if (!f->file || f->hotspot < 0 || (f->line <= 0 && f->declaration_line <= 0))
			continue;
		int lo = f->line > 0 ? f->line : f->declaration_line;
		int hi = lo;
		if (f->declaration_line > 0 && f->declaration_line < lo)
			lo = f->declaration_line;
		if (f->declaration_line > hi)
			hi = f->declaration_line;
		size_t k = 0;
		for (k = n; k > 0; k--) /* frames of one Hotspot are contiguous */
			if (g[k - 1].hotspot == f->hotspot && strcmp(g[k - 1].file, f->file) == 0)
				break;
		if (k == 0) {
			if (xgrow((void **)&g, &cap, n + 1, sizeof(*g))) {
				xfree(g);
				return -ENOMEM;
			}
			g[n++] = (struct group){.hotspot = f->hotspot, .file = f->file,
						.first = lo, .last = hi};
			k = n;
		}
		g[k - 1].first = lo < g[k - 1].first ? lo : g[k - 1].first;
		g[k - 1].last = hi > g[k - 1].last ? hi : g[k - 1].last;
		/* a function whose declaration can vouch for a file found by name */
		if (!g[k - 1].function && f->function && f->declaration_line > 0) {
			g[k - 1].function = f->function;
			g[k - 1].declaration_line = f->declaration_line;
		}
	}

	/* An OpenMP region's outlined function (GCC's <parent>._omp_fn.N, clang's
	 * .omp_outlined.) starts
	 * below its `#pragma omp parallel`: a few lines more above its code, so
	 * the extract holds the pragma (analysis/openmp.h reads its line). */
	for (size_t i = 0; i < n; i++) {
		const char *name = p->hotspots[g[i].hotspot].name;
		if (name && (strstr(name, "._omp_fn.") || !strncmp(name, ".omp_outlined.", 14)))
			g[i].first = g[i].first > OMP_PRAGMA_LINES ? g[i].first - OMP_PRAGMA_LINES : 1;
	}
	if (n)
		qsort(g, n, sizeof(*g), group_cmp);
	*out = g;
	*nr = n;
	return 0;
}

int attrib_extract_sources(struct pivot *p, const struct attrib_opts *o,
			   const struct attrib_module_sums *ms, size_t nr_ms, struct err *e)
{
	struct group *g = NULL;
	size_t n = 0;
	struct index ix = {0};
	char cwd[PATH_MAX];
	int rc = collect_groups(p, &g, &n);
	if (!rc && n) {
		ix.root = xstrdup(o && o->root ? o->root : getcwd(cwd, sizeof(cwd)) ? cwd : ".");
		ix.v = xcalloc(n, sizeof(*ix.v));
		rc = ix.root && ix.v ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !rc && i < n; i++) { /* the basenames the walk looks for */
		if (index__find(&ix, base_of(g[i].file)))
			continue;
		if (!(ix.v[ix.n].name = xstrdup(base_of(g[i].file))))
			rc = -ENOMEM;
		else
			ix.n++;
	}
	/* the group's file strings are the frames' own; adding extracts does not
	 * move the frames array */
	for (size_t i = 0; !rc && i < n; i++)
		rc = extract_one(p, &ix, o, &g[i], ms, nr_ms);
	index__release(&ix);
	xfree(g);
	if (rc)
		err_set(e, rc, ERR_OOM, "source extraction: out of memory");
	return rc;
}
