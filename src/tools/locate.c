// SPDX-License-Identifier: BSD-3-Clause
#include "tools/locate.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "exec/exec.h"
#include "tools/version.h"

#define SYMBOLIZER "llvm-symbolizer"

struct cand {
	char *path;
	int n; /* version from the directory or suffix, for ordering */
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static int cands__add(struct cands *c, char *path_take, int n)
{
	if (!path_take)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].path, path_take) == 0) {
			xfree(path_take);
			return 0;
		}
	if (xgrow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v))) {
		xfree(path_take);
		return -ENOMEM;
	}
	c->v[c->n].path = path_take;
	c->v[c->n++].n = n;
	return 0;
}

static int cand_newest_first(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	return (y->n > x->n) - (y->n < x->n);
}

/* Existing files `dir/<prefix>N<suffix>` (N numeric), newest N first. */
static int glob_versions(struct cands *out, const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct cands found = {0};
	struct dirent *de;
	size_t plen = strlen(prefix);
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		char *end;
		long n = strtol(de->d_name + plen, &end, 10);
		if (end == de->d_name + plen || strcmp(end, "") != 0 || n <= 0)
			continue;
		char *path = xasprintf("%s/%s%s", dir, de->d_name, suffix);
		if (path && access(path, X_OK) != 0) {
			xfree(path);
			continue;
		}
		rc = cands__add(&found, path, (int)n);
	}
	closedir(d);
	if (found.n)
		qsort(found.v, found.n, sizeof(*found.v), cand_newest_first);
	for (size_t i = 0; i < found.n; i++) {
		if (!rc)
			rc = cands__add(out, found.v[i].path, found.v[i].n);
		else
			xfree(found.v[i].path);
	}
	xfree(found.v);
	return rc;
}

static int candidates(struct cands *c, const char *configured, const struct attrib_locate_roots *r)
{
	int rc = 0;
	if (configured && *configured)
		rc = cands__add(c, xstrdup(configured), 0);
	if (!rc) /* bare name: the executor resolves PATH (and a replay serves it) */
		rc = cands__add(c, xstrdup(SYMBOLIZER), 0);
	if (!rc)
		rc = glob_versions(c, r->lib, "llvm-", "/bin/" SYMBOLIZER);
	if (!rc)
		rc = glob_versions(c, r->bin, SYMBOLIZER "-", "");
	return rc;
}

static bool same_file(const char *a, const struct stat *b)
{
	struct stat st;
	return stat(a, &st) == 0 && st.st_dev == b->st_dev && st.st_ino == b->st_ino;
}

/*
 * Each `--version` probe is a start of the tool (~20 ms of libLLVM loading),
 * paid by every Run with an empty tool cache. PATH's llvm-symbolizer is often
 * a link into one of the versioned installs found beside it (Debian 12:
 * /usr/bin/llvm-symbolizer -> /usr/lib/llvm-14/bin, with llvm-19 installed):
 * when it is the same file as an install numbered below the minimum while
 * one numbered at or above it exists, probing it first would only find it
 * older and go on to that one. So it moves after the candidates numbered at
 * or above the minimum, still before every other one: the choice is the
 * same (the first that answers at or above the minimum, else the first with
 * the highest version), with one probe instead of two. This trusts the
 * directory's number as the glob's newest-first order already does. Live
 * only: a replay serves the recorded answers in the recorded order, whatever
 * this machine's links are. c->v[bare] is the bare name.
 */
