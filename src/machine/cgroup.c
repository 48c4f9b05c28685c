// SPDX-License-Identifier: BSD-3-Clause
// cgroup limits of this process: CPU bandwidth quota and memory cap, from
// cgroup v2 (cpu.max, memory.max), cgroup v1 (cpu.cfs_quota_us /
// cpu.cfs_period_us, memory.limit_in_bytes) or a hybrid of both (v1
// controllers plus an empty unified hierarchy, as systemd's "hybrid" mode and
// many container hosts). Everything is read below a root directory so tests
// run on fixture trees (tests/golden/cgroup/).
//
// Shapes expected (kernel 3.x .. 6.x):
//   /proc/self/cgroup     "hier-id:controller,list:/path" per line; v2 is "0::/path"
//   /proc/self/mountinfo  "id parent maj:min root mountpoint opts [tags] - fstype src superopts"
// A container without a cgroup namespace shows a host path in /proc/self/cgroup
// while its mount's root is that same path: the mount root is stripped.
#include "machine/snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"

#define SMALL_FILE_MAX (1u << 20)
/* v1 reports "no limit" as PAGE_COUNTER_MAX * page size (0x7FFFFFFFFFFFF000
 * with 4 KiB pages, slightly less with 64 KiB pages): anything this large
 * is not a cap. */
#define V1_UNLIMITED_BYTES (INT64_C(1) << 62)

struct mount {
	char *root;       /* path inside the hierarchy that is mounted */
	char *mountpoint;
};

struct cgroup_view {
	char *v2_path, *cpu_v1_path, *mem_v1_path;
	bool any_v1;
	struct mount v2, cpu_v1, mem_v1;
};

static void view__release(struct cgroup_view *v)
{
	xfree(v->v2_path), xfree(v->cpu_v1_path), xfree(v->mem_v1_path);
	xfree(v->v2.root), xfree(v->v2.mountpoint);
	xfree(v->cpu_v1.root), xfree(v->cpu_v1.mountpoint);
	xfree(v->mem_v1.root), xfree(v->mem_v1.mountpoint);
}

static char *under_root(const char *root, const char *path)
{
	return strcmp(root, "/") == 0 ? xstrdup(path) : fs_join(root, path);
}

static bool has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && memcmp(p, tok, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* One line of /proc/self/cgroup, modified in place. */
static int view__add_cgroup_line(struct cgroup_view *v, char *line)
{
	char *c1 = strchr(line, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2)
		return 0; /* not the expected shape: ignore rather than guess */
	*c1 = *c2 = '\0';
	const char *ctl = c1 + 1, *path = c2 + 1;
	char **slot = NULL;
	if (strcmp(line, "0") == 0 && *ctl == '\0') {
		slot = &v->v2_path;
	} else {
		v->any_v1 = true;
		if (has_token(ctl, "cpu"))
			slot = &v->cpu_v1_path;
		else if (has_token(ctl, "memory"))
			slot = &v->mem_v1_path;
	}
	if (!slot || *slot)
		return 0;
	*slot = xstrdup(path);
	return *slot ? 0 : -ENOMEM;
}

/* mountinfo escapes blanks and backslashes as \ooo octal. */
static void unescape_octal(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static int mount__set(struct mount *m, const char *root, const char *mp)
{
	if (m->mountpoint)
		return 0; /* first mount wins, as the kernel lists them in mount order */
	m->root = xstrdup(root);
	m->mountpoint = xstrdup(mp);
	if (!m->root || !m->mountpoint)
		return -ENOMEM;
	unescape_octal(m->root);
	unescape_octal(m->mountpoint);
	return 0;
}

static int view__add_mount_line(struct cgroup_view *v, char *line)
{
	char *f[5] = {0};
	char *save = NULL, *tok = strtok_r(line, " ", &save);
	for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save))
		f[i] = tok;
	/* Optional tag fields come next, then "-", fstype, source, superopts. */
	while (tok && strcmp(tok, "-") != 0)
		tok = strtok_r(NULL, " ", &save);
	char *fstype = tok ? strtok_r(NULL, " ", &save) : NULL;
	char *source = fstype ? strtok_r(NULL, " ", &save) : NULL;
	char *superopts = source ? strtok_r(NULL, " ", &save) : NULL;
	if (!f[4] || !fstype)
		return 0;
	if (strcmp(fstype, "cgroup2") == 0)
		return mount__set(&v->v2, f[3], f[4]);
	if (strcmp(fstype, "cgroup") != 0 || !superopts)
		return 0;
	if (has_token(superopts, "cpu")) {
		int rc = mount__set(&v->cpu_v1, f[3], f[4]);
		if (rc)
			return rc;
	}
	if (has_token(superopts, "memory"))
		return mount__set(&v->mem_v1, f[3], f[4]);
	return 0;
}

