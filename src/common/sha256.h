/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SHA-256 (FIPS 180-4), small and dependency-free: nunatak hashes Machine
 * identities and probe keys with it and must not pull in OpenSSL for that.
 * Not constant-time: the cache's HMAC key guards files on the user's own
 * disk, not a network protocol.
 */
#ifndef NUNATAK_COMMON_SHA256_H
#define NUNATAK_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE (2 * SHA256_DIGEST_SIZE + 1)

struct sha256 {
	uint32_t h[8];
	uint64_t nr_bytes;   /* total bytes fed so far */
	uint8_t block[64];
	size_t fill;         /* bytes pending in block */
	/* The CPU's SHA instructions (x86-64 SHA-NI): -1 not asked yet (asked
	 * on the first large update only: a CPUID costs ~30 us in a VM), 0 the
	 * portable code, 1 the instructions. Set to 0 after sha256__init to
	 * force the portable code (the unit test compares both). */
	signed char accel;
};

void sha256__init(struct sha256 *s);
/* Whether this CPU has the SHA instructions (1) or not (0): what a context
 * asks on its first large update. A CPUID costs ~17-30 us in a VM, so a
 * caller hashing many short messages (the per-record seals of a cache
 * file) asks once and sets accel itself; short updates then use them too. */
signed char sha256_accel_available(void);
void sha256__update(struct sha256 *s, const void *data, size_t len);
/* Writes the 32-byte digest; the context must be re-initialised before reuse. */
void sha256__final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE]);

/* One-shot: lowercase hex digest of data, NUL-terminated, into hex. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_SIZE]);

/* HMAC-SHA256 (RFC 2104): the seal of cache entries (common/cache_home.h),
 * so an entry nunatak did not write is a miss. */
struct hmac_sha256 {
	struct sha256 inner, outer;
};
void hmac_sha256__init(struct hmac_sha256 *h, const void *key, size_t klen);
void hmac_sha256__update(struct hmac_sha256 *h, const void *data, size_t len);
void hmac_sha256__final_hex(struct hmac_sha256 *h, char hex[SHA256_HEX_SIZE]);

#endif
