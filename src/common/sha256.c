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

void sha256__init(struct sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, iv, sizeof(iv));
	s->nr_bytes = 0;
	s->fill = 0;
}

void sha256__update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	s->nr_bytes += len;
	while (len) {
		size_t take = 64 - s->fill < len ? 64 - s->fill : len;
		if (s->fill == 0 && len >= 64) {
			compress(s->h, p);
			take = 64;
		} else {
			memcpy(s->block + s->fill, p, take);
			s->fill += take;
			if (s->fill == 64) {
				compress(s->h, s->block);
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
