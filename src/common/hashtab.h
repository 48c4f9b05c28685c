/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small open-addressing hash helpers, the one hash table of src/ (ingestion
 * interns with them, attribution fuses with strtab, regions index call paths,
 * region names and meet sums with oatab).
 *
 * `oatab` is an index only: it maps a 64-bit hash to 1-based ids of entries
 * the owner keeps in its own array (each entry stores its hash, so the index
 * can be rebuilt when it grows). Lookups are written inline by the owner
 * (probe from `h & mask` while `slot[pos] != 0`), so the hot loops compare
 * their own key types without a callback. Load factor <= 1/2.
 *
 * `strtab` interns byte strings to dense ids (0, 1, ...), with a one-entry
 * cache because consecutive samples usually name the same module.
 */
#ifndef NUNATAK_COMMON_HASHTAB_H
#define NUNATAK_COMMON_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_bytes(const void *p, size_t n);

struct oatab {
	uint32_t *slot; /* 0: empty, else 1-based entry id */
	size_t mask;    /* capacity - 1 (capacity a power of two), 0 while empty */
	size_t n;
};

/* Inserts 1-based id1 with hash h. The hash of entry i (1-based) is read at
 * (const char *)hash0 + (i - 1) * stride when the table grows. 0 or -ENOMEM. */
int oatab__insert(struct oatab *t, uint64_t h, uint32_t id1, const uint64_t *hash0,
		  size_t stride);
void oatab__release(struct oatab *t);

struct strtab {
	char **s;        /* owned, NUL-terminated copies */
	size_t *len;
	uint64_t *hash;
	size_t n, cap;
	struct oatab t;
	int64_t last;    /* id of the last hit, -1 none */
};

/* Returns the id of (s, len), adding a copy if absent (*added set when added;
 * added may be NULL), or -ENOMEM. */
int64_t strtab__intern(struct strtab *t, const char *s, size_t len, bool *added);
/* Returns the id of (s, len) or -1. */
int64_t strtab__find(const struct strtab *t, const char *s, size_t len);
void strtab__release(struct strtab *t);

#endif
