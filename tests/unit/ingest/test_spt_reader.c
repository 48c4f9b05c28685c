// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include "common/err.h"
#include "ingest/spt_reader.h"
#include "regions/trace_bytes.h"

static const struct tb_call main_calls[] = {{100, 900, 0}};
static const struct tb_call work_calls[] = {{200, 300, 1}, {400, 800, 0}};
static const struct tb_region regs[] = {
	{"main", "main.c", 12, main_calls, 1},
	{"work", NULL, -1, work_calls, 2},
};
static const struct tb_thread threads[] = {{77, "main"}, {78, "worker"}};

static void build(struct tb *t, int version, bool big)
{
	memset(t, 0, sizeof(*t));
	t->big = big;
	tb_spt(t, version, 3, regs, TB_NR(regs), threads, TB_NR(threads));
}

static void check_golden(int version, bool big)
{
	struct tb t;
	struct spt_trace tr;
	struct err e = {0};
	build(&t, version, big);
	CHECK_INT(spt_parse(t.b, t.n, "g.spt", &tr, &e), 0);
	CHECK_INT(tr.version, version);
	CHECK_INT(tr.rank, 3);
	CHECK_INT(tr.nr_regions, 2);
	CHECK(tr.swap == big); /* this machine is little-endian (x86-64, AArch64 LE) */
	CHECK_INT(tr.regions[0].name_len, 4);
	CHECK(memcmp(tr.regions[0].name, "main", 4) == 0);
	if (version >= 2) {
		CHECK_INT(tr.regions[0].line, 12);
		CHECK(tr.regions[0].file && memcmp(tr.regions[0].file, "main.c", 6) == 0);
	} else {
		CHECK_INT(tr.regions[0].line, -1);
		CHECK(tr.regions[0].file == NULL);
	}
	CHECK(tr.regions[1].file == NULL);
	CHECK_INT(tr.regions[1].nr_calls, 2);
	CHECK_INT(spt_load_i64(tr.regions[1].starts + 8, tr.swap), 400);
	CHECK_INT(spt_load_i64(tr.regions[1].ends + 8, tr.swap), 800);
	if (version >= 3) {
		CHECK_INT(spt_load_i32(tr.regions[1].lanes, tr.swap), 1);
		CHECK_INT(tr.nr_threads, 2);
		CHECK_INT(tr.threads[1].tid, 78);
		CHECK(memcmp(tr.threads[1].name, "worker", 6) == 0);
	} else {
		CHECK(tr.regions[1].lanes == NULL);
		CHECK_INT(tr.nr_threads, 0);
	}
	spt_trace__release(&tr);
	free(t.b);
}

static void t_golden(void)
{
	for (int v = 1; v <= 3; v++) {
		check_golden(v, false);
		check_golden(v, true);
	}
}

/* Every proper prefix of a valid trace is refused, never read out of bounds. */
static void t_truncated_everywhere(void)
{
	for (int v = 1; v <= 3; v++) {
		struct tb t;
		build(&t, v, v == 2);
		for (size_t n = 0; n < t.n; n++) {
			unsigned char *copy = malloc(n + 1);
			memcpy(copy, t.b, n);
			struct spt_trace tr;
			struct err e = {0};
			CHECK(spt_parse(copy, n, "t.spt", &tr, &e) < 0);
			CHECK(strcmp(e.code, "trace.truncated") == 0 ||
			      (n < 8 && strcmp(e.code, "trace.bad_magic") == 0));
			free(copy);
		}
		free(t.b);
	}
}

static void t_messages(void)
{
	struct tb t;
	struct spt_trace tr;
	struct err e = {0};
	build(&t, 2, false);
	/* Cut inside the end timestamps of "work" (2 calls, 16 bytes each). */
	size_t cut = t.n - 8;
	CHECK(spt_parse(t.b, cut, "r.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.truncated");
	CHECK(strstr(e.msg, "r.spt: byte ") == e.msg);
	CHECK(strstr(e.msg, "region 'work' claims 2 calls") != NULL);

	memcpy(t.b, "SCOPEPRX", 8);
	CHECK(spt_parse(t.b, t.n, "m.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.bad_magic");
	CHECK_STR(e.msg, "m.spt: byte 0: not a scope_profiler trace: expected magic \"SCOPEPRF\", "
			 "found other bytes");
	free(t.b);

	build(&t, 4, true);
	CHECK(spt_parse(t.b, t.n, "n.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.newer_version");
	CHECK_STR(e.msg, "n.spt: byte 8: trace format version 4 is newer than this reader "
			 "(expected 1..3): update nunatak");
	free(t.b);

	build(&t, 2, false);
	tb_raw(&t, "xx", 2);
	CHECK(spt_parse(t.b, t.n, "x.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.corrupt");
	CHECK(strstr(e.msg, "expected the end of the trace, found 2 more bytes") != NULL);
	free(t.b);
}

static void t_negative_lengths(void)
{
	struct tb t = {0};
	struct spt_trace tr;
	struct err e = {0};
	tb_raw(&t, "SCOPEPRF", 8);
	tb_i32(&t, 1);
	tb_i32(&t, 0);
	tb_i64(&t, 1);
	tb_i32(&t, -5);
	tb_raw(&t, "padpadpadpad", 12);
	CHECK(spt_parse(t.b, t.n, "neg.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.corrupt");
	CHECK_STR(e.msg, "neg.spt: byte 24: expected a region name length (>= 0), found -5");
	free(t.b);
	/* A huge region count is refused before any allocation. */
	memset(&t, 0, sizeof(t));
	tb_raw(&t, "SCOPEPRF", 8);
	tb_i32(&t, 2);
	tb_i32(&t, 0);
	tb_i64(&t, INT64_MAX);
	CHECK(spt_parse(t.b, t.n, "big.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.truncated");
	free(t.b);
}

static const struct test_case cases[] = {
	{"golden", "v1-v3 traces in both byte orders read back field by field", t_golden},
	{"truncated", "every prefix of a trace is refused with trace.truncated",
	 t_truncated_everywhere},
	{"messages", "bad magic, newer version, trailing bytes: exact messages", t_messages},
	{"negative", "negative and absurd lengths are refused", t_negative_lengths},
};
TEST_MAIN(cases)
