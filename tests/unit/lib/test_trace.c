/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals: the call sort, the clock map, safe string reads, the writers. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "clock.h"
#include "harness.h"
#include "site_read.h"
#include "trace.h"
#include "writer.h"

static int cmp_start(const void *a, const void *b)
{
	const struct sp_call_out *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns > y->end_ns ? -1 : x->end_ns < y->end_ns;
}

static void t_sort(void)
{
	size_t n = 100000;
	struct sp_call_out *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	CHECK(a && b);
	/* 7 lanes interleaved, each sorted: what several threads produce. */
	for (size_t i = 0; i < n; i++) {
		a[i].lane = (int32_t)(i % 7);
		a[i].start_ns = (int64_t)((i / 7) * 10 + (size_t)a[i].lane * 3);
		a[i].end_ns = a[i].start_ns + 1;
	}
	/* group by lane so the array is 7 sorted runs */
	size_t k = 0;
	for (int l = 0; l < 7; l++)
		for (size_t i = (size_t)l; i < n; i += 7)
			b[k++] = a[i];
	memcpy(a, b, n * sizeof(*a));
	qsort(b, n, sizeof(*b), cmp_start);
	CHECK_INT(sp_trace__sort_calls(a, n), 0);
	for (size_t i = 0; i < n; i++)
		CHECK(a[i].start_ns == b[i].start_ns && a[i].lane == b[i].lane);
	/* random keys; equal starts: the longer (enclosing) call first, and
	 * recording order kept for full ties */
	srand(1);
	for (size_t i = 0; i < n; i++) {
		a[i].start_ns = rand() % 1000;
		a[i].end_ns = a[i].start_ns + rand() % 3;
		a[i].lane = (int32_t)i;
	}
	CHECK_INT(sp_trace__sort_calls(a, n), 0);
	for (size_t i = 1; i < n; i++) {
		CHECK(a[i].start_ns >= a[i - 1].start_ns);
		if (a[i].start_ns == a[i - 1].start_ns) {
			CHECK(a[i].end_ns <= a[i - 1].end_ns);
			if (a[i].end_ns == a[i - 1].end_ns)
				CHECK(a[i].lane > a[i - 1].lane);
		}
	}
	/* nested calls recorded innermost first, all starting at one tick */
	struct sp_call_out nest[3] = {{5, 6, 0}, {5, 8, 0}, {5, 9, 0}};
	CHECK_INT(sp_trace__sort_calls(nest, 3), 0);
	CHECK(nest[0].end_ns == 9 && nest[1].end_ns == 8 && nest[2].end_ns == 6);
	CHECK_INT(sp_trace__sort_calls(a, 0), 0);
	free(a);
	free(b);
}

static void t_clock_map(void)
{
	/* A 2 GHz TSC whose monotonic clock is slewed in the second second. */
	uint64_t tsc[] = {1000, 2000001000, 4000001000};
	uint64_t mono[] = {5000000000, 6000000000, 7000100000};
	sp_clock__set_anchors_for_test(tsc, mono, 3, true);
	struct sp_clock_map m;
	CHECK_INT(sp_clock_map__init(&m), 0);
	CHECK_INT(m.nr, 3);
	CHECK_INT(sp_clock_map__ns(&m, 1000), 5000000000);
	CHECK_INT(sp_clock_map__ns(&m, 1000001000), 5500000000);
	CHECK_INT(sp_clock_map__ns(&m, 3000001000), 6500050000);
	CHECK_INT(sp_clock_map__ns(&m, 4000001000), 7000100000);
	CHECK_INT(sp_clock_map__ns(&m, 1001000), 5000500000); /* back in segment 0 */
	CHECK_INT(sp_clock_map__ns(&m, 6000001000), 8000200000); /* extrapolated */
	CHECK_NEAR(sp_clock_map__span_ns(&m, 2000), 1000.05, 0.01);
	sp_clock_map__exit(&m);
}

