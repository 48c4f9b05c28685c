// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/kallsyms.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

static bool is_hex(char c, unsigned *v)
{
	if (c >= '0' && c <= '9')
		*v = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		*v = (unsigned)(c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		*v = (unsigned)(c - 'A' + 10);
	else
		return false;
	return true;
}

/* Ties on an address: the last listed wins, the name perf shows (its earlier
 * aliases get an empty extent, which perf's choose_best_symbol() drops):
 * `__x64_sys_getppid` rather than `__ia32_sys_getppid`. Entries are ordered
 * by address then listing order, and the last of each address is kept. */
struct entry {
	uint64_t addr;
	size_t idx;
	const char *name;
	size_t len;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* "addr type name [module]": 1 kept, 0 skipped, -1 malformed. */
static int parse_line(const char *p, const char *end, struct entry *out, struct kallsyms *ks)
{
	uint64_t a = 0;
	unsigned v, nd = 0;
	for (; p < end && is_hex(*p, &v); p++, nd++)
		a = a << 4 | v;
	if (nd == 0 || nd > 16 || p + 3 > end || *p != ' ' || p[2] != ' ')
		return -1;
	char type = p[1];
	const char *name = p + 3, *ne = name;
	while (ne < end && *ne != ' ' && *ne != '\t')
		ne++;
	if (ne == name)
		return -1;
	bool module = false;
	for (const char *q = ne; q < end; q++)
		if (*q == '[')
			module = true;
	if (a)
		ks->zeros = false;
	size_t len = (size_t)(ne - name);
	if (!module && len == 5 && !memcmp(name, "_text", 5) && !ks->has_text) {
		ks->text = a;
		ks->has_text = true;
	} else if (!module && len == 6 && !memcmp(name, "_etext", 6) && !ks->has_etext) {
		ks->etext = a;
		ks->has_etext = true;
	}
	if (module || !strchr("tTwW", type) || type == '\0')
		return 0;
	*out = (struct entry){.addr = a, .name = name, .len = len};
	return 1;
}

static int collect(const char *buf, size_t len, struct entry **ents, size_t *n,
		   struct kallsyms *ks, struct err *e)
{
	size_t cap = 0, lineno = 0;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		lineno++;
		struct entry en;
		int r = le > p ? parse_line(p, le, &en, ks) : 0;
		if (r < 0)
			return err_set(e, -EINVAL, ERR_KALLSYMS_SYNTAX,
				       "kallsyms line %zu: expected 'ADDRESS TYPE NAME [MODULE]'",
				       lineno);
		if (r > 0) {
			if (xgrow((void **)ents, &cap, *n + 1, sizeof(**ents)))
				return err_oom(e);
			en.idx = *n;
			(*ents)[(*n)++] = en;
		}
		p = le + (nl ? 1 : 0);
	}
	return 0;
}

/* Addresses never descending: already in entry_cmp's order, nothing to
 * sort. The kernel lists its core symbols so (and nunatak's own cache of the
 * table, one name per address): a first Run's /proc/kallsyms, 120 000+
 * entries with a few hundred aliases, is not sorted again (~4 ms). */
static bool ordered(const struct entry *ents, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (ents[i - 1].addr > ents[i].addr)
			return false;
	return true;
}

/* The entry kept for its address: the last of its run of equal addresses. */
static bool kept(const struct entry *ents, size_t n, size_t i)
{
	return i + 1 == n || ents[i + 1].addr != ents[i].addr;
}

int kallsyms__parse(const char *buf, size_t len, struct kallsyms *ks, struct err *e)
{
	struct entry *ents = NULL;
	size_t n = 0;
	ks->zeros = true;
	int rc = collect(buf, len, &ents, &n, ks, e);
	if (!rc && n && !ordered(ents, n))
		qsort(ents, n, sizeof(*ents), entry_cmp);
	/* the names kept (the last listed of each address) in one block:
	 * 100 000+ symbols, one allocation */
	size_t bytes = 0;
	for (size_t i = 0; !rc && i < n; i++)
		if (kept(ents, n, i))
			bytes += ents[i].len + 1;
	if (!rc && n && (!(ks->v = xcalloc(n, sizeof(*ks->v))) || !(ks->names = xmalloc(bytes))))
		rc = err_oom(e);
	char *at = ks->names;
	for (size_t i = 0; !rc && i < n; i++) {
		if (!kept(ents, n, i))
			continue;
		memcpy(at, ents[i].name, ents[i].len);
		at[ents[i].len] = '\0';
		ks->v[ks->n++] = (struct ksym){ents[i].addr, at};
		at += ents[i].len + 1;
	}
	xfree(ents);
	if (rc)
		kallsyms__release(ks);
	return rc;
}

const struct ksym *kallsyms__find(const struct kallsyms *ks, uint64_t off, uint64_t *end)
{
	if (!ks->has_text || ks->zeros || !ks->n || off > UINT64_MAX - ks->text)
		return NULL;
	uint64_t a = ks->text + off;
	if (ks->has_etext && a >= ks->etext)
		return NULL;
	size_t lo = 0, hi = ks->n; /* first symbol above a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ks->v[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo == ks->n)
		return NULL; /* before the first symbol, or after the last: no extent */
	const struct ksym *s = &ks->v[lo - 1];
	if (s->addr < ks->text)
		return NULL;
	*end = ks->v[lo].addr - ks->text;
	return s;
}

void kallsyms__release(struct kallsyms *ks)
{
	xfree(ks->names);
	xfree(ks->v);
	memset(ks, 0, sizeof(*ks));
}
