// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/buildid.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

void buildid_list__init(struct buildid_list *l)
{
	memset(l, 0, sizeof(*l));
	l->sorted = true;
}

void buildid_list__release(struct buildid_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		xfree(l->v[i].path);
		xfree(l->v[i].build_id);
	}
	xfree(l->v);
	buildid_list__init(l);
}

int buildid_list__add(struct buildid_list *l, const char *path, size_t path_len,
		      const char *build_id, size_t id_len)
{
	/* A later entry for the same path wins; lists hold tens of modules. */
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i].path) == path_len && !memcmp(l->v[i].path, path, path_len)) {
			char *nb = xstrndup(build_id, id_len);
			if (!nb)
				return -ENOMEM;
			for (char *c = nb; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			xfree(l->v[i].build_id);
			l->v[i].build_id = nb;
			return 0;
		}
	if (xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	char *p = xstrndup(path, path_len), *b = xstrndup(build_id, id_len);
	if (!p || !b) {
		xfree(p);
		xfree(b);
		return -ENOMEM;
	}
	for (char *c = b; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	l->v[l->n].path = p;
	l->v[l->n].build_id = b;
	l->n++;
	l->sorted = false;
	return 0;
}

static bool is_hex(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

int buildid_list__parse(struct buildid_list *l, const char *buf, size_t len, struct err *e)
{
	size_t pos = 0;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		const char *sp = memchr(line, ' ', n);
		size_t idn = sp ? (size_t)(sp - line) : 0;
		if (!sp || !is_hex(line, idn) || idn + 1 >= n) {
			l->nr_bad_lines++;
			continue;
		}
		if (buildid_list__add(l, sp + 1, n - idn - 1, line, idn))
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory reading build-ids");
	}
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct buildid_entry *x = a, *y = b;
	return strcmp(x->path, y->path);
}

const char *buildid_list__find(const struct buildid_list *l, const char *path)
{
	if (!l || !path || l->n == 0)
		return NULL;
	struct buildid_list *m = (struct buildid_list *)l;
	if (!m->sorted) {
		qsort(m->v, m->n, sizeof(*m->v), entry_cmp);
		m->sorted = true;
	}
	struct buildid_entry key = {.path = (char *)path};
	struct buildid_entry *hit = bsearch(&key, m->v, m->n, sizeof(*m->v), entry_cmp);
	return hit ? hit->build_id : NULL;
}
