// SPDX-License-Identifier: BSD-3-Clause
// perf.data direct reader: agreement with the perf script path on fixtures
// recorded here and on fresh recordings (a large one also against a naive
// aggregate of every sample), error codes on bad input.
#include "harness.h"
#include "test_perf_util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "common/alloc.h"
#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "ingest/perf_data.h"
#include "ingest/perf_script.h"
#include "model/model.h"

#define FIX TEST_SOURCE_DIR "/tests/golden/perf-data/"

extern char **environ;

static const struct ingest_opts opts = {.sz = sizeof(opts), .node = "n", .rank = -1};

/* Same measurements (module, offset, tid, counter, value, n) and stacks. */
static void check_same(const struct pivot *a, const struct pivot *b)
{
	CHECK_INT(a->nr_measurements, b->nr_measurements);
	CHECK_INT(a->nr_hotspots, b->nr_hotspots);
	for (size_t i = 0; i < a->nr_measurements; i++) {
		const struct measurement *x = &a->measurements[i], *y = &b->measurements[i];
		const struct hotspot *hx = &a->hotspots[x->hotspot], *hy = &b->hotspots[y->hotspot];
		CHECK_STR(hx->module, hy->module);
		CHECK_INT(hx->has_offset, hy->has_offset);
		CHECK_INT(hx->offset, hy->offset);
		CHECK_INT(a->loci[x->locus].thread, b->loci[y->locus].thread);
		CHECK_STR(x->counter, y->counter);
		CHECK_NEAR(x->value, y->value, 0);
		CHECK_INT(x->sample_count, y->sample_count);
	}
	CHECK_INT(a->nr_stacks, b->nr_stacks);
	CHECK_INT(a->nr_stack_frames, b->nr_stack_frames);
	for (size_t i = 0; i < a->nr_stacks; i++) {
		CHECK_INT(a->stacks[i].sample_count, b->stacks[i].sample_count);
		CHECK_NEAR(a->stacks[i].value, b->stacks[i].value, 0);
	}
	for (size_t i = 0; i < a->nr_stack_frames; i++) {
		CHECK_STR(a->stack_frames[i].module, b->stack_frames[i].module);
		CHECK_INT(a->stack_frames[i].offset, b->stack_frames[i].offset);
		CHECK_INT(a->stack_frames[i].depth, b->stack_frames[i].depth);
	}
}

static void agree(const char *data_path, const char *script_path, uint64_t *samples)
{
	size_t tl;
	char *txt = slurp(script_path, &tl);
	CHECK(txt != NULL);
	struct pivot s, d;
	pivot__init(&s);
	pivot__init(&d);
	struct ingest_stats ss = {0}, ds = {0};
	struct err e = {0};
	CHECK_INT(ingest_perf_script(txt, tl, &opts, &s, &ss, &e), 0);
	CHECK_INT(ss.nr_unparsed, 0);
	CHECK_INT(ss.nr_no_offset, 0);
	int rc = ingest_perf_data_file(data_path, &opts, &d, &ds, &e);
	if (rc)
		fprintf(stderr, "%s: %s\n", e.code, e.msg);
	CHECK_INT(rc, 0);
	CHECK_INT(ss.nr_samples, ds.nr_samples);
	CHECK(ds.nr_samples > 0);
	check_same(&s, &d);
	*samples = ds.nr_samples;
	pivot__release(&s);
	pivot__release(&d);
	ingest_stats__release(&ss);
	ingest_stats__release(&ds);
	free(txt);
}

static void t_fixtures_agree(void)
{
	uint64_t n;
	agree(FIX "flat.data", FIX "flat.script.txt", &n);
	CHECK_INT(n, 21);
	agree(FIX "callgraph.data", FIX "callgraph.script.txt", &n);
	CHECK_INT(n, 62);
	agree(FIX "fork.data", FIX "fork.script.txt", &n); /* child inherits maps */
	CHECK_INT(n, 106);
	struct pivot p;
	pivot__init(&p);
	struct ingest_stats st = {0};
	CHECK_INT(ingest_perf_data_file(FIX "fork.data", &opts, &p, &st, NULL), 0);
	int64_t tids[2] = {-1, -1};
	for (size_t i = 0; i < p.nr_measurements; i++) {
		const struct measurement *m = &p.measurements[i];
		int64_t tid = p.loci[m->locus].thread;
		if (strcmp(p.hotspots[m->hotspot].module, "/tmp/ing_fork") || tid == tids[0])
			continue;
		CHECK(p.hotspots[m->hotspot].has_offset);
		if (tids[0] < 0)
			tids[0] = tid;
		else
			tids[1] = tid;
	}
	CHECK(tids[1] >= 0); /* parent and forked child both resolved in the binary */
	pivot__release(&p);
	ingest_stats__release(&st);
}

/* fork.data with its FORK records moved before every other record of the
 * data section (perf writes each CPU's buffer in turn within a round: under
 * load a child's FORK came before its parent's MMAPs, seen in
 * large_recording): the same aggregate, the child resolved. */
