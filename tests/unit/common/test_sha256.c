// SPDX-License-Identifier: BSD-3-Clause
// SHA-256 against the FIPS 180-4 / NIST test vectors, plus streaming in odd
// chunk sizes, which must not change the digest. HMAC-SHA256 against RFC
// 4231, and the cache's seals (common/cache_home.h) computed from a copied
// state equal to the HMAC written out in full.
#include "common/sha256.h"
#include "common/cache_home.h"

#include <stdbool.h>

#include "harness.h"

static void t_empty(void)
{
	char hex[SHA256_HEX_SIZE];
	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void t_abc(void)
{
	char hex[SHA256_HEX_SIZE];
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void t_two_blocks(void)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX_SIZE];
	sha256_hex(m, strlen(m), hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void t_million_a(void)
{
	/* Fed in chunks of 7 bytes so the buffered path crosses every block edge. */
	struct sha256 s;
	uint8_t d[SHA256_DIGEST_SIZE];
	char chunk[7];
	memset(chunk, 'a', sizeof(chunk));
	sha256__init(&s);
	size_t left = 1000000;
	while (left) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
		sha256__update(&s, chunk, n);
		left -= n;
	}
	sha256__final(&s, d);
	char hex[SHA256_HEX_SIZE];
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void t_chunking(void)
{
	/* 768 bytes (0..255 three times): one-shot and every split point agree. */
	uint8_t buf[768];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	char ref[SHA256_HEX_SIZE];
	sha256_hex(buf, sizeof(buf), ref);
	CHECK_STR(ref, "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363");
	for (size_t cut = 0; cut <= sizeof(buf); cut += 13) {
		struct sha256 s;
		uint8_t d[SHA256_DIGEST_SIZE];
		sha256__init(&s);
		sha256__update(&s, buf, cut);
		sha256__update(&s, buf + cut, sizeof(buf) - cut);
		sha256__final(&s, d);
		char hex[SHA256_HEX_SIZE];
		for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		CHECK_STR(hex, ref);
	}
}

static void t_padding_edges(void)
{
	/* 55, 56 and 64 bytes: the lengths where padding spills into a second block. */
	static const struct {
		size_t n;
		const char *hex;
	} v[] = {
		{55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
	};
	char buf[64];
	memset(buf, 'a', sizeof(buf));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char hex[SHA256_HEX_SIZE];
		sha256_hex(buf, v[i].n, hex);
		CHECK_STR(hex, v[i].hex);
	}
}

static void t_million_a_oneshot(void)
{
	/* In one update: whole blocks straight from the input, through the
	 * CPU's SHA instructions where it has them. */
	static char m[1000000];
	memset(m, 'a', sizeof(m));
	char hex[SHA256_HEX_SIZE];
	sha256_hex(m, sizeof(m), hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void digest_hex(const uint8_t *buf, size_t n, size_t step, int accel, char *hex,
		       signed char *used)
{
	struct sha256 s;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256__init(&s);
	if (accel == 0)
		s.accel = 0; /* the portable code only */
	for (size_t at = 0; at < n; at += step)
		sha256__update(&s, buf + at, n - at < step ? n - at : step);
	*used = s.accel;
	sha256__final(&s, d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void t_accel_matches_portable(void)
{
	/* Pseudo-random bytes of every length around the block and the
	 * acceleration threshold, whole and in odd chunks: the SHA-NI code
	 * and the portable one give one digest. */
	static uint8_t buf[(1 << 16) + 200];
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	static const size_t lens[] = {0, 1, 63, 64, 65, 127, 128, 4095, 4096, 4097, 4159,
				      8192 + 55, 12345, 1 << 16, (1 << 16) + 200};
	static const size_t steps[] = {1 << 20, 4096, 4160, 5000};
	bool accelerated = false;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
			char a[SHA256_HEX_SIZE], p[SHA256_HEX_SIZE];
			signed char used = 0, none = 0;
			digest_hex(buf, lens[i], steps[j], -1, a, &used);
			digest_hex(buf, lens[i], steps[j], 0, p, &none);
			CHECK_STR(a, p);
			CHECK(none == 0);
			accelerated = accelerated || used > 0;
		}
	if (!accelerated)
		SKIP("this CPU has no SHA instructions (x86-64 SHA-NI): only the portable "
		     "code ran, the comparison is not made here");
}

static void hmac_hex(const void *key, size_t klen, const void *m, size_t len, char *hex)
{
	struct hmac_sha256 h;
	hmac_sha256__init(&h, key, klen);
	hmac_sha256__update(&h, m, len);
	hmac_sha256__final_hex(&h, hex);
}

static void t_hmac_rfc4231(void)
{
	/* RFC 4231 test cases 1, 2 and 6 (a key longer than a block). */
	char hex[SHA256_HEX_SIZE];
	uint8_t k1[20], k6[131];
	memset(k1, 0x0b, sizeof(k1));
	memset(k6, 0xaa, sizeof(k6));
	hmac_hex(k1, sizeof(k1), "Hi There", 8, hex);
	CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_hex("Jefe", 4, "what do ya want for nothing?", 28, hex);
	CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	hmac_hex(k6, sizeof(k6), m6, strlen(m6), hex);
	CHECK_STR(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

/* The seal as cache_seal_with() computed it before cache_sealer existed:
 * one HMAC over "<alen>:", a and b. */
static void seal_written_out(const uint8_t *key, const void *a, size_t alen, const void *b,
			     size_t blen, char *hex)
{
	struct hmac_sha256 h;
	char n[32];
	int nl = snprintf(n, sizeof(n), "%zu:", alen);
	hmac_sha256__init(&h, key, CACHE_SEAL_KEY_SIZE);
	hmac_sha256__update(&h, n, (size_t)nl);
	hmac_sha256__update(&h, a, alen);
	hmac_sha256__update(&h, b, blen);
	hmac_sha256__final_hex(&h, hex);
}

static void t_seal_golden(void)
{
	/* Computed independently (Python: hmac.new(key, b"80:" + a + b,
	 * sha256)): the files already on users' disks stay valid. */
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	for (int i = 0; i < CACHE_SEAL_KEY_SIZE; i++)
		key[i] = (uint8_t)i;
	static const char a[] = "@65024:1114293:109920:1750791925.000000000\0"
				"/usr/lib/llvm-19/bin/llvm-symbolizer\0";
	static const char b[] = "0x86013\t{\"Address\":\"0x86013\",\"Symbol\":[]}";
	CHECK_INT(sizeof(a) - 1, 80);
	char hex[SHA256_HEX_SIZE];
	const char *want = "4162fa3f4779c478cbce18014c2a31c40ef829de028943de72120880769b8885";
	cache_seal_with(key, a, sizeof(a) - 1, b, sizeof(b) - 1, hex);
	CHECK_STR(hex, want);
	struct cache_sealer s;
	for (int accel = -1; accel <= sha256_accel_available(); accel++) {
		cache_sealer__init(&s, key, a, sizeof(a) - 1, (signed char)accel);
		cache_sealer__seal(&s, b, sizeof(b) - 1, hex);
		CHECK_STR(hex, want);
	}
}

static void t_sealer_matches(void)
{
	/* One sealer per a, reused for every b (each seal copies its state):
	 * the seal of the HMAC written out, for every length of a and b
	 * around the block edges, portable, accelerated and undecided. */
	static uint8_t buf[8192 + 300];
	uint32_t x = 88172645u;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	memcpy(key, buf + 7, sizeof(key));
	signed char have = sha256_accel_available();
	size_t compared = 0;
	for (size_t alen = 0; alen <= 300; alen += alen < 70 ? 1 : 23)
		for (int accel = -1; accel <= have; accel++) {
			struct cache_sealer s;
			cache_sealer__init(&s, key, buf + 100, alen, (signed char)accel);
			for (size_t blen = 0; blen <= sizeof(buf) - 400; blen += blen < 200 ? 3 : 997) {
				char got[SHA256_HEX_SIZE], want[SHA256_HEX_SIZE];
				cache_sealer__seal(&s, buf + 400, blen, got);
				seal_written_out(key, buf + 100, alen, buf + 400, blen, want);
				CHECK_STR(got, want);
				cache_seal_with(key, buf + 100, alen, buf + 400, blen, got);
				CHECK_STR(got, want);
				compared++;
			}
		}
	CHECK(compared > 1000); /* the SHA-NI side: accel_matches_portable */
}

static const struct test_case cases[] = {
	{"empty", "digest of the empty message", t_empty},
	{"abc", "FIPS 180-4 one-block vector", t_abc},
	{"two_blocks", "FIPS 180-4 448-bit vector", t_two_blocks},
	{"million_a", "one million 'a' fed in 7-byte chunks", t_million_a},
	{"chunking", "every split point gives the one-shot digest", t_chunking},
	{"padding_edges", "55/56/64-byte messages (padding block boundaries)", t_padding_edges},
	{"million_a_oneshot", "one million 'a' in one update (the accelerated path)",
	 t_million_a_oneshot},
	{"accel_matches_portable", "SHA-NI and portable digests agree on every length",
	 t_accel_matches_portable},
	{"hmac_rfc4231", "HMAC-SHA256 against RFC 4231 cases 1, 2 and 6", t_hmac_rfc4231},
	{"seal_golden", "a cache seal equals an independently computed HMAC", t_seal_golden},
	{"sealer_matches", "seals from a copied state equal the HMAC written out",
	 t_sealer_matches},
};
TEST_MAIN(cases)
