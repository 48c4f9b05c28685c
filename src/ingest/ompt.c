// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/ompt.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/safefs.h"
#include "model/model.h"

#define OMPT_MAX_SITES 4096       /* the tool writes at most 64 */
#define OMPT_MAX_FILE (64u << 20) /* 64 MiB: far beyond 64 sites x threads */

struct site_def {
	bool set;
	uint64_t vaddr;
	char *module; /* owned */
};

struct row {
	int64_t tid;
	int site, thread_num;
	int64_t calls, task_ns, wait_ns;
};

struct parse {
	const char *path;
	int line;
	int64_t pid;
	int rank;
	char *node; /* owned: the file's, when the caller gave none */
	struct site_def sites[OMPT_MAX_SITES];
	struct row *rows;
	size_t nr_rows, cap_rows;
	bool ended;
};

static int bad(struct parse *ps, struct err *e, const char *expected)
{
	return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s:%d: expected %s", ps->path, ps->line,
		       expected);
}

/* A decimal integer (optionally negative) or, with hex, hexadecimal digits,
 * ending at a space or the end; *s advances past it and one space. */
static bool field(const char **s, bool hex, bool neg_ok, int64_t *out)
{
	const char *p = *s;
	bool neg = neg_ok && *p == '-';
	p += neg;
	uint64_t v = 0, base = hex ? 16 : 10;
	const char *start = p;
	for (; *p && *p != ' '; p++) {
		int d = *p >= '0' && *p <= '9'	  ? *p - '0'
			: hex && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
							: -1;
		if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / base)
			return false;
		v = v * base + (uint64_t)d;
	}
	if (p == start || (!hex && v > (uint64_t)INT64_MAX))
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*s = *p ? p + 1 : p;
	return true;
}

static int site_line(struct parse *ps, const char *s, struct err *e)
{
	int64_t idx, vaddr;
	if (!field(&s, false, false, &idx) || idx >= OMPT_MAX_SITES || !field(&s, true, false, &vaddr) ||
	    !*s)
		return bad(ps, e, "`site <index 0..4095> <hex address> <module>`");
	struct site_def *d = &ps->sites[idx];
	if (d->set)
		return bad(ps, e, "each site once");
	d->set = true;
	d->vaddr = (uint64_t)vaddr;
	return (d->module = xstrdup(s)) ? 0 : -ENOMEM;
}

static int row_line(struct parse *ps, const char *s, struct err *e)
{
	int64_t v[6];
	for (int i = 0; i < 6; i++)
		if (!field(&s, false, i == 2, &v[i]))
			return bad(ps, e, "`row <tid> <site> <thread number> <calls> <task ns> <wait ns>`");
	if (*s || v[1] >= OMPT_MAX_SITES || v[2] < -1 || v[2] > INT32_MAX || v[0] <= 0)
		return bad(ps, e, "`row <tid> <site> <thread number> <calls> <task ns> <wait ns>`");
	if (v[5] > v[4])
		return bad(ps, e, "a wait no longer than the task that holds it");
	if (xgrow((void **)&ps->rows, &ps->cap_rows, ps->nr_rows + 1, sizeof(*ps->rows)))
		return -ENOMEM;
	ps->rows[ps->nr_rows++] = (struct row){.tid = v[0], .site = (int)v[1], .thread_num = (int)v[2],
					       .calls = v[3], .task_ns = v[4], .wait_ns = v[5]};
	return 0;
}

static int one_line(struct parse *ps, const char *s, struct err *e)
{
	int64_t v;
	if (ps->ended)
		return bad(ps, e, "nothing after `end`");
	if (ps->line == 1)
		return strcmp(s, "nunatak-ompt 1") ? bad(ps, e, "`nunatak-ompt 1` (an OMPT profile)") : 0;
	if (!strncmp(s, "pid ", 4)) {
		s += 4;
		return field(&s, false, false, &ps->pid) && !*s && ps->pid > 0 ? 0 : bad(ps, e, "`pid <n>`");
	}
	if (!strncmp(s, "rank ", 5)) {
		s += 5;
		bool ok = field(&s, false, false, &v) && !*s && v <= INT32_MAX;
		ps->rank = ok ? (int)v : -1;
		return ok ? 0 : bad(ps, e, "`rank <n>`");
	}
	if (!strncmp(s, "node ", 5)) {
		if (!s[5] || ps->node)
			return bad(ps, e, "one `node <name>`");
		return (ps->node = xstrdup(s + 5)) ? 0 : -ENOMEM;
	}
	if (!strncmp(s, "runtime ", 8))
		return 0;
	if (!strncmp(s, "site ", 5))
		return site_line(ps, s + 5, e);
	if (!strncmp(s, "row ", 4))
		return row_line(ps, s + 4, e);
	if (!strncmp(s, "dropped ", 8)) {
		s += 8;
		return field(&s, false, false, &v) && !*s ? 0 : bad(ps, e, "`dropped <n>`");
	}
	if (!strcmp(s, "end"))
		return ps->ended = true, 0;
	return bad(ps, e, "one of pid, rank, node, runtime, site, row, dropped, end");
}