static void t_fork_first(void)
{
	size_t len;
	unsigned char *buf = (unsigned char *)slurp(FIX "fork.data", &len);
	CHECK(buf && len > 104);
	uint64_t doff, dsize;
	memcpy(&doff, buf + 40, 8);
	memcpy(&dsize, buf + 48, 8);
	CHECK(doff + dsize <= len);
	unsigned char *moved = malloc(len);
	CHECK(moved != NULL);
	memcpy(moved, buf, len);
	size_t w = doff, forks = 0;
	for (int pass = 0; pass < 2; pass++) /* FORKs first, then the rest in order */
		for (size_t off = doff; off + 8 <= doff + dsize;) {
			uint32_t type;
			uint16_t size;
			memcpy(&type, buf + off, 4);
			memcpy(&size, buf + off + 6, 2);
			CHECK(size >= 8 && off + size <= doff + dsize);
			if ((type == PERF_RECORD_FORK) == (pass == 0)) {
				memcpy(moved + w, buf + off, size);
				w += size;
				forks += pass == 0;
			}
			off += size;
		}
	CHECK_INT(w, doff + dsize);
	CHECK(forks >= 1);
	struct pivot a, b;
	pivot__init(&a);
	pivot__init(&b);
	struct ingest_stats sa = {0}, sb = {0};
	CHECK_INT(ingest_perf_data(buf, len, &opts, &a, &sa, NULL), 0);
	CHECK_INT(ingest_perf_data(moved, len, &opts, &b, &sb, NULL), 0);
	check_same(&a, &b);
	size_t in_child = 0; /* the child (tid == pid, not the parent's) in the binary */
	int64_t parent = -1;
	for (size_t i = 0; i < b.nr_measurements; i++) {
		const struct measurement *m = &b.measurements[i];
		int64_t tid = b.loci[m->locus].thread;
		if (strcmp(b.hotspots[m->hotspot].module, "/tmp/ing_fork"))
			continue;
		if (parent < 0)
			parent = tid;
		in_child += tid != parent;
	}
	CHECK(in_child > 0);
	pivot__release(&a);
	pivot__release(&b);
	ingest_stats__release(&sa);
	ingest_stats__release(&sb);
	free(moved);
	free(buf);
}

static int count_sink(void *ctx, const struct ingest_sample *s)
{
	(void)s;
	(*(uint64_t *)ctx)++;
	return 0;
}

struct chains {
	size_t n;
	uint64_t nr[4096];
	uint64_t hit[4096];
};

static int chains_sink(void *ctx, const struct ingest_sample *s)
{
	struct chains *c = ctx;
	if (c->n < 4096) {
		c->nr[c->n] = s->nr_callchain;
		c->hit[c->n] = s->hit.offset;
	}
	c->n++;
	return 0;
}

/* A value in the callchain markers' range that is no marker (seen under
 * load: {USER, ip, 0xffffffffffffffb8, 0}, the frame-pointer walk reading
 * junk) discards that sample's chain, as perf does; the sample keeps its
 * own address and every other sample is untouched. Before, the entries
 * after it were read as hypervisor addresses: callers named "[unknown]". */
static void t_junk_marker(void)
{
	size_t len;
	unsigned char *buf = (unsigned char *)slurp(FIX "callgraph.data", &len);
	CHECK(buf && len > 104);
	uint64_t doff, dsize;
	memcpy(&doff, buf + 40, 8);
	memcpy(&dsize, buf + 48, 8);
	CHECK(doff + dsize <= len);
	struct chains *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	CHECK(a && b);
	struct ingest_stats st = {0};
	CHECK_INT(perf_data__read(buf, len, chains_sink, a, NULL, &st, NULL), 0);
	ingest_stats__release(&st);
	CHECK(a->n > 0 && a->n <= 4096);
	/* the first user chain with two frames after its marker, patched at the
	 * first caller (records are 8-byte aligned in the data section) */
	const uint64_t user = (uint64_t)PERF_CONTEXT_USER, junk = 0xffffffffffffffb8ull;
	size_t at = 0;
	for (size_t off = doff; off + 24 <= doff + dsize && !at; off += 8) {
		uint64_t v[3];
		memcpy(v, buf + off, 24);
		if (v[0] == user && v[1] && v[1] < (uint64_t)PERF_CONTEXT_MAX && v[2] &&
		    v[2] < (uint64_t)PERF_CONTEXT_MAX)
			at = off + 16;
	}
	CHECK(at != 0);
	memcpy(buf + at, &junk, 8);
	CHECK_INT(perf_data__read(buf, len, chains_sink, b, NULL, &st, NULL), 0);
	ingest_stats__release(&st);
	CHECK_INT(b->n, a->n);
	size_t changed = 0;
	for (size_t i = 0; i < a->n; i++) {
		CHECK(b->hit[i] == a->hit[i]);
		if (b->nr[i] != a->nr[i]) {
			changed++;
			CHECK(a->nr[i] >= 2);
			CHECK_INT(b->nr[i], 0);
		}
	}
	CHECK_INT(changed, 1);
	free(a);
	free(b);
	free(buf);
}

/* HEADER_BUILD_ID agrees with `perf buildid-list` on the same file. */
static void t_buildids(void)
{
	size_t len, tl;
	char *buf = slurp(FIX "flat.data", &len);
	char *txt = slurp(FIX "flat.buildid-list.txt", &tl);
	CHECK(buf && txt);
	struct buildid_list fromtool, fromfile;
	buildid_list__init(&fromtool);
	buildid_list__init(&fromfile);
	CHECK_INT(buildid_list__parse(&fromtool, txt, tl, NULL), 0);
	CHECK(fromtool.n >= 3);
	struct ingest_stats st = {0};
	uint64_t n = 0;
	CHECK_INT(perf_data__read(buf, len, count_sink, &n, &fromfile, &st, NULL), 0);
	CHECK_INT(n, 21);
	for (size_t i = 0; i < fromtool.n; i++) {
		const char *b = buildid_list__find(&fromfile, fromtool.v[i].path);
		CHECK(b != NULL);
		CHECK_STR(b, fromtool.v[i].build_id);
	}
	buildid_list__release(&fromtool);
	buildid_list__release(&fromfile);
	free(buf);
	free(txt);
}

/* perf record --buildid-mmap writes no HEADER_BUILD_ID: the kernel put each
 * module's build-id into its MMAP2 record, and the reader finds every one
 * `perf buildid-list` names (the kernel's included). */
