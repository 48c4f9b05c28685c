// SPDX-License-Identifier: BSD-3-Clause
/* The ranks' recordings read ahead (ingest/ranks_read.h: on several threads,
 * or by the thread that watches collect/ while the launch runs) give the
 * pivot that reading them one after the other in rank order gives, entity
 * for entity and in the same order; and each rank keeps its own results,
 * whatever the other ranks ran (different programs, modules, build-ids,
 * threads, context switches). */
#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#define TMPDIR_TAG "ranks-read"
#include "tmpdir.h"

#include "common/alloc.h"
#include "common/err.h"
#include "ingest/buildid.h"
#include "ingest/perf_data.h"
#include "ingest/ranks.h"
#include "ingest/ranks_read.h"
#include "ingest/switches.h"

#define GOLDEN TEST_SOURCE_DIR "/tests/golden/perf-data/"

/* rank -> the program it ran (a golden recording) and its build-id list */
static const struct {
	const char *data, *bids;
} progs[] = {
	{"flat.data", "flat.buildid-list.txt"},
	{"switches.data", NULL},
	{"callgraph.data", NULL},
	{"fork.data", NULL},
	{"mmap-buildid.data", "mmap-buildid.buildid-list.txt"},
	{"switches.data", NULL}, /* the same program as rank 1, on another node */
};
#define NR_RANKS ((int)(sizeof(progs) / sizeof(progs[0])))

static void copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	if (!in || !out)
		FAIL_INPUT(from);
	char buf[8192];
	for (size_t n; (n = fread(buf, 1, sizeof(buf), in)) > 0;)
		CHECK(fwrite(buf, 1, n, out) == n);
	fclose(in);
	CHECK_INT(fclose(out), 0);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	CHECK_INT(fclose(f), 0);
}

static const char *node_of(int r)
{
	return r % 2 ? "n2" : "n1";
}

/* rank-<r>/ as the shim leaves it before its last file, rank.json */
static void rank_files(const char *root, int r)
{
	char path[512], from[512];
	snprintf(path, sizeof(path), "%s/rank-%d", root, r);
	CHECK_INT(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/rank-%d/perf.data", root, r);
	snprintf(from, sizeof(from), GOLDEN "%s", progs[r].data);
	copy(from, path);
	if (progs[r].bids) {
		snprintf(path, sizeof(path), "%s/rank-%d/perf-buildid-list.txt", root, r);
		snprintf(from, sizeof(from), GOLDEN "%s", progs[r].bids);
		copy(from, path);
	}
}

static void rank_json(const char *root, int r)
{
	char path[512], text[512];
	snprintf(path, sizeof(path), "%s/rank-%d/.rank.json.tmp", root, r);
	snprintf(text, sizeof(text),
		 "{\"rank\": %d, \"world_size\": %d, \"local_rank\": %d, \"node\": \"%s\", "
		 "\"role\": \"sampler\", \"sampled\": true, \"counted\": false, "
		 "\"exit_code\": 0, \"degradations\": []}",
		 r, NR_RANKS, r / 2, node_of(r));
	put(path, text);
	char final[512];
	snprintf(final, sizeof(final), "%s/rank-%d/rank.json", root, r);
	CHECK_INT(rename(path, final), 0); /* as the shim: atomic */
}

static char *collect_dir(void)
{
	char *root = tmpdir();
	for (int r = 0; r < NR_RANKS; r++) {
		rank_files(root, r);
		rank_json(root, r);
	}
	return root;
}

/* Text of everything ingestion writes, ids and order included. */
static char *dump(const struct pivot *p)
{
	char *s = NULL;
	size_t len = 0, cap = 0;
#define OUT(...)                                                                         \
	do {                                                                             \
		char *l_ = xasprintf(__VA_ARGS__);                                       \
		size_t n_ = strlen(l_);                                                  \
		CHECK(xgrow((void **)&s, &cap, len + n_ + 1, 1) == 0);                   \
		memcpy(s + len, l_, n_ + 1);                                             \
		len += n_;                                                               \
		xfree(l_);                                                               \
	} while (0)
	OUT("%s", "pivot\n");
	for (size_t i = 0; i < p->nr_loci; i++)
		OUT("L %s %d %lld %lld\n", p->loci[i].node, p->loci[i].rank,
		    (long long)p->loci[i].thread, (long long)p->loci[i].pid);
	for (size_t i = 0; i < p->nr_hotspots; i++) {
		const struct hotspot *h = &p->hotspots[i];
		OUT("H %s %s %llx %d %d\n", h->module, h->build_id ? h->build_id : "-",
		    (unsigned long long)h->offset, h->has_offset, (int)h->level);
	}
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		OUT("M %lld %lld %s %.17g %s %d %lld\n", (long long)m->hotspot, (long long)m->locus,
		    m->counter, m->value, m->unit, (int)m->quality, (long long)m->sample_count);
	}
	for (size_t i = 0; i < p->nr_addresses; i++) {
		const struct address *a = &p->addresses[i];
		OUT("A %lld %llx %s %.17g %lld\n", (long long)a->hotspot,
		    (unsigned long long)a->offset, a->counter, a->value, (long long)a->sample_count);
	}
	for (size_t i = 0; i < p->nr_stacks; i++) {
		const struct stack *t = &p->stacks[i];
		OUT("S %lld %s %.17g %lld\n", (long long)t->locus, t->counter, t->value,
		    (long long)t->sample_count);
	}
	for (size_t i = 0; i < p->nr_stack_frames; i++) {
		const struct stack_frame *f = &p->stack_frames[i];
		OUT("F %lld %d %s %llx %s\n", (long long)f->stack, f->depth, f->module,
		    (unsigned long long)f->offset, f->function ? f->function : "-");
	}
#undef OUT
	return s;
}