typedef int (*line_fn)(struct cgroup_view *v, char *line);

static int for_each_line(const char *root, const char *rel, struct cgroup_view *v, line_fn fn)
{
	char *path = under_root(root, rel), *text = NULL;
	if (!path)
		return -ENOMEM;
	int rc = fs_read_file(path, SMALL_FILE_MAX, &text, NULL);
	xfree(path);
	if (rc)
		return rc == -ENOMEM ? rc : 0; /* unreadable: nothing observable */
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save))
		rc = fn(v, line);
	xfree(text);
	return rc;
}

/* The directory of `path` inside the mount, under root; NULL on ENOMEM. When
 * the path is outside the mounted subtree (no cgroup namespace), or the
 * directory does not exist, the mount point itself is the closest ancestor we
 * can see. */
static char *resolve_dir(const char *root, const struct mount *m, const char *path,
			 char **top_out)
{
	const char *rel = path;
	size_t rl = strlen(m->root);
	if (strcmp(m->root, "/") != 0) {
		if (strncmp(path, m->root, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
			rel = path + rl;
		else
			rel = "";
	}
	char *top = under_root(root, m->mountpoint);
	char *dir = top ? fs_join(top, rel) : NULL;
	if (dir && !fs_exists(dir)) {
		xfree(dir);
		dir = xstrdup(top);
	}
	if (!dir) {
		xfree(top);
		return NULL;
	}
	*top_out = top;
	return dir;
}

/* Reads one limit file of dir; returns 1 and *val when a cap is present. */
typedef int (*limit_fn)(const char *dir, double *val);

static int read_words(const char *dir, const char *file, char *a, char *b, size_t sz)
{
	char *path = fs_join(dir, file), *text = NULL;
	if (!path)
		return -ENOMEM;
	int rc = fs_read_file(path, 4096, &text, NULL);
	xfree(path);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	char fmt[32];
	snprintf(fmt, sizeof(fmt), "%%%zus %%%zus", sz - 1, sz - 1);
	a[0] = b[0] = '\0';
	int n = sscanf(text, fmt, a, b);
	xfree(text);
	return n < 0 ? 0 : n;
}

static bool parse_num(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || v < 0)
		return false;
	*out = v;
	return true;
}

static int v2_cpu(const char *dir, double *val)
{
	char q[64], p[64];
	int n = read_words(dir, "cpu.max", q, p, sizeof(q));
	double qv, pv;
	if (n < 2 || strcmp(q, "max") == 0 || !parse_num(q, &qv) || !parse_num(p, &pv) || pv <= 0)
		return n < 0 ? n : 0;
	*val = qv / pv;
	return 1;
}

static int v2_mem(const char *dir, double *val)
{
	char m[64], unused[64];
	int n = read_words(dir, "memory.max", m, unused, sizeof(m));
	if (n < 1 || strcmp(m, "max") == 0 || !parse_num(m, val))
		return n < 0 ? n : 0;
	return 1;
}

static int v1_cpu(const char *dir, double *val)
{
	char q[64], p[64], unused[64];
	int n = read_words(dir, "cpu.cfs_quota_us", q, unused, sizeof(q));
	if (n < 1 || q[0] == '-') /* -1: no quota */
		return n < 0 ? n : 0;
	int m = read_words(dir, "cpu.cfs_period_us", p, unused, sizeof(p));
	double qv, pv;
	if (m < 1 || !parse_num(q, &qv) || !parse_num(p, &pv) || pv <= 0)
		return m < 0 ? m : 0;
	*val = qv / pv;
	return 1;
}

static int v1_mem(const char *dir, double *val)
{
	char m[64], unused[64];
	int n = read_words(dir, "memory.limit_in_bytes", m, unused, sizeof(m));
	if (n < 1 || !parse_num(m, val) || *val >= (double)V1_UNLIMITED_BYTES)
		return n < 0 ? n : 0;
	return 1;
}

/* Tightest cap from the process's cgroup up to the mount point: a parent's
 * limit binds every child (systemd slices, Slurm's job > step nesting). */
static int tightest(const char *root, const struct mount *m, const char *path, limit_fn fn,
		    double *best)
{
	char *top = NULL, *dir = resolve_dir(root, m, path, &top);
	if (!dir)
		return -ENOMEM;
	int found = 0, rc = 0;
	size_t top_len = strlen(top);
	for (;;) {
		double v;
		rc = fn(dir, &v);
		if (rc < 0)
			break;
		if (rc == 1 && (!found || v < *best)) {
			*best = v;
			found = 1;
		}
		char *slash = strrchr(dir, '/');
		if (strlen(dir) <= top_len || !slash || (size_t)(slash - dir) < top_len)
			break;
		*slash = '\0';
	}
	xfree(dir);
	xfree(top);
	return rc < 0 ? rc : found;
}

/* Default mount points when mountinfo is unreadable. */
static int default_mounts(const char *root, struct cgroup_view *v)
{
	static const char *const cpu_dirs[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"};
	int rc = 0;
	if (!v->v2.mountpoint)
		rc = mount__set(&v->v2, "/", "/sys/fs/cgroup");
	if (!rc && !v->mem_v1.mountpoint)
		rc = mount__set(&v->mem_v1, "/", "/sys/fs/cgroup/memory");
	for (size_t i = 0; !rc && !v->cpu_v1.mountpoint && i < 2; i++) {
		char *p = under_root(root, cpu_dirs[i]);
		if (!p)
			return -ENOMEM;
		if (fs_exists(p))
			rc = mount__set(&v->cpu_v1, "/", cpu_dirs[i]);
		xfree(p);
	}
	return rc;
}

static int read_limit(const char *root, const struct cgroup_view *v, bool cpu, double *val)
{
	const char *v1_path = cpu ? v->cpu_v1_path : v->mem_v1_path;
	const struct mount *v1m = cpu ? &v->cpu_v1 : &v->mem_v1;
	/* A controller attached to a v1 hierarchy is absent from the unified one. */
	if (v1_path && v1m->mountpoint)
		return tightest(root, v1m, v1_path, cpu ? v1_cpu : v1_mem, val);
	if (v->v2_path && v->v2.mountpoint)
		return tightest(root, &v->v2, v->v2_path, cpu ? v2_cpu : v2_mem, val);
	return 0;
}

int allocation_read_cgroup(const char *root, struct allocation *a, struct err *e)
{
	struct cgroup_view v = {0};
	a->has_cpu_quota = false;
	a->cpu_quota = 0;
	a->memory_limit_bytes = -1;
	zfree(&a->cgroup);
	int rc = for_each_line(root, "/proc/self/cgroup", &v, view__add_cgroup_line);
	if (!rc)
		rc = for_each_line(root, "/proc/self/mountinfo", &v, view__add_mount_line);
	if (!rc)
		rc = default_mounts(root, &v);
	double cpu = 0, mem = 0;
	int has_cpu = rc ? rc : read_limit(root, &v, true, &cpu);
	int has_mem = has_cpu < 0 ? has_cpu : read_limit(root, &v, false, &mem);
	rc = has_mem < 0 ? has_mem : 0;
	if (rc)
		goto out;
	if (has_cpu) {
		a->has_cpu_quota = true;
		a->cpu_quota = cpu;
	}
	if (has_mem)
		a->memory_limit_bytes = (int64_t)mem;
	if (v.any_v1 || v.v2_path) {
		a->cgroup = xstrdup(v.any_v1 && v.v2_path ? "hybrid" : v.any_v1 ? "v1" : "v2");
		if (!a->cgroup)
			rc = -ENOMEM;
	}
out:
	view__release(&v);
	if (rc)
		err_set(e, rc, ERR_OOM, "out of memory reading cgroup limits");
	return rc;
}