static void t_clock_accuracy(void)
{
	/* Real clock: stamps mapped after the fact land within 1 us of the
	 * CLOCK_MONOTONIC reads that bracket them. */
	sp_clock__init();
	enum { N = 50 };
	uint64_t before[N], stamp[N], after[N];
	for (int i = 0; i < N; i++) {
		before[i] = sp_clock__mono_ns();
		stamp[i] = sp_clock__now();
		after[i] = sp_clock__mono_ns();
		struct timespec d = {0, 4000000};
		nanosleep(&d, NULL);
		if (i % 10 == 0)
			sp_clock__anchor();
	}
	struct sp_clock_map m;
	CHECK_INT(sp_clock_map__init(&m), 0);
	for (int i = 0; i < N; i++) {
		int64_t ns = sp_clock_map__ns(&m, stamp[i]);
		CHECK(ns >= (int64_t)before[i] - 1000);
		CHECK(ns <= (int64_t)after[i] + 1000);
	}
	sp_clock_map__exit(&m);
}

static void t_read_string(void)
{
	char *s = sp_mem__read_string("hello", 100);
	CHECK_STR(s, "hello");
	free(s);
	CHECK(sp_mem__read_string("too long", 3) == NULL);
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	munmap(page + 4096, 4096);
	memset(page, 'x', 4096); /* no NUL before the unmapped page */
	CHECK(sp_mem__read_string(page + 4000, 1000) == NULL);
	page[4095] = 0; /* ends right before it */
	s = sp_mem__read_string(page + 4090, 1000);
	CHECK_STR(s, "xxxxx");
	free(s);
	CHECK(sp_mem__read_string(page + 4096, 10) == NULL);
	CHECK(sp_mem__read_string(NULL, 10) == NULL);
}

static struct sp_trace sample_trace(struct sp_region_out *reg, struct sp_call_out *calls,
				    struct sp_module_out *mod)
{
	struct sp_trace tr;
	memset(&tr, 0, sizeof(tr));
	tr.rank = 7;
	calls[0] = (struct sp_call_out){100, 200, 0};
	calls[1] = (struct sp_call_out){300, 450, 1};
	static char solve[] = "solve", sc[] = "s.c", io[] = "io", app[] = "/bin/app";
	reg[0] = (struct sp_region_out){solve, sc, 12, 2, calls, 0};
	reg[1] = (struct sp_region_out){io, NULL, -1, 0, calls + 2, 0};
	tr.nr_regions = 2;
	tr.regions = reg;
	tr.nr_calls = 2;
	tr.calls = calls;
	mod[0] = (struct sp_module_out){app, 0x400000};
	tr.nr_modules = 1;
	tr.modules = mod;
	return tr;
}

static void read_all(const char *path, unsigned char *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");
	CHECK(f);
	*len = fread(buf, 1, cap, f);
	fclose(f);
}

static void t_spt_v2_v3(void)
{
	struct sp_region_out reg[2];
	struct sp_call_out calls[2];
	struct sp_module_out mod[1];
	struct sp_trace tr = sample_trace(reg, calls, mod);
	char path[] = "/tmp/sp-w-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	tr.nr_lanes = 1;
	CHECK_INT(sp_writer__spt(&tr, path), 0);
	unsigned char b[512];
	size_t n;
	read_all(path, b, sizeof(b), &n);
	/* 8 magic + 4 version + 4 rank + 8 count; "solve": 4+5 + 4+3 + 4 + 8 +
	 * 2*8*2; "io": 4+2 + 4+0 + 4 + 8 */
	CHECK_INT(n, 24 + (9 + 7 + 4 + 8 + 32) + (6 + 4 + 4 + 8));
	CHECK(memcmp(b, "SCOPEPRF", 8) == 0);
	int32_t v, rank, line;
	int64_t cnt, t0;
	memcpy(&v, b + 8, 4);
	memcpy(&rank, b + 12, 4);
	memcpy(&cnt, b + 16, 8);
	CHECK_INT(v, 2);
	CHECK_INT(rank, 7);
	CHECK_INT(cnt, 2);
	CHECK(memcmp(b + 28, "solve", 5) == 0);
	memcpy(&line, b + 40, 4);
	CHECK_INT(line, 12);
	memcpy(&t0, b + 52, 8);
	CHECK_INT(t0, 100);
	memcpy(&t0, b + 68, 8); /* ends follow the starts */
	CHECK_INT(t0, 200);
	struct sp_lane_out lanes[2] = {{11, "main", 0, 0, -1}, {12, "w", 0, 0, -1}};
	tr.lanes = lanes;
	tr.nr_lanes = 2;
	CHECK_INT(sp_writer__spt(&tr, path), 0);
	read_all(path, b, sizeof(b), &n);
	/* + lanes (2 * int32) + nthreads + 2 * (tid + len + name) */
	CHECK_INT(n, 24 + 60 + 8 + 22 + 4 + (8 + 4 + 4) + (8 + 4 + 1));
	memcpy(&v, b + 8, 4);
	CHECK_INT(v, 3);
	int32_t lane1;
	memcpy(&lane1, b + 84 + 4, 4);
	CHECK_INT(lane1, 1);
	unlink(path);
}