static char *ingest(const char *root, struct ranks_prefetch *pf, int threads, int *sampled)
{
	struct pivot p;
	pivot__init(&p);
	struct degradations d = {0};
	struct ranks_summary sum;
	struct err e = {0};
	CHECK_INT(ingest_ranks_ahead(root, NR_RANKS, pf, threads, &p, &d, &sum, &e), 0);
	*sampled = sum.nr_sampled;
	/* the two ranks recorded from switches.data (71 switch-outs each), the
	 * others without --switch-events: summed however the reads were made */
	CHECK_INT(sum.nr_switches, 2 * 71);
	char *s = dump(&p);
	degradations__release(&d);
	pivot__release(&p);
	return s;
}

static int agg_add(void *ctx, const struct ingest_sample *s)
{
	return ingest_agg__add(ctx, s);
}

/* What the pipeline did before the reads went ahead: each rank's perf.data
 * read, aggregated and emitted in rank order, the switches sorted by their
 * own emit (ingest/perf_data.c before issue 27's split). */
static int emit_inline(const char *root, int r, struct pivot *p)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/rank-%d/perf-buildid-list.txt", root, r);
	struct buildid_list ids;
	buildid_list__init(&ids);
	FILE *f = fopen(path, "r");
	if (f) {
		char buf[4096];
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		CHECK_INT(buildid_list__parse(&ids, buf, n, NULL), 0);
	}
	struct ingest_opts o = {.sz = sizeof(o), .node = node_of(r), .rank = r,
				.build_ids = ids.n ? &ids : NULL};
	snprintf(path, sizeof(path), "%s/rank-%d/perf.data", root, r);
	size_t len = 0;
	f = fopen(path, "rb");
	CHECK(f != NULL);
	char *buf = xcalloc(1, 1 << 20);
	len = fread(buf, 1, 1 << 20, f);
	CHECK(len > 0 && len < (1 << 20));
	fclose(f);
	struct ingest_agg *a = ingest_agg__new();
	struct switch_log *sw = switch_log__new();
	struct buildid_list own;
	buildid_list__init(&own);
	struct ingest_stats st = {0};
	struct err e = {0};
	int rc = perf_data__read_switches(buf, len, agg_add, a,
					  o.build_ids ? NULL : &own, sw, &st, &e);
	if (!o.build_ids)
		o.build_ids = &own;
	if (!rc)
		rc = ingest_agg__emit(a, &o, p, &e);
	if (!rc)
		rc = switch_log__emit(sw, &o, p, &e);
	ingest_agg__free(a);
	switch_log__free(sw);
	buildid_list__release(&own);
	buildid_list__release(&ids);
	ingest_stats__release(&st);
	xfree(buf);
	return rc;
}

/* One thread, two, four, and the launch-time thread: one pivot, the one
 * the serial reading of every rank in turn gives. */
