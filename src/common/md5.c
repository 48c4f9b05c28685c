// SPDX-License-Identifier: BSD-3-Clause
#include "common/md5.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Per-round shift amounts and the sine-derived constants of RFC 1321 3.4. */
static const uint8_t md5_shift[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static const uint32_t md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
	0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
	0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
	0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
	0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
	0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
	0xeb86d391,
};

static uint32_t rotl(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void md5_block(uint32_t h[4], const uint8_t *p)
{
	uint32_t w[16];
	for (int i = 0; i < 16; i++) /* MD5 words are little-endian */
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
	for (int i = 0; i < 64; i++) {
		uint32_t f;
		int g;
		if (i < 16) {
			f = (b & c) | (~b & d);
			g = i;
		} else if (i < 32) {
			f = (d & b) | (~d & c);
			g = (5 * i + 1) & 15;
		} else if (i < 48) {
			f = b ^ c ^ d;
			g = (3 * i + 5) & 15;
		} else {
			f = c ^ (b | ~d);
			g = (7 * i) & 15;
		}
		uint32_t t = d;
		d = c;
		c = b;
		b = b + rotl(a + f + md5_k[i] + w[g], md5_shift[i]);
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

void md5__init(struct md5 *m)
{
	m->h[0] = 0x67452301;
	m->h[1] = 0xefcdab89;
	m->h[2] = 0x98badcfe;
	m->h[3] = 0x10325476;
	m->nr_bytes = 0;
	m->fill = 0;
}

void md5__update(struct md5 *m, const void *data, size_t len)
{
	const uint8_t *p = data;
	m->nr_bytes += len;
	if (m->fill) {
		size_t take = 64 - m->fill < len ? 64 - m->fill : len;
		memcpy(m->block + m->fill, p, take);
		m->fill += take;
		p += take;
		len -= take;
		if (m->fill < 64)
			return;
		md5_block(m->h, m->block);
		m->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		md5_block(m->h, p);
	memcpy(m->block, p, len);
	m->fill = len;
}

void md5__final(struct md5 *m, uint8_t digest[MD5_DIGEST_SIZE])
{
	uint64_t bits = m->nr_bytes * 8;
	uint8_t pad[72] = {0x80};
	size_t padlen = (m->fill < 56 ? 56 : 120) - m->fill;
	uint8_t len_le[8];
	for (int i = 0; i < 8; i++)
		len_le[i] = (uint8_t)(bits >> (8 * i));
	md5__update(m, pad, padlen);
	md5__update(m, len_le, 8);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			digest[4 * i + j] = (uint8_t)(m->h[i] >> (8 * j));
}

static void to_hex(const uint8_t d[MD5_DIGEST_SIZE], char hex[MD5_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < MD5_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * MD5_DIGEST_SIZE] = '\0';
}

void md5_hex(const void *data, size_t len, char hex[MD5_HEX_SIZE])
{
	struct md5 m;
	uint8_t d[MD5_DIGEST_SIZE];
	md5__init(&m);
	md5__update(&m, data, len);
	md5__final(&m, d);
	to_hex(d, hex);
}

int md5_file_hex(const char *path, char hex[MD5_HEX_SIZE])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	struct md5 m;
	uint8_t buf[16384], d[MD5_DIGEST_SIZE];
	size_t n;
	md5__init(&m);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		md5__update(&m, buf, n);
	int rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc)
		return rc;
	md5__final(&m, d);
	to_hex(d, hex);
	return 0;
}