static void t_sps(void)
{
	struct sp_region_out reg[2];
	struct sp_call_out calls[2];
	struct sp_module_out mod[1];
	struct sp_trace tr = sample_trace(reg, calls, mod);
	int32_t sr[2] = {0, -1}, sm[2] = {0, -1};
	uint64_t sa[2] = {0x401234, 0x7fff0000};
	int32_t sw[2] = {1, 2}; /* the second signal stood for two expirations */
	tr.sample_weight = sw;
	tr.sample_region = sr;
	tr.sample_module = sm;
	tr.sample_addr = sa;
	tr.nr_samples = 2;
	tr.stats.effective_hz = 249.6;
	tr.stats.requested_hz = 1000;
	tr.stats.ticks = 3;
	char path[] = "/tmp/sp-w-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(sp_writer__sps(&tr, path), 0);
	unsigned char b[512];
	size_t n;
	read_all(path, b, sizeof(b), &n);
	CHECK_INT(n, 8 + 4 + 4 + 4 + 8 + 4 + 9 + 6 + 4 + (4 + 8 + 8) + 8 + 2 * 20);
	int32_t version;
	memcpy(&version, b + 8, 4);
	CHECK_INT(version, 2);
	int32_t hz;
	int64_t ticks;
	memcpy(&hz, b + 16, 4);
	memcpy(&ticks, b + 20, 8);
	CHECK_INT(hz, 250); /* the achieved rate, not the 1000 asked for */
	CHECK_INT(ticks, 3);
	uint64_t base, addr;
	memcpy(&base, b + 28 + 4 + 9 + 6 + 4 + 12, 8);
	CHECK_INT(base, 0x400000);
	memcpy(&addr, b + n - 12, 8);
	CHECK_INT(addr, 0x7fff0000);
	int32_t mod_last, weight_last;
	memcpy(&mod_last, b + n - 16, 4);
	CHECK_INT(mod_last, -1);
	memcpy(&weight_last, b + n - 4, 4);
	CHECK_INT(weight_last, 2);
	unlink(path);
}

static void t_atomic_write(void)
{
	char dir[] = "/tmp/sp-w-XXXXXX";
	CHECK(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/missing/x.spt", dir);
	struct sp_out *o = malloc(sizeof(*o));
	CHECK(sp_out__open(o, path) < 0);
	CHECK(sp_out__commit(o) < 0);
	/* A write error (disk full) leaves neither the final nor a temp file. */
	snprintf(path, sizeof(path), "%s/x.spt", dir);
	CHECK_INT(sp_out__open(o, path), 0);
	int full = open("/dev/full", O_WRONLY);
	if (full >= 0) {
		dup2(full, o->fd);
		close(full);
		static unsigned char big[1 << 17];
		sp_out__write(o, big, sizeof(big));
		CHECK_INT(sp_out__commit(o), -ENOSPC);
		struct stat st;
		CHECK(stat(path, &st) != 0);
	} else {
		sp_out__commit(o);
		unlink(path);
	}
	free(o);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int nfiles = -1;
	CHECK(p && fscanf(p, "%d", &nfiles) == 1);
	pclose(p);
	CHECK_INT(nfiles, 0);
	rmdir(dir);
}

static void t_path(void)
{
	char *p = sp_writer__path("out/run", 42, ".spt");
	CHECK_STR(p, "out/run_rank00042.spt");
	free(p);
}

static const struct test_case cases[] = {
	{"sort", "natural merge sort equals qsort, stable", t_sort},
	{"clock_map", "piecewise-linear TSC -> monotonic mapping", t_clock_map},
	{"clock_accuracy", "mapped stamps within 1 us of CLOCK_MONOTONIC", t_clock_accuracy},
	{"read_string", "strings read safely up to unmapped pages", t_read_string},
	{"spt_v2_v3", ".spt byte layout, v2 and v3", t_spt_v2_v3},
	{"sps", ".sps byte layout with effective rate", t_sps},
	{"atomic_write", "failed writes leave no file behind", t_atomic_write},
	{"path", "<prefix>_rank<NNNNN><suffix>", t_path},
};
TEST_MAIN(cases)