static void t_same_pivot(void)
{
	char *root = collect_dir();
	struct pivot ref;
	pivot__init(&ref);
	for (int r = 0; r < NR_RANKS; r++)
		CHECK_INT(emit_inline(root, r, &ref), 0);
	char *want = dump(&ref);
	pivot__release(&ref);
	CHECK(strstr(want, "offcpu") != NULL); /* the switches' stacks are in it */
	CHECK(strstr(want, "M -1 ") != NULL);  /* and the threads' time budgets */
	for (int threads = 1; threads <= 4; threads++) {
		int sampled = 0;
		char *got = ingest(root, NULL, threads, &sampled);
		CHECK_INT(sampled, NR_RANKS);
		if (strcmp(got, want) != 0)
			fprintf(stderr, "%d threads: the pivot differs from the serial one\n", threads);
		CHECK_STR(got, want);
		xfree(got);
	}
	xfree(want);
	xfree(root);
	done();
}

/* ranks_prefetch__ready(pf) == n, within a minute (a loaded machine). */
static bool ready(struct ranks_prefetch *pf, int n)
{
	for (int i = 0; i < 6000 && ranks_prefetch__ready(pf) < n; i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	return ranks_prefetch__ready(pf) == n;
}

/* The launch-time thread reads a rank once its rank.json is there, never
 * one whose rank.json an earlier launch left, and never before it; what it
 * read and what is left give the same pivot. */
static void t_prefetch(void)
{
	char *root = collect_dir();
	int sampled = 0;
	char *want = ingest(root, NULL, 1, &sampled);
	/* rank 0's rank.json was there before the launch; 1-5 are written as
	 * their shims end: 1 and 2 before the launcher ends, 3-5 after */
	for (int r = 1; r < NR_RANKS; r++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/rank-%d/rank.json", root, r);
		CHECK_INT(unlink(path), 0);
	}
	struct ranks_prefetch *pf = ranks_prefetch__start(root, 0, NULL, NULL);
	CHECK(pf != NULL);
	CHECK_INT(ranks_prefetch__ready(pf), 0);
	rank_json(root, 1);
	CHECK(ready(pf, 1));
	rank_json(root, 2);
	CHECK(ready(pf, 2));
	for (int r = 3; r < NR_RANKS; r++)
		rank_json(root, r);
	char *got = ingest(root, pf, 2, &sampled);
	CHECK_INT(sampled, NR_RANKS);
	int n = ranks_prefetch__nr_read(pf);
	CHECK(n >= 2 && n <= NR_RANKS - 1); /* never rank 0 */
	CHECK_STR(got, want);
	ranks_prefetch__free(pf);
	xfree(got);
	xfree(want);
	xfree(root);
	done();
}

/* What the collector does when the world is complete: the whole
 * ingestion, on the thread, into a pivot of its own. */
struct early {
	bool ran;
	int rc;
	struct pivot p;
};

static void early_fn(void *ctx, const char *collect_dir, struct rank_reads *rr)
{
	struct early *x = ctx;
	struct degradations d = {0};
	struct ranks_summary sum;
	struct err e = {0};
	pivot__init(&x->p);
	x->rc = ingest_ranks_reads(collect_dir, NR_RANKS, rr, 1, &x->p, &d, &sum, &e);
	degradations__release(&d);
	__atomic_store_n(&x->ran, true, __ATOMIC_RELEASE);
}

/* ready(pf, NR_RANKS) then the thread's end: stop_complete joins it. */
static void t_complete(void)
{
	char *root = collect_dir();
	int sampled = 0;
	char *want = ingest(root, NULL, 1, &sampled);
	for (int round = 0; round < 2; round++) {
		for (int r = 0; r < NR_RANKS; r++) {
			char path[512];
			snprintf(path, sizeof(path), "%s/rank-%d/rank.json", root, r);
			CHECK_INT(unlink(path), 0);
		}
		struct early x = {0};
		struct ranks_prefetch *pf = ranks_prefetch__start(root, NR_RANKS, early_fn, &x);
		CHECK(pf != NULL);
		for (int r = NR_RANKS - 1; r >= 0; r--) /* any order */
			rank_json(root, r);
		CHECK(ready(pf, NR_RANKS));
		/* the callback runs right after the last read: wait for it */
		for (int i = 0; i < 6000 && !__atomic_load_n(&x.ran, __ATOMIC_ACQUIRE); i++)
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
		if (round == 1) { /* a file rewritten after the callback: it does not stand */
			char path[512];
			snprintf(path, sizeof(path), "%s/rank-3/perf.data", root);
			copy(GOLDEN "callgraph.data", path); /* rank 3 ran fork.data */
		}
		bool stands = ranks_prefetch__stop_complete(pf);
		CHECK(x.ran);
		CHECK_INT(x.rc, 0);
		CHECK(stands == (round == 0));
		if (round == 0) {
			char *got = dump(&x.p);
			CHECK_STR(got, want);
			xfree(got);
		}
		pivot__release(&x.p);
		ranks_prefetch__free(pf);
	}
	/* an earlier launch's rank.json, or a directory beyond the world: no
	 * callback (the serial pass decides) */
	struct early x = {0};
	struct ranks_prefetch *pf = ranks_prefetch__start(root, NR_RANKS, early_fn, &x);
	CHECK(!ranks_prefetch__stop_complete(pf));
	CHECK(!x.ran);
	ranks_prefetch__free(pf);
	xfree(want);
	xfree(root);
	done();
}

/* Keyed text of rank r's results (its Loci's measurements and stacks, with
 * their hotspots' identity), sorted: what that rank measured. */
static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *rank_view(const struct pivot *p, int r)
{
	char **v = xcalloc(p->nr_measurements + p->nr_stacks + 1, sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		const struct locus *l = &p->loci[m->locus];
		if (l->rank != r)
			continue;
		const struct hotspot *h = m->hotspot >= 0 ? &p->hotspots[m->hotspot] : NULL;
		v[n++] = xasprintf("M %s %lld %s %s %llx %s %.17g %lld\n", l->node,
				   (long long)l->thread, h ? h->module : "-",
				   h && h->build_id ? h->build_id : "-",
				   h ? (unsigned long long)h->offset : 0ull, m->counter, m->value,
				   (long long)m->sample_count);
	}
	for (size_t i = 0; i < p->nr_stacks; i++) {
		const struct stack *t = &p->stacks[i];
		const struct locus *l = &p->loci[t->locus];
		if (l->rank != r)
			continue;
		char *fr = xstrdup("");
		for (size_t k = 0; k < p->nr_stack_frames; k++)
			if (p->stack_frames[k].stack == (int64_t)i) {
				char *x = xasprintf("%s %s+%llx", fr, p->stack_frames[k].module,
						    (unsigned long long)p->stack_frames[k].offset);
				xfree(fr);
				fr = x;
			}
		v[n++] = xasprintf("S %s %lld %s %.17g %lld%s\n", l->node, (long long)l->thread,
				   t->counter, t->value, (long long)t->sample_count, fr);
		xfree(fr);
	}
	qsort(v, n, sizeof(*v), cmp_line);
	char *s = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *x = xasprintf("%s%s", s, v[i]);
		xfree(s);
		xfree(v[i]);
		s = x;
	}
	xfree(v);
	return s;
}

