// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/kallsyms.h"
#include "attrib/kallsyms_form.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

/* A hex digit's value, or 16: one table lookup per digit of 120 000+ lines. */
static unsigned hex_value(unsigned char c)
{
	unsigned d = (unsigned)c - '0', x = ((unsigned)c | 0x20) - 'a'; /* A-F as a-f */
	return d < 10 ? d : x < 6 ? x + 10 : 16;
}

/* The kernel's %px on 64 bits: 16 lowercase hex digits at p, as one value
 * (8 digits at a time, no branch per digit); false for anything else,
 * which the digit-by-digit loop then reads. */
static bool hex16(const char *p, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t w[2], a = 0;
	memcpy(w, p, sizeof(w));
	for (int i = 0; i < 2; i++) {
		uint64_t x = w[i];
		/* bytes below 0x80: adding at most 0x50 carries into no other byte */
		uint64_t digit = (x + 0x50 * ones) & ~(x + 0x46 * ones); /* '0'-'9' */
		uint64_t lower = (x + 0x1f * ones) & ~(x + 0x19 * ones); /* 'a'-'f' */
		if ((x & high) || ((digit | lower) & high) != high)
			return false;
		uint64_t v = (x & 0x0f * ones) + 9 * ((x >> 6) & ones); /* each byte a nibble */
		v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffull; /* the first digit is the high one */
		v = ((v << 8) | (v >> 16)) & 0x0000ffff0000ffffull;
		v = ((v << 16) | (v >> 32)) & 0xffffffffull;
		a = a << 32 | v;
	}
	*out = a;
	return true;
#else
	(void)p, (void)out;
	return false;
#endif
}

/* The first ' ', '\t' or NUL in [p, end), or end: 8 bytes at a time (a
 * zero byte of x ^ c is a byte equal to c), the name's 20-40 bytes. */