static void t_buildids_mmap(void)
{
	size_t len, tl;
	char *buf = slurp(FIX "mmap-buildid.data", &len);
	char *txt = slurp(FIX "mmap-buildid.buildid-list.txt", &tl);
	CHECK(buf && txt);
	struct buildid_list fromtool, fromfile;
	buildid_list__init(&fromtool);
	buildid_list__init(&fromfile);
	CHECK_INT(buildid_list__parse(&fromtool, txt, tl, NULL), 0);
	CHECK_INT(fromtool.n, 2);
	struct ingest_stats st = {0};
	uint64_t n = 0;
	CHECK_INT(perf_data__read(buf, len, count_sink, &n, &fromfile, &st, NULL), 0);
	CHECK(n > 10);
	for (size_t i = 0; i < fromtool.n; i++) {
		const char *b = buildid_list__find(&fromfile, fromtool.v[i].path);
		CHECK(b != NULL);
		CHECK_STR(b, fromtool.v[i].build_id);
	}
	/* the libraries mapped without a sample carry theirs too */
	CHECK(buildid_list__find(&fromfile, "/usr/lib/x86_64-linux-gnu/libc.so.6") != NULL);
	/* the misc bit without an attr asking for build-ids is a leak of the
	 * kernel's (a session watching the same task beside one that asked):
	 * those bytes are a device and an inode, never read as a build-id */
	unsigned char *c = malloc(len);
	memcpy(c, buf, len);
	uint64_t attr_size, attrs_off, attrs_len;
	memcpy(&attr_size, c + 16, 8);
	memcpy(&attrs_off, c + 24, 8);
	memcpy(&attrs_len, c + 32, 8);
	/* each entry: the attr, then its ids section (16 bytes), attr_size in all */
	CHECK(attr_size > 64 && attrs_off + attrs_len <= len && attrs_len >= attr_size);
	for (uint64_t a = attrs_off; a + attr_size <= attrs_off + attrs_len; a += attr_size) {
		CHECK((c[a + 40 + 4] >> 2) & 1); /* build_id: bit 34 of the flags */
		c[a + 40 + 4] &= (unsigned char)~(1u << 2);
	}
	struct buildid_list leaked;
	buildid_list__init(&leaked);
	uint64_t k = 0;
	ingest_stats__release(&st);
	st = (struct ingest_stats){0};
	CHECK_INT(perf_data__read(c, len, count_sink, &k, &leaked, &st, NULL), 0);
	CHECK_INT(k, n);
	CHECK_INT(leaked.n, 0);
	buildid_list__release(&leaked);
	free(c);
	/* without a list to fill, the same file reads the same */
	uint64_t m = 0;
	ingest_stats__release(&st);
	st = (struct ingest_stats){0};
	CHECK_INT(perf_data__read(buf, len, count_sink, &m, NULL, &st, NULL), 0);
	CHECK_INT(m, n);
	ingest_stats__release(&st);
	buildid_list__release(&fromtool);
	buildid_list__release(&fromfile);
	free(buf);
	free(txt);
}

static int read_code(const void *buf, size_t len, char *code)
{
	struct ingest_stats st = {0};
	struct err e = {0};
	uint64_t n = 0;
	int rc = perf_data__read(buf, len, count_sink, &n, NULL, &st, &e);
	snprintf(code, ERR_CODE_SIZE, "%s", rc ? e.code : "");
	ingest_stats__release(&st);
	return rc;
}

static void t_errors(void)
{
	size_t len;
	unsigned char *buf = (unsigned char *)slurp(FIX "flat.data", &len);
	CHECK(buf && len > 200);
	char code[ERR_CODE_SIZE];
	CHECK_INT(read_code(buf, len, code), 0);
	unsigned char *c = malloc(len);
	memcpy(c, buf, len);
	memcpy(c, "2ELIFREP", 8);
	CHECK_INT(read_code(c, len, code), -ENOTSUP);
	CHECK_STR(code, "perf_data.unsupported");
	memcpy(c, "PERFILE2", 8);
	uint64_t sixteen = 16;
	memcpy(c + 8, &sixteen, 8);
	CHECK_INT(read_code(c, len, code), -ENOTSUP); /* pipe mode */
	memcpy(c, buf, len);
	c[72 + 27 / 8] |= 1 << (27 % 8); /* HEADER_COMPRESSED */
	CHECK_INT(read_code(c, len, code), -ENOTSUP);
	memcpy(c, "NOTPERF!", 8);
	CHECK_INT(read_code(c, len, code), -EINVAL);
	CHECK_STR(code, "perf_data.corrupt");
	/* every truncation is either read (data size 0 = to EOF) or refused */
	for (size_t cut = 0; cut < len; cut += 7) {
		int rc = read_code(buf, cut, code);
		CHECK(rc == 0 || rc == -EINVAL || rc == -ENOTSUP);
	}
	free(c);
	free(buf);
}

static int run(const char *const argv[], const char *out)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int st = -1;
	if (posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0)
		waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fresh recording of a CPU-bound shell loop, flat and with call graphs. */
static void t_fresh_recording(void)
{
	char dir[] = "/tmp/nunatak-test-perfdata-XXXXXX";
	if (!mkdtemp(dir))
		FAIL_INPUT("no temp dir");
	char data[256], txt[256];
	snprintf(data, sizeof(data), "%s/x.data", dir);
	snprintf(txt, sizeof(txt), "%s/x.txt", dir);
	const char *ver[] = {"perf", "--version", NULL};
	if (run(ver, NULL) != 0)
		SKIP("perf not installed");
	for (int g = 0; g < 2; g++) {
		const char *rec[] = {"perf", "record", "-e", "task-clock", "--freq", "997", "-k",
			       "CLOCK_MONOTONIC", "-o", data, g ? "-g" : "-q", "--", "/bin/sh",
			       "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done", NULL};
		if (run(rec, NULL) != 0) {
			unlink(data);
			rmdir(dir);
			SKIP("perf cannot record here (perf_event_paranoid?)");
		}
		const char *scr[] = {"perf", "script", "-i", data, "--show-mmap-events",
			       "--show-task-events", "-F", "comm,pid,tid,time,period,event,ip,dso",
			       NULL};
		CHECK_INT(run(scr, txt), 0);
		uint64_t n;
		agree(data, txt, &n);
		CHECK(n >= 10);
	}
	unlink(data);
	unlink(txt);
	rmdir(dir);
}