static int lines(struct parse *ps, const char *text, size_t len, struct err *e)
{
	char buf[8192];
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		ps->line++;
		if (!nl)
			return bad(ps, e, "a line ending in a newline (the file is cut short)");
		if (n >= sizeof(buf) || memchr(text + i, '\0', n))
			return bad(ps, e, "a line of text shorter than 8 KiB");
		memcpy(buf, text + i, n);
		buf[n] = '\0';
		rc = one_line(ps, buf, e);
		i += n + 1;
	}
	if (rc == 0 && !ps->ended)
		rc = ps->line == 0 ? bad(ps, e, "`nunatak-ompt 1` (the file is empty)")
				   : bad(ps, e, "`end` (the file is cut short)");
	return rc;
}

static int emit(struct parse *ps, const char *node, struct pivot *p, struct err *e)
{
	for (size_t i = 0; i < ps->nr_rows; i++)
		if (!ps->sites[ps->rows[i].site].set) {
			ps->line = 0;
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				       "%s: row of thread %lld names site %d, which no `site` line defines",
				       ps->path, (long long)ps->rows[i].tid, ps->rows[i].site);
		}
	for (size_t i = 0; i < ps->nr_rows; i++) {
		const struct row *r = &ps->rows[i];
		int64_t locus = pivot__intern_locus(p, node ? node : ps->node, ps->rank, r->tid);
		if (locus < 0)
			return err_oom(e);
		if (p->loci[locus].pid == 0)
			p->loci[locus].pid = ps->pid;
		const struct site_def *d = &ps->sites[r->site];
		struct omp_site o = {.locus = locus, .module = d->module, .address = d->vaddr,
				     .thread_num = r->thread_num, .calls = r->calls,
				     .task_ns = r->task_ns, .wait_ns = r->wait_ns};
		if (pivot__add_omp_site(p, &o) < 0)
			return err_oom(e);
	}
	return 0;
}

int ompt_parse(const char *text, size_t len, const char *path, const char *node,
	       struct pivot *p, struct err *e)
{
	struct parse *ps = xcalloc(1, sizeof(*ps));
	if (!ps)
		return err_oom(e);
	ps->path = path;
	ps->rank = -1;
	int rc = lines(ps, text, len, e);
	if (rc == -ENOMEM)
		err_oom(e);
	if (rc == 0 && (ps->pid <= 0 || (!node && !ps->node)))
		rc = bad(ps, e, ps->pid <= 0 ? "a `pid` line" : "a `node` line");
	if (rc == 0)
		rc = emit(ps, node, p, e);
	for (size_t i = 0; i < OMPT_MAX_SITES; i++)
		xfree(ps->sites[i].module);
	xfree(ps->rows);
	xfree(ps->node);
	xfree(ps);
	return rc;
}

static bool is_profile(const char *name)
{
	size_t l = strlen(name);
	return !strncmp(name, "ompt.", 5) && l > 9 && !strcmp(name + l - 4, ".txt");
}

static int one_file(const char *path, const char *node, struct pivot *p, struct degradations *d,
		    int *nr, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	int rc = safefs_read_regular(path, OMPT_MAX_FILE, &text, &len);
	struct err pe = {0};
	if (rc == 0)
		rc = ompt_parse(text, len, path, node, p, &pe);
	else
		err_set(&pe, rc, ERR_RUN_UNREADABLE, "%s: %s", path, safefs_strerror(rc));
	xfree(text);
	if (rc == -ENOMEM)
		return err_oom(e);
	if (rc == 0) {
		(*nr)++;
		return 0;
	}
	char *msg = xasprintf("the OMPT tool's profile is left out: %s", pe.msg);
	rc = msg ? degradations__add(d, DEG_OPENMP_TOOL_UNREADABLE, msg,
				     DEG_OPENMP_TOOL_UNREADABLE_REMEDY) : -ENOMEM;
	xfree(msg);
	return rc < 0 ? err_oom(e) : 0;
}

int ingest_ompt(const char *dir, const char *node, struct pivot *p, struct degradations *d,
		int *nr_files, struct err *e)
{
	*nr_files = 0;
	struct dirent **list = NULL;
	int m = scandir(dir, &list, NULL, alphasort);
	int rc = 0;
	for (int i = 0; i < m; i++) {
		if (rc == 0 && is_profile(list[i]->d_name)) {
			char *path = xasprintf("%s/%s", dir, list[i]->d_name);
			rc = path ? one_file(path, node, p, d, nr_files, e) : err_oom(e);
			xfree(path);
		}
		free(list[i]);
	}
	free(list);
	return rc;
}