static void defer_old_path_tool(struct cands *c, size_t bare, const char *path_env)
{
	size_t newer = 0;
	for (size_t i = bare + 1; i < c->n; i++)
		newer += c->v[i].n >= ATTRIB_LLVM_MINIMUM;
	char *found = NULL;
	struct stat st;
	if (!newer || exec_which_in(SYMBOLIZER, path_env, &found) != 0 || stat(found, &st) != 0) {
		xfree(found);
		return;
	}
	xfree(found);
	bool old = false;
	for (size_t i = bare + 1; !old && i < c->n; i++)
		old = c->v[i].n > 0 && c->v[i].n < ATTRIB_LLVM_MINIMUM && same_file(c->v[i].path, &st);
	if (!old)
		return;
	/* [newer..., bare, the rest...]: the tail partitioned, order kept */
	struct cand *v = xcalloc(c->n, sizeof(*v));
	if (!v)
		return; /* the original order: one probe more */
	size_t w = 0;
	for (size_t i = 0; i < bare; i++)
		v[w++] = c->v[i];
	for (size_t i = bare + 1; i < c->n; i++)
		if (c->v[i].n >= ATTRIB_LLVM_MINIMUM)
			v[w++] = c->v[i];
	v[w++] = c->v[bare];
	for (size_t i = bare + 1; i < c->n; i++)
		if (c->v[i].n < ATTRIB_LLVM_MINIMUM)
			v[w++] = c->v[i];
	memcpy(c->v, v, c->n * sizeof(*v));
	xfree(v);
}

/* The major version in "… LLVM version 19.1.7 …", or 0. */
static int llvm_major(const char *out)
{
	const char *p = out ? strstr(out, "LLVM version ") : NULL;
	if (!p)
		return 0;
	p += 13;
	char *end;
	long v = strtol(p, &end, 10);
	return end > p && *end == '.' && v > 0 && v < 1000 ? (int)v : 0;
}

/* First line of s, malloc'd ("" when empty), trimmed of the tool name line. */
static char *version_line(const char *s, const char *needle)
{
	const char *p = s ? strstr(s, needle) : NULL;
	if (!p)
		p = s ? s : "";
	while (p > s && p[-1] != '\n')
		p--;
	size_t n = strcspn(p, "\n");
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\r'))
		n--;
	while (n && *p == ' ')
		p++, n--;
	return xstrndup(p, n);
}

static int probe(struct executor *x, const char *path, struct exec_result *res, struct err *e)
{
	const char *argv[3];
	tool_argv_version(argv, path);
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				   .timeout_s = 10, .cacheable = true};
	memset(res, 0, sizeof(*res));
	return executor__run(x, &req, res, e);
}

char *attrib_sibling(const char *symbolizer_path, const char *tool)
{
	const char *base = strrchr(symbolizer_path, '/');
	size_t dirlen = base ? (size_t)(base + 1 - symbolizer_path) : 0;
	base = base ? base + 1 : symbolizer_path;
	const char *suffix = strncmp(base, SYMBOLIZER, strlen(SYMBOLIZER)) == 0 ?
				     base + strlen(SYMBOLIZER) : "";
	return xasprintf("%.*s%s%s", (int)dirlen, symbolizer_path, tool, suffix);
}

static const char *llvm_cost(int major)
{
	if (major >= ATTRIB_LLVM_MINIMUM)
		return NULL;
	/* Measured with LLVM 14 (Debian 12): the JSON is otherwise the same,
	 * StartAddress and StartLine included; sized symbols are honoured. */
	return "older than LLVM 17: llvm-symbolizer names an address after a preceding "
	       "zero-size symbol (such as _init or _fini); nunatak re-checks every symbol-table "
	       "name against the ELF symbol extents, so nothing is lost while the profiled "
	       "modules are readable on this machine";
}

static int try_addr2line(struct executor *x, const char *configured, struct attrib_tools *out,
			 struct err *e)
{
	const char *path = configured && *configured ? configured : "addr2line";
	struct exec_result res;
	int rc = probe(x, path, &res, e);
	if (rc)
		return rc;
	if (res.exit_code == 0 && res.out && strstr(res.out, "GNU addr2line")) {
		out->tool = ATTRIB_TOOL_ADDR2LINE;
		out->path = xstrdup(path);
		out->version = version_line(res.out, "GNU addr2line");
		out->cost = "GNU addr2line stands in for llvm-symbolizer: no declaration lines "
			    "(extracts start at the sampled lines), no line-table staleness check, "
			    "one process per module all the same";
		rc = out->path && out->version ? 0 : -ENOMEM;
	}
	exec_result__release(&res);
	return rc;
}

