// SPDX-License-Identifier: BSD-3-Clause
#include "common/sha256.h"

#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t p[64])
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
			      K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI 1

/* SHA-NI, SSSE3 and SSE4.1 (CPUID leaf 7 EBX bit 29, leaf 1 ECX bits 9, 19). */
static signed char sha_ni_present(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 29) & 1;
}

/* nblocks 64-byte blocks with the SHA extensions: the state held as ABEF
 * and CDGH, four rounds per message-schedule step (Intel's SHA extensions
 * paper, 2013). The same digests as compress(): unit_common_test_sha256
 * compares the two on every length. */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_ni(uint32_t h[8],
								     const uint8_t *p,
								     size_t nblocks)
{
	const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
	__m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);
	__m128i s0 = _mm_alignr_epi8(tmp, s1, 8);
	s1 = _mm_blend_epi16(s1, tmp, 0xF0);
	for (; nblocks; nblocks--, p += 64) {
		__m128i abef = s0, cdgh = s1, w[4];
		for (int g = 0; g < 16; g++) {
			if (g < 4)
				w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)),
							mask);
			__m128i msg = _mm_add_epi32(w[g & 3],
						    _mm_loadu_si128((const __m128i *)&K[4 * g]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			if (g >= 3 && g <= 14) { /* words 4(g+1).. from the last 16 */
				__m128i t = _mm_alignr_epi8(w[g & 3], w[(g + 3) & 3], 4);
				w[(g + 1) & 3] = _mm_sha256msg2_epu32(
					_mm_add_epi32(w[(g + 1) & 3], t), w[g & 3]);
			}
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(msg, 0x0E));
			if (g >= 1 && g <= 12)
				w[(g + 3) & 3] = _mm_sha256msg1_epu32(w[(g + 3) & 3], w[g & 3]);
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	tmp = _mm_shuffle_epi32(s0, 0x1B);
	s1 = _mm_shuffle_epi32(s1, 0xB1);
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(tmp, s1, 0xF0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(s1, tmp, 8));
}
#endif

/* Whole blocks straight from the input: the instructions when the CPU has
 * them and the input is large enough to be worth asking (a cache seal over
 * a 5 MB kernel symbol table: ~20 ms portable, ~3 ms with them). */
#define ACCEL_MIN 4096
static void compress_blocks(struct sha256 *s, const uint8_t *p, size_t nblocks)
{
#ifdef HAVE_SHA_NI
	if (s->accel < 0 && nblocks * 64 >= ACCEL_MIN)
		s->accel = sha_ni_present();
	if (s->accel > 0) {
		compress_ni(s->h, p, nblocks);
		return;
	}
#endif
	for (; nblocks; nblocks--, p += 64)
		compress(s->h, p);
}

/* One buffered block: the instructions only when already asked for. */
static void compress_one(struct sha256 *s, const uint8_t p[64])
{
#ifdef HAVE_SHA_NI
	if (s->accel > 0) {
		compress_ni(s->h, p, 1);
		return;
	}
#endif
	compress(s->h, p);
}

signed char sha256_accel_available(void)
{
#ifdef HAVE_SHA_NI
	return sha_ni_present();
#else
	return 0;
#endif
}

void sha256__init(struct sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, iv, sizeof(iv));
	s->nr_bytes = 0;
	s->fill = 0;
	s->accel = -1;
}

void sha256__update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	s->nr_bytes += len;
	while (len) {
		size_t take = 64 - s->fill < len ? 64 - s->fill : len;
		if (s->fill == 0 && len >= 64) {
			take = len & ~(size_t)63;
			compress_blocks(s, p, take / 64);
		} else {
			memcpy(s->block + s->fill, p, take);
			s->fill += take;
			if (s->fill == 64) {
				compress_one(s, s->block);
				s->fill = 0;
			}
		}
		p += take;
		len -= take;
	}
}

void sha256__final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE])
{
	uint64_t bits = s->nr_bytes * 8;
	uint8_t pad[72] = {0x80};
	size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
	uint8_t len_be[8];
	for (int i = 0; i < 8; i++)
		len_be[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256__update(s, pad, padlen);
	sha256__update(s, len_be, 8);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(s->h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)s->h[i];
	}
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	struct sha256 s;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256__init(&s);
	sha256__update(&s, data, len);
	sha256__final(&s, d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * SHA256_DIGEST_SIZE] = '\0';
}

void hmac_sha256__init(struct hmac_sha256 *h, const void *key, size_t klen)
{
	uint8_t k[64] = {0}, pad[64];
	if (klen > sizeof(k)) {
		struct sha256 s;
		sha256__init(&s);
		sha256__update(&s, key, klen);
		sha256__final(&s, k);
	} else if (klen) {
		memcpy(k, key, klen);
	}
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256__init(&h->inner);
	sha256__update(&h->inner, pad, sizeof(pad));
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256__init(&h->outer);
	sha256__update(&h->outer, pad, sizeof(pad));
}

void hmac_sha256__update(struct hmac_sha256 *h, const void *data, size_t len)
{
	sha256__update(&h->inner, data, len);
}

void hmac_sha256__final_hex(struct hmac_sha256 *h, char hex[SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256__final(&h->inner, d);
	sha256__update(&h->outer, d, sizeof(d));
	sha256__final(&h->outer, d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * SHA256_DIGEST_SIZE] = '\0';
}
