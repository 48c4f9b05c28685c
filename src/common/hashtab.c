// SPDX-License-Identifier: BSD-3-Clause
#include "common/hashtab.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = mix64(h ^ w);
		b += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, b, n);
	return mix64(h ^ w ^ 0x5bd1e995);
}

static int oatab__rehash(struct oatab *t, size_t cap, const uint64_t *hash0, size_t stride)
{
	uint32_t *slot = xcalloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	size_t mask = cap - 1;
	for (size_t i = 0; i <= t->mask && t->slot; i++) {
		uint32_t id = t->slot[i];
		if (!id)
			continue;
		uint64_t h = *(const uint64_t *)((const char *)hash0 + (size_t)(id - 1) * stride);
		size_t pos = h & mask;
		while (slot[pos])
			pos = (pos + 1) & mask;
		slot[pos] = id;
	}
	xfree(t->slot);
	t->slot = slot;
	t->mask = mask;
	return 0;
}

int oatab__insert(struct oatab *t, uint64_t h, uint32_t id1, const uint64_t *hash0,
		  size_t stride)
{
	if (!t->slot || (t->n + 1) * 2 > t->mask + 1) {
		size_t cap = t->slot ? (t->mask + 1) * 2 : 64;
		if (oatab__rehash(t, cap, hash0, stride))
			return -ENOMEM;
	}
	size_t pos = h & t->mask;
	while (t->slot[pos])
		pos = (pos + 1) & t->mask;
	t->slot[pos] = id1;
	t->n++;
	return 0;
}

void oatab__release(struct oatab *t)
{
	xfree(t->slot);
	memset(t, 0, sizeof(*t));
}

int64_t strtab__find(const struct strtab *t, const char *s, size_t len)
{
	if (t->last >= 0 && t->n && t->len[t->last] == len && memcmp(t->s[t->last], s, len) == 0)
		return t->last;
	if (!t->t.slot)
		return -1;
	uint64_t h = hash_bytes(s, len);
	for (size_t pos = h & t->t.mask; t->t.slot[pos]; pos = (pos + 1) & t->t.mask) {
		size_t id = t->t.slot[pos] - 1;
		if (t->hash[id] == h && t->len[id] == len && memcmp(t->s[id], s, len) == 0)
			return (int64_t)id;
	}
	return -1;
}

int64_t strtab__intern(struct strtab *t, const char *s, size_t len, bool *added)
{
	if (added)
		*added = false;
	if (t->n == 0)
		t->last = -1;
	int64_t id = strtab__find(t, s, len);
	if (id >= 0) {
		t->last = id;
		return id;
	}
	size_t cap = t->cap;
	if (xgrow((void **)&t->s, &cap, t->n + 1, sizeof(*t->s)))
		return -ENOMEM;
	cap = t->cap;
	if (xgrow((void **)&t->len, &cap, t->n + 1, sizeof(*t->len)))
		return -ENOMEM;
	cap = t->cap;
	if (xgrow((void **)&t->hash, &cap, t->n + 1, sizeof(*t->hash)))
		return -ENOMEM;
	t->cap = cap;
	/* Not xstrndup: a NUL inside the bytes must not shorten the copy, since
	 * lookups compare len bytes. */
	char *c = xmalloc(len + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, s, len);
	c[len] = '\0';
	t->s[t->n] = c;
	t->len[t->n] = len;
	t->hash[t->n] = hash_bytes(s, len);
	if (oatab__insert(&t->t, t->hash[t->n], (uint32_t)t->n + 1, t->hash, sizeof(uint64_t))) {
		xfree(c);
		return -ENOMEM;
	}
	id = (int64_t)t->n++;
	t->last = id;
	if (added)
		*added = true;
	return id;
}

void strtab__release(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		xfree(t->s[i]);
	xfree(t->s);
	xfree(t->len);
	xfree(t->hash);
	oatab__release(&t->t);
	memset(t, 0, sizeof(*t));
	t->last = -1;
}
