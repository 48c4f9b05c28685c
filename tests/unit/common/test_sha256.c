// SPDX-License-Identifier: BSD-3-Clause
// SHA-256 against the FIPS 180-4 / NIST test vectors, plus streaming in odd
// chunk sizes, which must not change the digest.
#include "common/sha256.h"

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
};
TEST_MAIN(cases)