int attrib_locate(struct executor *x, const char *configured_llvm, const char *configured_addr2line,
		  struct attrib_tools *out, struct err *e)
{
	static const struct attrib_locate_roots sys = {.lib = "/usr/lib", .bin = "/usr/bin"};
	return attrib_locate_in(x, configured_llvm, configured_addr2line, &sys, out, e);
}

int attrib_locate_in(struct executor *x, const char *configured_llvm,
		     const char *configured_addr2line, const struct attrib_locate_roots *roots,
		     struct attrib_tools *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	struct cands c = {0};
	int rc = candidates(&c, configured_llvm, roots);
	/* config__tool answers the bare name when nothing is configured */
	bool configured = configured_llvm && *configured_llvm && strcmp(configured_llvm, SYMBOLIZER);
	if (!rc && !configured && c.n && !executor__recorded_meta(x))
		defer_old_path_tool(&c, 0, roots->path_env);
	/* The first that answers, unless it is older than the minimum and was
	 * not configured: then a newer versioned install beside it wins (Debian
	 * 12's PATH llvm-symbolizer is LLVM 14 while llvm-19 sits in
	 * /usr/lib/llvm-19/bin, where scripts/deps.sh puts it). */
	for (size_t i = 0; !rc && i < c.n; i++) {
		if (out->tool == ATTRIB_TOOL_LLVM &&
		    ((configured && i == 1) || out->major >= ATTRIB_LLVM_MINIMUM))
			break;
		struct exec_result res;
		if ((rc = probe(x, c.v[i].path, &res, e)))
			break;
		int major = res.exit_code == 0 ? llvm_major(res.out) : 0;
		if (major > out->major) {
			attrib_tools__release(out);
			out->tool = ATTRIB_TOOL_LLVM;
			out->major = major;
			out->path = xstrdup(c.v[i].path);
			out->version = version_line(res.out, "LLVM version");
			out->readelf = attrib_sibling(c.v[i].path, "llvm-readelf");
			out->dwarfdump = attrib_sibling(c.v[i].path, "llvm-dwarfdump");
			out->cost = llvm_cost(major);
			if (!out->path || !out->version || !out->readelf || !out->dwarfdump)
				rc = -ENOMEM;
		}
		exec_result__release(&res);
	}
	for (size_t i = 0; i < c.n; i++)
		xfree(c.v[i].path);
	xfree(c.v);
	if (!rc && out->tool == ATTRIB_TOOL_NONE)
		rc = try_addr2line(x, configured_addr2line, out, e);
	if (rc)
		attrib_tools__release(out);
	return rc;
}

void attrib_tools__release(struct attrib_tools *t)
{
	xfree(t->path);
	xfree(t->version);
	xfree(t->readelf);
	xfree(t->dwarfdump);
	memset(t, 0, sizeof(*t));
}

int attrib_tools__degradation(const struct attrib_tools *t, const char **name, char **message,
			      char **remedy)
{
	*message = *remedy = NULL;
	*name = DEG_LLVM_MISSING;
	if (t->tool == ATTRIB_TOOL_LLVM)
		return 0;
	if (t->tool == ATTRIB_TOOL_ADDR2LINE)
		*message = xstrdup("llvm-symbolizer not found: GNU addr2line stands in (no "
				   "declaration lines, no source staleness check)");
	else
		*message = xstrdup("no symbolizer found (llvm-symbolizer, addr2line): Hotspots "
				   "stay unresolved, shown as module+0x…");
	/* The versioned package: Debian 12's plain `llvm` is LLVM 14. */
	*remedy = xasprintf("install LLVM %d or newer (Debian/Ubuntu: apt-get install llvm-%d), "
			    "or set [tools] llvm-symbolizer in nunatak.toml",
			    ATTRIB_LLVM_RECOMMENDED, ATTRIB_LLVM_RECOMMENDED);
	if (!*message || !*remedy) {
		zfree(message);
		zfree(remedy);
		return -ENOMEM;
	}
	return 1;
}