/* ---- a large recording: the reader against perf script, the aggregate
 * against a naive one (every sample kept, sorted, summed) ---------------- */

/* Three threads in two processes, renamed, in the binary, libc (memset,
 * stdio: the kernel too) and libm opened after the samples began. */
static const char LARGE_SRC[] =
	"#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <pthread.h>\n#include <stdio.h>\n"
	"#include <string.h>\n#include <sys/wait.h>\n#include <unistd.h>\n"
	"static char buf[1 << 18];\n"
	"__attribute__((noinline)) static double leaf(long n)\n"
	"{ double s = 0; for (long i = 0; i < n; i++) s += 1.0 / (double)(i + 1); return s; }\n"
	"__attribute__((noinline)) static double mid(long n)\n"
	"{ memset(buf, (int)n, sizeof buf); return leaf(n) + buf[n % sizeof buf]; }\n"
	"static void *worker(void *name)\n"
	"{\n"
	"	pthread_setname_np(pthread_self(), name);\n"
	"	double s = 0;\n"
	"	for (int k = 0; k < 300; k++) {\n"
	"		s += mid(150000 + k);\n"
	"		FILE *f = fopen(\"/dev/null\", \"w\");\n"
	"		if (f) { fprintf(f, \"%f\", s); fclose(f); }\n"
	"	}\n"
	"	return s > 0 ? name : NULL;\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"	pthread_t t[2];\n"
	"	pthread_create(&t[0], NULL, worker, \"w-one\");\n"
	"	pthread_create(&t[1], NULL, worker, \"w-two\");\n"
	"	pid_t c = fork();\n"
	"	if (c == 0) { worker(\"w-child\"); _exit(0); }\n"
	"	void *h = dlopen(\"libm.so.6\", RTLD_NOW);\n"
	"	double (*cf)(double) = h ? (double (*)(double))dlsym(h, \"cos\") : NULL;\n"
	"	double s = 0;\n"
	"	for (int i = 0; cf && i < 3000000; i++) s += cf(i);\n"
	"	pthread_join(t[0], NULL); pthread_join(t[1], NULL);\n"
	"	int st; waitpid(c, &st, 0);\n"
	"	printf(\"%f\\n\", s);\n"
	"	return 0;\n"
	"}\n";

struct row {
	char *key;
	uint64_t period;
	int64_t n; /* samples */
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static void rows_add(struct rows *r, char *key, uint64_t period, int64_t n)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		CHECK(r->v != NULL);
	}
	CHECK(key != NULL);
	r->v[r->n++] = (struct row){.key = key, .period = period, .n = n};
}

static int cmp_row(const void *x, const void *y)
{
	return strcmp(((const struct row *)x)->key, ((const struct row *)y)->key);
}

/* Sorted, equal keys made one (periods and counts summed). */
static void rows_group(struct rows *r)
{
	if (r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), cmp_row);
	size_t g = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (g && strcmp(r->v[g - 1].key, r->v[i].key) == 0) {
			r->v[g - 1].period += r->v[i].period;
			r->v[g - 1].n += r->v[i].n;
			free(r->v[i].key);
			continue;
		}
		r->v[g++] = r->v[i];
	}
	r->n = g;
}

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].key);
	free(r->v);
}

static char *frame_key(const struct ingest_frame *f)
{
	char *k = NULL;
	CHECK(asprintf(&k, "%.*s@%d:%llx", (int)f->module_len, f->module, f->has_offset,
		       (unsigned long long)(f->has_offset ? f->offset : 0)) > 0);
	return k;
}

/* What the naive aggregate keeps of each sample, and each tid's comm. */
struct naive {
	struct rows flat, stacks;
	int64_t tids[64];
	char comms[64][32];
	size_t nr_tids;
};

static void naive_comm(struct naive *n, const struct ingest_sample *s)
{
	char c[32] = "";
	if (s->comm)
		snprintf(c, sizeof(c), "%.*s", (int)s->comm_len, s->comm);
	for (size_t i = 0; i < n->nr_tids; i++)
		if (n->tids[i] == s->tid) {
			CHECK_STR(n->comms[i], c); /* one comm per thread, whatever came before */
			return;
		}
	CHECK(n->nr_tids < 64);
	n->tids[n->nr_tids] = s->tid;
	memcpy(n->comms[n->nr_tids++], c, sizeof(c));
}

static int naive_sink(void *ctx, const struct ingest_sample *s)
{
	struct naive *n = ctx;
	char canon[128], *k = NULL, *fk = frame_key(&s->hit);
	struct counter_info ci;
	ingest_counter_canon(s->event, s->event_len, canon, sizeof(canon), &ci);
	CHECK(asprintf(&k, "%s|%lld|%s", fk, (long long)s->tid, canon) > 0);
	free(fk);
	rows_add(&n->flat, k, s->period, 1);
	naive_comm(n, s);
	if (!s->callchain || !s->nr_callchain)
		return 0;
	size_t cap = 64, len = (size_t)snprintf(k = malloc(cap), cap, "%lld|%s|",
						(long long)s->tid, canon);
	for (size_t i = 0; i < s->nr_callchain; i++) {
		struct ingest_frame f = s->callchain[i];
		f.offset = f.has_offset ? f.offset : 0; /* a stack frame keeps an offset, */
		f.has_offset = true;                      /* 0 without one */
		fk = frame_key(&f);
		while (len + strlen(fk) + 2 > cap)
			k = realloc(k, cap *= 2);
		len += (size_t)sprintf(k + len, "%s;", fk);
		free(fk);
	}
	rows_add(&n->stacks, k, s->period, 1);
	return 0;
}

