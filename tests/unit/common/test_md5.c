// SPDX-License-Identifier: BSD-3-Clause
#include "common/md5.h"

#include <stdio.h>
#include <string.h>

#include "harness.h"

/* RFC 1321 appendix A.5 test suite. */
static void t_rfc_vectors(void)
{
	static const char *const v[][2] = {
		{"", "d41d8cd98f00b204e9800998ecf8427e"},
		{"a", "0cc175b9c0f1b6a831c399e269772661"},
		{"abc", "900150983cd24fb0d6963f7d28e17f72"},
		{"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
		{"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		 "d174ab98d277d9f5a5611c2c9f419d9f"},
		{"1234567890123456789012345678901234567890123456789012345678901234567890"
		 "1234567890",
		 "57edf4a22be3c955ac49da2e2107b67a"},
	};
	char hex[MD5_HEX_SIZE];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		md5_hex(v[i][0], strlen(v[i][0]), hex);
		CHECK_STR(hex, v[i][1]);
	}
}

/* Feeding byte by byte crosses every block boundary and padding case. */
static void t_incremental(void)
{
	char data[300];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(data); len += 1) {
		char one[MD5_HEX_SIZE], inc[MD5_HEX_SIZE];
		md5_hex(data, len, one);
		struct md5 m;
		uint8_t d[MD5_DIGEST_SIZE];
		md5__init(&m);
		for (size_t i = 0; i < len; i++)
			md5__update(&m, data + i, 1);
		md5__final(&m, d);
		for (int i = 0; i < MD5_DIGEST_SIZE; i++)
			snprintf(inc + 2 * i, 3, "%02x", d[i]);
		CHECK_STR(inc, one);
	}
}

static void t_file(void)
{
	char path[] = "/tmp/nunatak-md5-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, "abc", 3) == 3);
	close(fd);
	char hex[MD5_HEX_SIZE];
	CHECK_INT(md5_file_hex(path, hex), 0);
	CHECK_STR(hex, "900150983cd24fb0d6963f7d28e17f72");
	unlink(path);
	CHECK(md5_file_hex(path, hex) < 0);
}

static const struct test_case cases[] = {
	{"rfc_vectors", "RFC 1321 A.5 test suite", t_rfc_vectors},
	{"incremental", "byte-wise updates equal one-shot for 0..300 bytes", t_incremental},
	{"file", "md5 of a file on disk, error when absent", t_file},
};
TEST_MAIN(cases)
