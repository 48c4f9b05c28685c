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

static unsigned char *read_seed(const char *name, size_t *n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/fuzz_spt_reader/%s", TEST_SOURCE_DIR,
		 name);
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	static unsigned char buf[4096];
	*n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	return buf;
}

/* tests/fuzz/corpus/fuzz_spt_reader/unfinished_le: two threads, TSC clock
 * with anchors (100 -> 1000 ns, 10100 -> 6000 ns: 0.5 ns a tick), a call of
 * a non-descriptor handle, and a CALL frame cut after 40 of its 480 bytes. */
static void t_unfinished(void)
{
	size_t n;
	const unsigned char *b = read_seed("unfinished_le", &n);
	struct spt_trace tr;
	struct err e = {0};
	CHECK_INT(spt_parse(b, n, "u.spt", &tr, &e), 0);
	CHECK(tr.cut.cut);
	CHECK_INT(tr.rank, 3);
	CHECK_INT(tr.version, 3); /* two lanes recorded */
	CHECK_INT(tr.cut.pid, 4242);
	CHECK_INT(tr.cut.calls, 3);
	CHECK_INT(tr.cut.frames, 2);
	CHECK_INT(tr.cut.dropped_calls, 1);
	CHECK_INT((int64_t)tr.cut.bytes_used, 410);
	CHECK_INT((int64_t)tr.cut.bytes_total, 458);
	CHECK_INT(tr.nr_regions, 2);
	CHECK(tr.regions[0].name_len == 5 && memcmp(tr.regions[0].name, "solve", 5) == 0);
	CHECK_INT(tr.regions[0].nr_calls, 2);
	CHECK_INT(tr.regions[0].line, 12);
	/* sorted by start: 150 ticks -> 1025 ns on lane 0, 1000 -> 1450 ns on lane 1 */
	CHECK_INT(spt_load_i64(tr.regions[0].starts, false), 1025);
	CHECK_INT(spt_load_i64(tr.regions[0].starts + 8, false), 1450);
	CHECK_INT(spt_load_i64(tr.regions[0].ends, false), 1150);
	CHECK_INT(spt_load_i32(tr.regions[0].lanes + 4, false), 1);
	CHECK_INT(tr.cut.last_ns, 1950);
	CHECK_INT(tr.nr_threads, 2);
	CHECK_INT(tr.threads[1].tid, 78);
	CHECK(tr.image != NULL);
	spt_trace__release(&tr);
	/* every prefix either recovers fewer calls or is refused cleanly */
	int64_t last = -1;
	for (size_t cut = 0; cut <= n; cut++) {
		int rc = spt_parse(b, cut, "p.spt", &tr, &e);
		if (rc == 0) {
			CHECK(tr.cut.calls >= last || cut < 48);
			last = tr.cut.calls;
			spt_trace__release(&tr);
		} else {
			CHECK(cut < 48 || strcmp(e.code, "trace.corrupt") == 0);
		}
	}
}

static void t_extension(void)
{
	size_t n;
	const unsigned char *b = read_seed("v2_ext", &n);
	struct spt_trace tr;
	struct err e = {0};
	CHECK_INT(spt_parse(b, n, "x.spt", &tr, &e), 0);
	CHECK(tr.ext.present && tr.ext.has_timing);
	CHECK_INT(tr.ext.init_ns, 1);
	CHECK_INT(tr.ext.finalize_ns, 100);
	CHECK_INT(tr.ext.nr_lanes, 1);
	CHECK_INT(spt_load_i64(tr.ext.lanes + 16, false), 40); /* CPU ns */
	CHECK_INT(tr.ext.nr_misuse, 2);
	CHECK_INT(tr.ext.misuse[0].kind, 1);
	CHECK_INT(tr.ext.misuse[0].count, 3);
	CHECK_INT(tr.ext.misuse[0].nr_names, 1);
	CHECK_INT(tr.ext.misuse[0].names[0].count, 3);
	CHECK_INT(tr.ext.misuse[1].kind, 5);
	spt_trace__release(&tr);
	/* a wrong extension length is refused with the offset */
	unsigned char copy[4096];
	memcpy(copy, b, n);
	CHECK(spt_parse(copy, n - 1, "y.spt", &tr, &e) < 0);
	CHECK_STR(e.code, "trace.corrupt");
}

static const struct test_case cases[] = {
	{"unfinished", "an unfinished trace: complete frames recovered, cut reported",
	 t_unfinished},
	{"extension", "the extension block: timing and misuse read back", t_extension},
	{"golden", "v1-v3 traces in both byte orders read back field by field", t_golden},
	{"truncated", "every prefix of a trace is refused with trace.truncated",
	 t_truncated_everywhere},
	{"messages", "bad magic, newer version, trailing bytes: exact messages", t_messages},
	{"negative", "negative and absurd lengths are refused", t_negative_lengths},
};
TEST_MAIN(cases)
