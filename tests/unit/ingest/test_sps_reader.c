// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include "common/err.h"
#include "ingest/sps_reader.h"
#include "regions/trace_bytes.h"

/* Version 2 adds a weight per sample: {1, 7, last_weight}. */
static void build_w(struct tb *t, bool big, int version, int32_t bad_region, int32_t last_weight)
{
	memset(t, 0, sizeof(*t));
	t->big = big;
	tb_raw(t, "SCOPESMP", 8);
	tb_i32(t, version);
	tb_i32(t, 5);
	tb_i32(t, 997);
	tb_i64(t, 1234);
	tb_i32(t, 2);
	tb_str(t, "solve");
	tb_str(t, "io");
	tb_i32(t, 1);
	tb_str(t, "/usr/bin/app");
	tb_i64(t, 0x555555554000);
	tb_i64(t, 3);
	int32_t reg[3] = {0, 1, bad_region};
	int32_t mod[3] = {0, -1, 0};
	for (int i = 0; i < 3; i++) {
		tb_i32(t, reg[i]);
		tb_i32(t, mod[i]);
		tb_i64(t, 0x555555555123 + i);
		if (version >= 2)
			tb_i32(t, i == 2 ? last_weight : i == 1 ? 7 : 1);
	}
}

static void build(struct tb *t, bool big, int version, int32_t bad_region)
{
	build_w(t, big, version, bad_region, 1);
}

static void t_golden(void)
{
	for (int k = 0; k < 4; k++) {
		int big = k & 1, version = 1 + (k >> 1);
		struct tb t;
		struct sps_file f;
		struct err e = {0};
		build(&t, big, version, -1);
		CHECK_INT(sps_parse(t.b, t.n, "s.sps", &f, &e), 0);
		CHECK_INT(f.rank, 5);
		CHECK_INT(f.hz, 997);
		CHECK_INT(f.ticks, 1234);
		CHECK_INT(f.nr_regions, 2);
		CHECK(memcmp(f.regions[1].s, "io", 2) == 0);
		CHECK_INT(f.nr_modules, 1);
		CHECK(f.modules[0].load_address == 0x555555554000ull);
		CHECK_INT(f.nr_samples, 3);
		struct sps_sample s = sps_file__sample(&f, 2);
		CHECK_INT(s.region, -1);
		CHECK_INT(s.module, 0);
		CHECK(s.address == 0x555555555125ull);
		CHECK_INT(sps_file__sample(&f, 1).module, -1);
		/* a version-1 sample weighs one expiration */
		CHECK_INT(sps_file__sample(&f, 1).weight, version >= 2 ? 7 : 1);
		CHECK_INT(s.weight, 1);
		sps_file__release(&f);
		free(t.b);
	}
}

static void t_errors(void)
{
	struct tb t;
	struct sps_file f;
	struct err e = {0};
	build(&t, false, 1, 7);
	CHECK(sps_parse(t.b, t.n, "bad.sps", &f, &e) < 0);
	CHECK_STR(e.code, "trace.corrupt");
	CHECK(strstr(e.msg, "sample 2: expected a region index -1..1, found 7") != NULL);
	for (size_t n = 0; n < t.n; n++) {
		CHECK(sps_parse(t.b, n, "cut.sps", &f, &e) < 0);
		CHECK(strcmp(e.code, "trace.truncated") == 0 || strcmp(e.code, "trace.bad_magic") == 0);
	}
	free(t.b);
	build_w(&t, false, 2, 0, 0);
	CHECK(sps_parse(t.b, t.n, "w0.sps", &f, &e) < 0);
	CHECK_STR(e.code, "trace.corrupt");
	CHECK(strstr(e.msg, "sample 2: expected a weight >= 1, found 0") != NULL);
	for (size_t n = 0; n < t.n; n++) {
		CHECK(sps_parse(t.b, n, "cut.sps", &f, &e) < 0);
		CHECK(strcmp(e.code, "trace.truncated") == 0 || strcmp(e.code, "trace.bad_magic") == 0);
	}
	free(t.b);
	build(&t, true, 3, 0);
	CHECK(sps_parse(t.b, t.n, "new.sps", &f, &e) < 0);
	CHECK_STR(e.code, "trace.newer_version");
	CHECK_STR(e.msg, "new.sps: byte 8: sample format version 3 is newer than this reader "
			 "(expected 1..2): update nunatak");
	free(t.b);
}

static const struct test_case cases[] = {
	{"golden", ".sps v1 and v2 in both byte orders read back", t_golden},
	{"errors", "bad indices, truncation, newer version", t_errors},
};
TEST_MAIN(cases)