/* The pivot's measurements and stacks under the naive keys. */
static void pivot_rows(const struct pivot *p, struct rows *flat, struct rows *stacks)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		const struct hotspot *h = &p->hotspots[m->hotspot];
		char *k = NULL;
		CHECK(asprintf(&k, "%s@%d:%llx|%lld|%s", h->module, h->has_offset,
			       (unsigned long long)h->offset, (long long)p->loci[m->locus].thread,
			       m->counter) > 0);
		CHECK_NEAR(m->value, (double)(uint64_t)m->value, 0); /* task-clock: x1 */
		rows_add(flat, k, (uint64_t)m->value, m->sample_count);
	}
	char **sk = calloc(p->nr_stacks + 1, sizeof(*sk));
	int *depth = calloc(p->nr_stacks + 1, sizeof(*depth));
	CHECK(sk && depth);
	for (size_t i = 0; i < p->nr_stacks; i++)
		CHECK(asprintf(&sk[i], "%lld|%s|", (long long)p->loci[p->stacks[i].locus].thread,
			       p->stacks[i].counter) > 0);
	for (size_t i = 0; i < p->nr_stack_frames; i++) {
		const struct stack_frame *f = &p->stack_frames[i];
		CHECK(f->stack >= 0 && (size_t)f->stack < p->nr_stacks);
		CHECK_INT(f->depth, depth[f->stack]++); /* frames in depth order */
		char *k = NULL;
		CHECK(asprintf(&k, "%s%s@1:%llx;", sk[f->stack], f->module,
			       (unsigned long long)f->offset) > 0);
		free(sk[f->stack]);
		sk[f->stack] = k;
	}
	for (size_t i = 0; i < p->nr_stacks; i++)
		rows_add(stacks, sk[i], (uint64_t)p->stacks[i].value, p->stacks[i].sample_count);
	free(sk);
	free(depth);
}

/* The same keys with the same sums and counts; the pivot's keys unique. */
static void same_rows(struct rows *naive, struct rows *piv)
{
	size_t distinct = piv->n;
	rows_group(naive);
	rows_group(piv);
	CHECK_INT(piv->n, distinct);
	CHECK_INT(naive->n, piv->n);
	for (size_t i = 0; i < naive->n; i++) {
		CHECK_STR(naive->v[i].key, piv->v[i].key);
		CHECK_INT(naive->v[i].period, piv->v[i].period);
		CHECK_INT(naive->v[i].n, piv->v[i].n);
	}
}

/* Samples of the direct reader's rows that the perf script path's do not
 * hold under the same key (*extra), and the reverse (*missing; one more for
 * a key of equal counts and unequal sums). Both sorted and grouped. */
static void rows_diff(const struct rows *script, const struct rows *direct, int64_t *extra,
		      int64_t *missing)
{
	*extra = *missing = 0;
	size_t i = 0, j = 0;
	while (i < direct->n || j < script->n) {
		int c = i == direct->n ? -1 : j == script->n ? 1
			: strcmp(script->v[j].key, direct->v[i].key);
		int64_t d = c >= 0 ? direct->v[i].n : 0, sn = c <= 0 ? script->v[j].n : 0;
		if (d > sn)
			*extra += d - sn;
		else
			*missing += sn - d;
		if (c == 0 && d == sn && direct->v[i].period != script->v[j].period)
			(*missing)++; /* same samples, another sum: never explained */
		i += c >= 0;
		j += c <= 0;
	}
}

/* The two paths on one recording: the same measurements and stacks, except
 * for the samples of lines perf script printed in a shape its parser does
 * not read (counted as unparsed, announced): each such line drops its
 * sample from that path, or a frame from its stack, so moves at most one
 * sample. Without one, exactly equal. Seen about once in 40 loaded runs: a
 * user chain whose frame-pointer walk read a return address that looks
 * like a context marker ({USER, ip, 0xffffffffffffffb8, 0}); perf discards
 * such a chain and prints the sample with no frame (no ip for the parser),
 * the direct reader keeps the ip and ends the chain at the 0. */
static void script_agree(const char *data_path, const char *script_path, uint64_t *samples)
{
	size_t tl;
	char *txt = slurp(script_path, &tl);
	CHECK(txt != NULL);
	struct pivot s, d;
	pivot__init(&s);
	pivot__init(&d);
	struct ingest_stats ss = {0}, ds = {0};
	struct err e = {0};
	CHECK_INT(ingest_perf_script(txt, tl, &opts, &s, &ss, &e), 0);
	CHECK_INT(ingest_perf_data_file(data_path, &opts, &d, &ds, &e), 0);
	if (ss.nr_unparsed)
		fprintf(stderr, "note: perf script printed %llu lines its parser does not read, "
				"line %lld: %s\n", (unsigned long long)ss.nr_unparsed,
			(long long)ss.first_unparsed_line, ss.first_unparsed);
	struct rows sf = {0}, sk = {0}, df = {0}, dk = {0};
	pivot_rows(&s, &sf, &sk);
	pivot_rows(&d, &df, &dk);
	rows_group(&sf);
	rows_group(&sk);
	rows_group(&df);
	rows_group(&dk);
	int64_t unread = (int64_t)ss.nr_unparsed, extra, missing;
	rows_diff(&sf, &df, &extra, &missing);
	CHECK(extra <= unread && missing <= unread);
	rows_diff(&sk, &dk, &extra, &missing);
	CHECK(extra <= unread && missing <= unread);
	CHECK(ds.nr_samples >= ss.nr_samples && ds.nr_samples - ss.nr_samples <= ss.nr_unparsed);
	CHECK(ds.nr_samples > 0);
	*samples = ds.nr_samples;
	rows_free(&sf);
	rows_free(&sk);
	rows_free(&df);
	rows_free(&dk);
	pivot__release(&s);
	pivot__release(&d);
	ingest_stats__release(&ss);
	ingest_stats__release(&ds);
	free(txt);
}