static const char *name_end(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	for (uint64_t x, s, t; end - p >= 8; p += 8) {
		memcpy(&x, p, sizeof(x));
		s = x ^ (0x20 * ones);
		t = x ^ (0x09 * ones);
		if (((s - ones) & ~s & high) | ((t - ones) & ~t & high) | ((x - ones) & ~x & high))
			break;
	}
	while (p < end && *p != ' ' && *p != '\t' && *p != '\0')
		p++;
	return p;
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

int kallsyms__line(const char *p, const char *end, struct kallsyms_line *out,
		   struct kallsyms *ks)
{
	uint64_t a = 0;
	unsigned v, nd = 0;
	if (end - p >= 19 && p[16] == ' ' && hex16(p, &a))
		p += 16, nd = 16;
	for (; p < end && (v = hex_value((unsigned char)*p)) < 16; p++, nd++)
		a = a << 4 | v;
	if (nd == 0 || nd > 16 || end - p < 3 || *p != ' ' || p[2] != ' ')
		return -1;
	char type = p[1];
	const char *name = p + 3, *ne = name_end(name, end);
	if (ne == name || (ne < end && *ne == '\0'))
		return -1; /* no name, or a NUL in it: no C string names that symbol */
	bool module = ne < end && memchr(ne, '[', (size_t)(end - ne)) != NULL;
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
	if (module || !(type == 't' || type == 'T' || type == 'w' || type == 'W'))
		return 0;
	*out = (struct kallsyms_line){.addr = a, .name = name, .len = len};
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
		struct kallsyms_line l;
		int r = le > p ? kallsyms__line(p, le, &l, ks) : 0;
		if (r < 0)
			return err_set(e, -EINVAL, ERR_KALLSYMS_SYNTAX,
				       "kallsyms line %zu: expected 'ADDRESS TYPE NAME [MODULE]'",
				       lineno);
		if (r > 0) {
			if (xgrow((void **)ents, &cap, *n + 1, sizeof(**ents)))
				return err_oom(e);
			(*ents)[*n] = (struct entry){l.addr, *n, l.name, l.len};
			(*n)++;
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

/*
 * nunatak's cache form of a table (attrib/kernel.c): the magic line, `_text`
 * and `_etext` (8 bytes each, little-endian), a flags byte (1 has_text, 2
 * has_etext), the symbol count (varint), then one record per symbol not
 * written as a prefix: varint(address - previous address), a byte p (0, or
 * 1 then varint(gap): the symbol "__pfx_NAME" at address - gap, the padding
 * the kernel puts before NAME, half the table), then NAME and a NUL. The
 * previous address starts at 0. A third of kallsyms' text, and nothing to
 * format or to parse: a first Run writes and seals less, a later one reads
 * and checks less. Varints are LEB128, at most 10 bytes.
 */
#define MAGIC KALLSYMS_MAGIC
#define PFX KALLSYMS_PFX
#define PFX_LEN KALLSYMS_PFX_LEN

static void put_u64(unsigned char *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

size_t kallsyms__put_head(unsigned char *b, const struct kallsyms *ks, uint64_t count)
{
	size_t n = KALLSYMS_MAGIC_LEN;
	memcpy(b, MAGIC, n);
	put_u64(b + n, ks->text);
	put_u64(b + n + 8, ks->etext);
	b[n + 16] = (unsigned char)((ks->has_text ? 1 : 0) | (ks->has_etext ? 2 : 0));
	n += 17;
	return n + kallsyms__put_varint(b + n, count);
}

/* v[i] is the padding before v[i + 1] ("__pfx_" + its name). */
static bool is_pfx_of(const struct kallsyms *ks, size_t i)
{
	const char *p = ks->v[i].name;
	return i + 1 < ks->n && strncmp(p, PFX, PFX_LEN) == 0 && p[PFX_LEN] &&
	       strcmp(p + PFX_LEN, ks->v[i + 1].name) == 0;
}

char *kallsyms__encode(const struct kallsyms *ks, size_t *len)
{
	size_t cap = KALLSYMS_HEAD_FIXED + 10;
	for (size_t i = 0; i < ks->n; i++)
		cap += 21 + strlen(ks->v[i].name) + 1;
	unsigned char *b = xmalloc(cap);
	if (!b)
		return NULL;
	size_t n = kallsyms__put_head(b, ks, ks->n);
	uint64_t prev = 0;
	for (size_t i = 0; i < ks->n; i++) {
		bool pfx = is_pfx_of(ks, i);
		const struct ksym *s = &ks->v[pfx ? i + 1 : i];
		n += kallsyms__put_varint(b + n, s->addr - prev);
		b[n++] = pfx ? 1 : 0;
		if (pfx)
			n += kallsyms__put_varint(b + n, s->addr - ks->v[i].addr);
		size_t l = strlen(s->name) + 1;
		memcpy(b + n, s->name, l);
		n += l;
		prev = s->addr;
		i += pfx;
	}
	*len = n;
	return (char *)b;
}

static inline bool get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	if (*p < end && !(**p & 0x80)) { /* one byte: most of a table's deltas */
		*v = *(*p)++;
		return true;
	}
	*v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char c = *(*p)++;
		if (shift == 63 && (c & 0x7e))
			return false; /* beyond 64 bits */
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false;
}

struct rec {
	uint64_t addr, gap; /* gap: the prefix symbol at addr - gap, when pfx */
	bool pfx;
	const char *name;
	size_t len;
};

/* The next record after *prev (first: no previous symbol); false if bad. */
static inline bool next_rec(const unsigned char **p, const unsigned char *end, uint64_t *prev,
		     bool first, struct rec *r)
{
	uint64_t d;
	if (!get_varint(p, end, &d) || (!first && d == 0) || d > UINT64_MAX - *prev || *p >= end)
		return false;
	r->addr = *prev + d;
	unsigned char f = *(*p)++;
	r->pfx = f == 1;
	r->gap = 0;
	if (f > 1 || (r->pfx && (!get_varint(p, end, &r->gap) || r->gap == 0 || r->gap > r->addr ||
				 (!first && r->addr - r->gap <= *prev))))
		return false;
	const unsigned char *nul = memchr(*p, '\0', (size_t)(end - *p));
	if (!nul || nul == *p)
		return false;
	r->name = (const char *)*p;
	r->len = (size_t)(nul - *p);
	*p = nul + 1;
	*prev = r->addr;
	return true;
}

/* Walks the records: names bytes into *bytes; fills ks->v when names set. */
static bool walk(const unsigned char *p, const unsigned char *end, uint64_t n,
		 struct kallsyms *ks, char *names, size_t *bytes)
{
	uint64_t prev = 0, got = 0;
	size_t b = 0;
	for (bool first = true; p < end; first = false) {
		struct rec r;
		if (!next_rec(&p, end, &prev, first, &r) || got + 1 + r.pfx > n)
			return false;
		if (r.pfx && names) {
			ks->v[ks->n++] = (struct ksym){r.addr - r.gap, names + b};
			memcpy(names + b, PFX, PFX_LEN);
			memcpy(names + b + PFX_LEN, r.name, r.len + 1);
		}
		b += r.pfx ? PFX_LEN + r.len + 1 : 0;
		if (names) {
			ks->v[ks->n++] = (struct ksym){r.addr, names + b};
			memcpy(names + b, r.name, r.len + 1);
		}
		b += r.len + 1;
		got += 1 + r.pfx;
	}
	*bytes = b;
	return got == n;
}

/* The header into ks; *p past it and the count *n. False if not ours. */
static bool read_head(const char *buf, size_t len, struct kallsyms *ks,
		      const unsigned char **p, uint64_t *n)
{
	const size_t head = KALLSYMS_MAGIC_LEN + 17;
	const unsigned char *b = (const unsigned char *)buf;
	if (len < head || memcmp(buf, MAGIC, KALLSYMS_MAGIC_LEN) != 0 || (b[head - 1] & ~3u))
		return false;
	ks->text = 0;
	ks->etext = 0;
	for (int i = 7; i >= 0; i--) {
		ks->text = ks->text << 8 | b[KALLSYMS_MAGIC_LEN + i];
		ks->etext = ks->etext << 8 | b[KALLSYMS_MAGIC_LEN + 8 + i];
	}
	ks->has_text = b[head - 1] & 1;
	ks->has_etext = b[head - 1] & 2;
	*p = b + head;
	return get_varint(p, b + len, n) && *n <= len;
}

static int not_ours(struct kallsyms *ks, struct err *e)
{
	memset(ks, 0, sizeof(*ks));
	return err_set(e, -EINVAL, ERR_KALLSYMS_SYNTAX,
		       "kernel symbols cache: not nunatak's table (bad header or record)");
}

int kallsyms__decode(const char *buf, size_t len, struct kallsyms *ks, struct err *e)
{
	const unsigned char *p = NULL, *end = (const unsigned char *)buf + len;
	uint64_t n = 0;
	size_t bytes = 0;
	if (!read_head(buf, len, ks, &p, &n) || !walk(p, end, n, ks, NULL, &bytes))
		return not_ours(ks, e);
	if (n && (!(ks->v = xcalloc(n, sizeof(*ks->v))) || !(ks->names = xmalloc(bytes)))) {
		kallsyms__release(ks);
		return err_oom(e);
	}
	ks->n = 0;
	walk(p, end, n, ks, ks->names, &bytes);
	ks->zeros = !ks->text && (!n || !ks->v[n - 1].addr);
	return 0;
}

/*
 * kallsyms__decode_for(): one pass over the records, nothing copied but the
 * symbols kept. The queries (addresses, ascending) are matched as the
 * symbols go by in ascending order: a query below the next symbol is
 * covered by the previous one, and both are kept (the second is its
 * extent's end); the last symbol is kept for queries beyond it.
 */
struct picker {
	const uint64_t *q; /* addresses, ascending */
	size_t nq, at;
	struct pick {
		uint64_t addr;
		const char *name; /* into the buffer; after "__pfx_" when pfx */
		size_t len;
		bool pfx;
	} prev, *kept;
	size_t nr_kept;
	bool have_prev;
};

static void pick_keep(struct picker *k, const struct pick *s)
{
	if (!k->nr_kept || k->kept[k->nr_kept - 1].addr != s->addr)
		k->kept[k->nr_kept++] = *s;
}

/* The next symbol of the table, in ascending order. */
static inline void pick_next(struct picker *k, const struct pick *s)
{
	bool first = true;
	for (; k->at < k->nq && k->q[k->at] < s->addr; k->at++) {
		if (k->have_prev && first) { /* covered by prev, up to s */
			pick_keep(k, &k->prev);
			pick_keep(k, s);
		}
		first = false;
	}
	k->prev = *s;
	k->have_prev = true;
}

static int picked(struct picker *k, struct kallsyms *ks, struct err *e)
{
	if (k->at < k->nq && k->have_prev)
		pick_keep(k, &k->prev); /* queries at or after the last symbol */
	size_t bytes = 0;
	for (size_t i = 0; i < k->nr_kept; i++)
		bytes += (k->kept[i].pfx ? PFX_LEN : 0) + k->kept[i].len + 1;
	if (k->nr_kept && (!(ks->v = xcalloc(k->nr_kept, sizeof(*ks->v))) ||
			   !(ks->names = xmalloc(bytes)))) {
		kallsyms__release(ks);
		return err_oom(e);
	}
	char *at = ks->names;
	for (size_t i = 0; i < k->nr_kept; i++) {
		const struct pick *s = &k->kept[i];
		ks->v[ks->n++] = (struct ksym){s->addr, at};
		if (s->pfx) {
			memcpy(at, PFX, PFX_LEN);
			at += PFX_LEN;
		}
		memcpy(at, s->name, s->len);
		at[s->len] = '\0';
		at += s->len + 1;
	}
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The queries as ascending addresses (offsets past UINT64_MAX dropped). */
static uint64_t *query_addrs(const struct kallsyms *ks, const uint64_t *offs, size_t n,
			     size_t *nq)
{
	uint64_t *q = xcalloc(n ? n : 1, sizeof(*q));
	*nq = 0;
	for (size_t i = 0; q && i < n; i++)
		if (offs[i] <= UINT64_MAX - ks->text)
			q[(*nq)++] = ks->text + offs[i];
	if (q && *nq > 1)
		qsort(q, *nq, sizeof(*q), u64_cmp);
	return q;
}

int kallsyms__decode_for(const char *buf, size_t len, const uint64_t *offs, size_t n,
			 struct kallsyms *ks, size_t *total, struct err *e)
{
	const unsigned char *p = NULL, *end = (const unsigned char *)buf + len;
	uint64_t count = 0, prev = 0, got = 0;
	*total = 0;
	if (!read_head(buf, len, ks, &p, &count))
		return not_ours(ks, e);
	struct picker k = {0};
	k.q = query_addrs(ks, offs, n, &k.nq);
	k.kept = xcalloc(2 * k.nq + 1, sizeof(*k.kept));
	if (!k.q || !k.kept) {
		xfree((void *)k.q), xfree(k.kept);
		memset(ks, 0, sizeof(*ks));
		return err_oom(e);
	}
	bool ok = true;
	for (bool first = true; ok && p < end; first = false) {
		struct rec r;
		ok = next_rec(&p, end, &prev, first, &r) && got + 1 + r.pfx <= count;
		if (ok && r.pfx)
			pick_next(&k, &(struct pick){r.addr - r.gap, r.name, r.len, true});
		if (ok)
			pick_next(&k, &(struct pick){r.addr, r.name, r.len, false});
		got += ok ? 1 + r.pfx : 0;
	}
	int rc = ok && got == count ? picked(&k, ks, e) : not_ours(ks, e);
	if (rc == 0) {
		*total = (size_t)count;
		ks->zeros = !ks->text && (!count || !prev);
	}
	xfree((void *)k.q), xfree(k.kept);
	return rc;
}