/* Each rank's results in the Run are what its recording alone gives:
 * nothing of another rank's program, modules or threads, whichever thread
 * read it. */
static void t_per_rank(void)
{
	char *root = collect_dir();
	struct pivot all;
	pivot__init(&all);
	struct degradations d = {0};
	struct ranks_summary sum;
	struct err e = {0};
	CHECK_INT(ingest_ranks_ahead(root, NR_RANKS, NULL, 4, &all, &d, &sum, &e), 0);
	degradations__release(&d);
	for (int r = 0; r < NR_RANKS; r++) {
		struct pivot one;
		pivot__init(&one);
		CHECK_INT(emit_inline(root, r, &one), 0);
		char *want = rank_view(&one, r), *got = rank_view(&all, r);
		CHECK(strlen(want) > 0);
		if (strcmp(got, want) != 0)
			fprintf(stderr, "rank %d (%s): its results differ from its recording's\n", r,
				progs[r].data);
		CHECK_STR(got, want);
		xfree(want);
		xfree(got);
		pivot__release(&one);
	}
	pivot__release(&all);
	xfree(root);
	done();
}

static const struct test_case cases[] = {
	{"same_pivot", "1 to 4 threads: the pivot of the serial reading, entity for entity",
	 t_same_pivot},
	{"prefetch", "read while the launch runs: only ranks it ended, the same pivot", t_prefetch},
	{"complete", "the whole world read before the launch ends: ingested there, unless a "
	 "file changes after", t_complete},
	{"per_rank", "each rank's results are its own recording's, 6 programs", t_per_rank},
};

TEST_MAIN(cases)