/* Each thread's comm as the reader gave it (one per thread) is the one perf
 * script printed on that thread's last sample; the three workers named. */
static void script_comms(const struct naive *n, const char *script_path)
{
	size_t tl;
	char *txt = slurp(script_path, &tl);
	CHECK(txt != NULL);
	char last[64][32] = {{0}};
	for (char *line = txt, *nl; line < txt + tl; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(txt + tl - line));
		if (!nl)
			nl = txt + tl;
		char comm[32];
		int pid, tid;
		if (!memmem(line, (size_t)(nl - line), " task-clock:", 12) ||
		    sscanf(line, "%31s %d/%d", comm, &pid, &tid) != 3)
			continue;
		for (size_t i = 0; i < n->nr_tids; i++)
			if (n->tids[i] == tid)
				memcpy(last[i], comm, sizeof(comm));
	}
	int workers = 0;
	for (size_t i = 0; i < n->nr_tids; i++) {
		if (!n->comms[i][0])
			continue; /* a thread with no COMM record of its own */
		CHECK_STR(n->comms[i], last[i]);
		workers += !strcmp(last[i], "w-one") + !strcmp(last[i], "w-two") +
			   !strcmp(last[i], "w-child");
	}
	CHECK_INT(workers, 3);
	free(txt);
}

/* The naive aggregate of the reader's samples is ingest_perf_data's pivot. */
static void naive_agree(const char *data_path, const char *script_path)
{
	size_t len;
	char *buf = slurp(data_path, &len);
	CHECK(buf != NULL);
	struct naive *n = calloc(1, sizeof(*n));
	CHECK(n != NULL);
	struct ingest_stats st = {0}, ds = {0};
	CHECK_INT(perf_data__read(buf, len, naive_sink, n, NULL, &st, NULL), 0);
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	CHECK_INT(ingest_perf_data(buf, len, &opts, &p, &ds, &e), 0);
	CHECK_INT(st.nr_samples, ds.nr_samples);
	CHECK_INT(n->flat.n, st.nr_samples);
	struct rows pf = {0}, ps = {0};
	pivot_rows(&p, &pf, &ps);
	same_rows(&n->flat, &pf);
	same_rows(&n->stacks, &ps);
	script_comms(n, script_path);
	rows_free(&n->flat);
	rows_free(&n->stacks);
	rows_free(&pf);
	rows_free(&ps);
	free(n);
	pivot__release(&p);
	ingest_stats__release(&st);
	ingest_stats__release(&ds);
	free(buf);
}

static char large_dir[] = "/tmp/nunatak-test-perfdata-large-XXXXXX";

static void large_cleanup(void)
{
	static const char *const files[] = {"w.c", "w", "x.data", "x.data.old", "x.txt"};
	char path[128];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", large_dir, files[i]);
		unlink(path);
	}
	rmdir(large_dir);
}

/* A recording of tens of thousands of samples (threads, a fork, a library
 * opened midway, flat then with call graphs): both paths agree (see
 * script_agree), and the aggregate is the naive one. Skips without gcc or
 * perf. */
static void t_large_recording(void)
{
	const char *ver[] = {"perf", "--version", NULL}, *gv[] = {"gcc", "--version", NULL};
	if (run(ver, NULL) != 0)
		SKIP("perf not installed");
	if (run(gv, NULL) != 0)
		SKIP("gcc not installed");
	if (!mkdtemp(large_dir))
		FAIL_INPUT("no temp dir");
	atexit(large_cleanup);
	char src[96], bin[96], data[96], txt[96];
	snprintf(src, sizeof(src), "%s/w.c", large_dir);
	snprintf(bin, sizeof(bin), "%s/w", large_dir);
	snprintf(data, sizeof(data), "%s/x.data", large_dir);
	snprintf(txt, sizeof(txt), "%s/x.txt", large_dir);
	FILE *f = fopen(src, "w");
	CHECK(f && fputs(LARGE_SRC, f) >= 0 && fclose(f) == 0);
	const char *cc[] = {"gcc", "-O2", "-g", "-fno-omit-frame-pointer", "-pthread", "-o", bin,
			    src, "-ldl", NULL};
	CHECK_INT(run(cc, NULL), 0);
	for (int g = 0; g < 2; g++) {
		const char *rec[] = {"perf", "record", "-e", "task-clock", "-c", "20000", "-k",
				     "CLOCK_MONOTONIC", "-o", data, g ? "-g" : "-q", "--", bin, NULL};
		if (run(rec, NULL) != 0)
			SKIP("perf cannot record here (perf_event_paranoid?)");
		const char *scr[] = {"perf", "script", "-i", data, "--show-mmap-events",
				     "--show-task-events", "-F",
				     "comm,pid,tid,time,period,event,ip,dso", NULL};
		CHECK_INT(run(scr, txt), 0);
		uint64_t n;
		script_agree(data, txt, &n);
		CHECK(n >= 1000); /* ~25 k here; fewer where the kernel throttles sampling */
		naive_agree(data, txt);
	}
}

/* ---- thread names: two threads renamed while recorded --------------- */

/* The main thread renames itself with prctl after exec named it "n" and
 * starts two threads: one is sampled under one name, then renames itself
 * (a hostile name: markup, quotes) and is sampled again; the other never
 * renames: it keeps the name it had from its maker at its start, not the
 * one the main thread takes later. CPU time, not wall time, decides how
 * long each spins: under load it takes longer, never fewer samples. */
static const char NAMES_SRC[] =
	"#define _GNU_SOURCE\n#include <pthread.h>\n#include <sys/prctl.h>\n#include <time.h>\n"
	"static volatile double sink;\n"
	"static void spin(long ms)\n"
	"{\n"
	"	struct timespec a, b;\n"
	"	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);\n"
	"	do {\n"
	"		for (int i = 0; i < 10000; i++) sink += 1.0 / (i + 1);\n"
	"		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);\n"
	"	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);\n"
	"}\n"
	"static void *worker(void *arg)\n"
	"{\n"
	"	pthread_setname_np(pthread_self(), \"early\");\n"
	"	spin(40);\n"
	"	pthread_setname_np(pthread_self(), \"<b>&\\\"x\");\n"
	"	spin(40);\n"
	"	return arg;\n"
	"}\n"
	"static void *plain(void *arg) { spin(40); return arg; }\n"
	"int main(void)\n"
	"{\n"
	"	prctl(PR_SET_NAME, \"nk-main\", 0, 0, 0);\n"
	"	pthread_t t, u;\n"
	"	pthread_create(&t, NULL, worker, NULL);\n"
	"	pthread_create(&u, NULL, plain, NULL);\n"
	"	spin(40);\n"
	"	prctl(PR_SET_NAME, \"nk-late\", 0, 0, 0);\n"
	"	spin(20);\n"
	"	pthread_join(t, NULL);\n"
	"	pthread_join(u, NULL);\n"
	"	return 0;\n"
	"}\n";

static char names_dir[] = "/tmp/nunatak-test-perfdata-names-XXXXXX";

static void names_cleanup(void)
{
	static const char *const files[] = {"n.c", "n", "x.data", "x.data.old", "x.txt"};
	char path[128];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", names_dir, files[i]);
		unlink(path);
	}
	rmdir(names_dir);
}

/* Each thread's Locus has its last name: the main thread (tid == pid) its
 * second prctl's, the worker its own, the other thread its maker's at its
 * start; nothing else was sampled. */
static void check_names(const struct pivot *p, const char *path)
{
	int late = 0, worker = 0, plain = 0;
	for (size_t i = 0; i < p->nr_loci; i++) {
		const struct locus *l = &p->loci[i];
		const char *n = l->name ? l->name : "(none)";
		fprintf(stderr, "%s: thread %lld of %lld named %s\n", path, (long long)l->thread,
			(long long)l->pid, n); /* said beside a failure */
		if (!strcmp(n, "nk-late")) {
			late++;
			CHECK_INT(l->thread, l->pid);
		} else if (!strcmp(n, "<b>&\"x")) {
			worker++;
		} else if (!strcmp(n, "nk-main")) {
			plain++;
		} else {
			CHECK_STR(n, "nk-late, <b>&\"x or nk-main");
		}
	}
	CHECK(late == 1 && worker == 1 && plain == 1);
}

static void t_thread_names(void)
{
	const char *ver[] = {"perf", "--version", NULL}, *gv[] = {"gcc", "--version", NULL};
	if (run(ver, NULL) != 0)
		SKIP("perf not installed");
	if (run(gv, NULL) != 0)
		SKIP("gcc not installed");
	if (!mkdtemp(names_dir))
		FAIL_INPUT("no temp dir");
	atexit(names_cleanup);
	char src[96], bin[96], data[96], txt[96];
	snprintf(src, sizeof(src), "%s/n.c", names_dir);
	snprintf(bin, sizeof(bin), "%s/n", names_dir);
	snprintf(data, sizeof(data), "%s/x.data", names_dir);
	snprintf(txt, sizeof(txt), "%s/x.txt", names_dir);
	FILE *f = fopen(src, "w");
	CHECK(f && fputs(NAMES_SRC, f) >= 0 && fclose(f) == 0);
	const char *cc[] = {"gcc", "-O1", "-pthread", "-o", bin, src, NULL};
	CHECK_INT(run(cc, NULL), 0);
	const char *rec[] = {"perf", "record", "-e", "task-clock", "-c", "100000", "-o", data,
			     "-q", "--", bin, NULL};
	if (run(rec, NULL) != 0)
		SKIP("perf cannot record here (perf_event_paranoid?)");
	struct pivot d, s;
	pivot__init(&d);
	pivot__init(&s);
	struct ingest_stats ds = {0}, ss = {0};
	struct err e = {0};
	CHECK_INT(ingest_perf_data_file(data, &opts, &d, &ds, &e), 0);
	check_names(&d, "perf.data");
	const char *scr[] = {"perf", "script", "-i", data, "--show-mmap-events",
			     "--show-task-events", "-F", "comm,pid,tid,time,period,event,ip,dso",
			     NULL};
	CHECK_INT(run(scr, txt), 0);
	size_t tl;
	char *t = slurp(txt, &tl);
	CHECK(t != NULL);
	CHECK_INT(ingest_perf_script(t, tl, &opts, &s, &ss, &e), 0);
	check_names(&s, "perf script");
	free(t);
	pivot__release(&d);
	pivot__release(&s);
	ingest_stats__release(&ds);
	ingest_stats__release(&ss);
}

/* Every allocation failing in turn: -ENOMEM with a code, never a crash. */
static void t_alloc_failures(void)
{
	size_t dl, tl;
	char *data = slurp(FIX "callgraph.data", &dl);
	char *txt = slurp(FIX "callgraph.script.txt", &tl);
	CHECK(data && txt);
	for (int n = 1; n < 400; n++) {
		char v[16];
		snprintf(v, sizeof(v), "%d", n);
		for (int path = 0; path < 2; path++) {
			setenv("NUNATAK_FAIL_ALLOC", v, 1);
			alloc_fault_init();
			struct pivot p;
			pivot__init(&p);
			struct ingest_stats st = {0};
			struct err e = {0};
			int rc = path ? ingest_perf_data(data, dl, &opts, &p, &st, &e)
				      : ingest_perf_script(txt, tl, &opts, &p, &st, &e);
			setenv("NUNATAK_FAIL_ALLOC", "0", 1);
			alloc_fault_init();
			CHECK(rc == 0 || rc == -ENOMEM);
			if (rc)
				CHECK_STR(e.code, "oom");
			pivot__release(&p);
			ingest_stats__release(&st);
		}
	}
	free(data);
	free(txt);
}

/* A perf.data header (read by the one perf.data header reader) with nattr
 * attrs of `asz` bytes (attr + ids section). */
static size_t fake_perf(unsigned char *buf, uint64_t flags, int32_t clockid, uint64_t nattr)
{
	const uint64_t asz = 128 + 16, off = 104;
	memset(buf, 0, 104 + 2 * asz);
	memcpy(buf, "PERFILE2", 8);
	uint64_t hdr[] = {104, asz, off, nattr * asz};
	memcpy(buf + 8, hdr, sizeof(hdr));
	for (uint64_t i = 0; i < nattr; i++) {
		unsigned char *a = buf + off + i * asz;
		uint32_t size = 128;
		memcpy(a + 4, &size, 4);
		memcpy(a + 40, &flags, 8);
		/* several events carry a sample id, as perf always records them */
		uint64_t sample_type = nattr > 1 ? PERF_SAMPLE_IDENTIFIER : 0;
		memcpy(a + 24, &sample_type, 8);
		int32_t id = clockid + (int32_t)i * (nattr > 1 && clockid < 0 ? 1 : 0);
		memcpy(a + 92, &id, 4);
	}
	return 104 + nattr * asz;
}

static void t_clockid(void)
{
	unsigned char buf[512];
	const uint64_t use_clockid = 1ULL << 25;
	size_t n = fake_perf(buf, use_clockid, 1, 1);
	CHECK_INT(perf_data_clockid(buf, n), 1);
	n = fake_perf(buf, use_clockid, 1, 2);
	CHECK_INT(perf_data_clockid(buf, n), 1);
	n = fake_perf(buf, 0, 1, 1); /* clockid field set but not in use: perf's clock */
	CHECK_INT(perf_data_clockid(buf, n), -2);
	n = fake_perf(buf, use_clockid, 4, 1); /* CLOCK_MONOTONIC_RAW */
	CHECK_INT(perf_data_clockid(buf, n), 4);
	CHECK_INT(perf_data_clockid(buf, 50), -1);
	memcpy(buf, "PERFFILE", 8);
	CHECK_INT(perf_data_clockid(buf, n), -1);
}

/* The context switches out that a recording holds (ingest_stats
 * .nr_switch_outs, the overhead's context_switches): switches.data's SWITCH
 * records with the out bit, 61 "OUT" and 10 "OUT preempt" in perf's own
 * reading (`perf script --show-switch-events`, checked here when perf is
 * installed); none in a recording made without --switch-events. */
static int count_outs(const char *data)
{
	char txt[] = "/tmp/nunatak-test-switch-outs-XXXXXX";
	int fd = mkstemp(txt);
	if (fd < 0)
		return -1;
	close(fd);
	const char *scr[] = {"perf", "script", "-i", data, "--show-switch-events", "-F", "tid",
			     NULL};
	int n = -1;
	if (run(scr, txt) == 0) {
		size_t len;
		char *t = slurp(txt, &len);
		n = 0;
		for (char *q = t; q && (q = strstr(q, "PERF_RECORD_SWITCH OUT")); q++)
			n++;
		free(t);
	}
	unlink(txt);
	return n;
}

static void t_switch_outs(void)
{
	struct pivot p;
	struct ingest_stats st = {0};
	pivot__init(&p);
	CHECK_INT(ingest_perf_data_file(FIX "switches.data", &opts, &p, &st, NULL), 0);
	CHECK_INT(st.nr_switch_outs, 71);
	int perf_says = count_outs(FIX "switches.data");
	if (perf_says >= 0) /* perf installed and able to read it */
		CHECK_INT(st.nr_switch_outs, perf_says);
	pivot__release(&p);
	ingest_stats__release(&st);
	pivot__init(&p);
	st = (struct ingest_stats){0};
	CHECK_INT(ingest_perf_data_file(FIX "flat.data", &opts, &p, &st, NULL), 0);
	CHECK_INT(st.nr_switch_outs, 0);
	pivot__release(&p);
	ingest_stats__release(&st);
}

static const struct test_case cases[] = {
	{"switch_outs", "the switch-outs a recording holds are counted (perf's own count)",
	 t_switch_outs},
	{"junk_marker", "a callchain value in the markers' range that is none discards the chain",
	 t_junk_marker},
	{"clockid", "perf.data: CLOCK_MONOTONIC detected from the attrs", t_clockid},
	{"alloc_failures", "allocation failure at every point: clean -ENOMEM", t_alloc_failures},
	{"fixtures_agree", "direct reader == perf script path on recorded fixtures", t_fixtures_agree},
	{"buildids", "HEADER_BUILD_ID == perf buildid-list", t_buildids},
	{"buildids_mmap", "MMAP2 build-ids (--buildid-mmap) == perf buildid-list", t_buildids_mmap},
	{"errors", "foreign byte order, pipe, compressed, corrupt, truncated", t_errors},
	{"fork_first", "a child's FORK before its parent's MMAPs: the child keeps their maps", t_fork_first},
	{"fresh_recording", "both paths agree on a recording made now (skips w/o perf)", t_fresh_recording},
	{"large_recording", "tens of thousands of samples: both paths agree, aggregate == naive (skips w/o perf, gcc)", t_large_recording},
	{"thread_names", "threads renamed while recorded, or named at their start: each Locus has its last name, both paths (skips w/o perf, gcc)", t_thread_names},
};

TEST_MAIN(cases)
