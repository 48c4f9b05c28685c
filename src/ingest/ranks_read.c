// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/ranks_read.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "ingest/perf_data.h"
#include "ingest/perf_script.h"

#define MAX_SMALL_BYTES ((size_t)64 << 20)

void rank_read__release(struct rank_read *x)
{
	perf_data_read__free(x->r);
	ingest_stats__release(&x->st);
	buildid_list__release(&x->ids);
	int rank = x->rank; /* still the slot of its rank */
	memset(x, 0, sizeof(*x));
	x->rank = rank;
}

void rank_reads__release(struct rank_reads *rr)
{
	for (size_t i = 0; i < rr->n; i++)
		rank_read__release(&rr->v[i]);
	xfree(rr->v);
	memset(rr, 0, sizeof(*rr));
}

struct rank_read *rank_reads__find(struct rank_reads *rr, int rank)
{
	for (size_t i = 0; rr && i < rr->n; i++)
		if (rr->v[i].rank == rank)
			return &rr->v[i];
	return NULL;
}

/* A new zeroed slot for rank (pointers into rr->v move: none may be held). */
static struct rank_read *slot_new(struct rank_reads *rr, int rank)
{
	if (xgrow((void **)&rr->v, &rr->cap, rr->n + 1, sizeof(*rr->v)) < 0)
		return NULL;
	struct rank_read *x = &rr->v[rr->n++];
	memset(x, 0, sizeof(*x));
	x->rank = rank;
	buildid_list__init(&x->ids);
	return x;
}

void rank_read__perf(const char *collect_dir, struct rank_read *x)
{
	char *bids = xasprintf("%s/rank-%d/perf-buildid-list.txt", collect_dir, x->rank);
	char *data = xasprintf("%s/rank-%d/perf.data", collect_dir, x->rank);
	char *buf = NULL;
	size_t len = 0;
	if (bids && fs_read_file(bids, MAX_SMALL_BYTES, &buf, &len) == 0 &&
	    buildid_list__parse(&x->ids, buf, len, NULL) == 0 && x->ids.n > 0)
		x->have_ids = true;
	xfree(buf);
	x->rc = data ? perf_data_read__file(data, x->have_ids ? &x->ids : NULL, &x->r, &x->st, &x->e)
		     : err_oom(&x->e);
	xfree(bids);
	xfree(data);
}

/* rank-<N>/rank.json says perf sampled this rank (not the preload sampler,
 * whose .sps the serial pass reads): its perf.data is read. */
static void read_one(const char *collect_dir, struct rank_read *x)
{
	char *path = xasprintf("%s/rank-%d/rank.json", collect_dir, x->rank);
	json_t *j = path ? json_load_file(path, 0, NULL) : NULL;
	xfree(path);
	x->sampled = json_is_object(j) &&
		     json_integer_value(json_object_get(j, "rank")) == x->rank &&
		     !json_string_value(json_object_get(j, "sps")) &&
		     json_is_true(json_object_get(j, "sampled"));
	json_decref(j);
	if (x->sampled)
		rank_read__perf(collect_dir, x);
}

struct pool {
	const char *dir;
	struct rank_read *slots;
	size_t n;
	atomic_size_t next;
};

static void *pool_run(void *arg)
{
	struct pool *pl = arg;
	for (size_t i; (i = atomic_fetch_add(&pl->next, 1)) < pl->n;)
		read_one(pl->dir, &pl->slots[i]);
	return NULL;
}

/* A thread with every signal blocked: they stay the main thread's. */
static int start_blocked(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
		return -1;
	int rc = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0 ? 0 : -1;
}

int ranks_read_rest(const char *collect_dir, const int *ranks, int n, int threads,
		    struct rank_reads *rr)
{
	size_t first = rr->n;
	for (int i = 0; i < n; i++)
		if (!rank_reads__find(rr, ranks[i]) && !slot_new(rr, ranks[i]))
			return -ENOMEM;
	if (rr->n == first)
		return 0; /* every rank read already (or none) */
	struct pool pl = {.dir = collect_dir, .slots = rr->v + first, .n = rr->n - first};
	atomic_init(&pl.next, 0);
	if (threads <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus;
	}
	if ((size_t)threads > pl.n)
		threads = pl.n > 0 ? (int)pl.n : 1;
	pthread_t th[3];
	int started = 0;
	for (int i = 1; i < threads && i <= 3; i++)
		if (start_blocked(&th[started], pool_run, &pl) == 0)
			started++;
	pool_run(&pl); /* this thread too: what no thread took */
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	return 0;
}

struct ranks_prefetch {
	char *dir;
	pthread_t th;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;            /* under mu */
	int *skip;            /* ranks with a rank.json before the launch */
	size_t nr_skip;
	struct rank_reads rr; /* the thread's until taken */
	atomic_int nr_ready;  /* ranks in rr, for ranks_prefetch__ready */
	int nr_read;          /* taken: how many it read (-1 before) */
	int world;            /* the launch's world size, or <= 0: unknown */
	ranks_complete_fn fn; /* run once the world is complete, or NULL */
	void *ctx;
	bool completed;       /* fn ran (the thread's, read after the join) */
	char *print;          /* the rank directories then (fingerprint) */
	int watch;            /* the rank whose end is watched for, or -1 */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One directory's entries, sorted: "name inode size mtime" lines; with
 * names_of, only the names starting so (the collect directory's rank-*:
 * what else it holds, ingestion does not read). */
static int dir_print(const char *dir, const char *names_of, char **out, size_t *len,
		     size_t *cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char **names = NULL;
	size_t n = 0, cn = 0;
	int rc = 0;
	for (struct dirent *de; rc == 0 && (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (names_of && strncmp(de->d_name, names_of, strlen(names_of)) != 0))
			continue;
		if (xgrow((void **)&names, &cn, n + 1, sizeof(*names)) < 0 ||
		    !(names[n++] = xstrdup(de->d_name)))
			rc = -1;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *path = names[i] ? xasprintf("%s/%s", dir, names[i]) : NULL;
		char *line = names_of && names[i] ? xasprintf("%s\n", names[i])
			     : path && lstat(path, &st) == 0
				     ? xasprintf("%s %llu %lld %lld.%09ld\n", names[i],
						 (unsigned long long)st.st_ino, (long long)st.st_size,
						 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec)
				     : NULL;
		size_t k = line ? strlen(line) : 0;
		if (!line || xgrow((void **)out, cap, *len + k + 1, 1) < 0)
			rc = -1;
		else
			memcpy(*out + *len, line, k + 1), *len += k;
		xfree(line);
		xfree(path);
		xfree(names[i]);
	}
	xfree(names);
	return rc;
}

/* The collect directory's rank directories and every file in them, or
 * NULL (unreadable, out of memory): any change shows. */
static char *world_print(const char *dir, int world)
{
	char *out = NULL;
	size_t len = 0, cap = 0;
	int rc = dir_print(dir, "rank-", &out, &len, &cap);
	for (int r = 0; rc == 0 && r < world; r++) {
		char *sub = xasprintf("%s/rank-%d", dir, r);
		rc = sub ? dir_print(sub, NULL, &out, &len, &cap) : -1;
		xfree(sub);
	}
	if (rc < 0 || !out)
		zfree(&out);
	return out;
}

static bool in(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool has_rank_json(const char *dir, int rank)
{
	char *path = xasprintf("%s/rank-%d/rank.json", dir, rank);
	bool there = path && access(path, F_OK) == 0;
	xfree(path);
	return there;
}

/* Each rank-<N> directory, through fn; returns how many there were. */
static size_t each_rank_dir(const char *dir, void (*fn)(struct ranks_prefetch *, int),
			    struct ranks_prefetch *pf)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		char *end = NULL;
		if (strncmp(de->d_name, "rank-", 5) != 0)
			continue;
		long r = strtol(de->d_name + 5, &end, 10);
		if (end == de->d_name + 5 || *end || r < 0 || r >= (1L << 24))
			continue;
		n++;
		fn(pf, (int)r);
	}
	if (d)
		closedir(d);
	return n;
}

static void note_skip(struct ranks_prefetch *pf, int rank)
{
	size_t cap = pf->nr_skip;
	if (has_rank_json(pf->dir, rank) && xgrow((void **)&pf->skip, &cap, pf->nr_skip + 1,
						  sizeof(int)) == 0)
		pf->skip[pf->nr_skip++] = rank;
}

static void read_if_done(struct ranks_prefetch *pf, int rank)
{
	if (in(pf->skip, pf->nr_skip, rank) || rank_reads__find(&pf->rr, rank))
		return;
	struct rank_read *x = has_rank_json(pf->dir, rank) ? slot_new(&pf->rr, rank) : NULL;
	if (!x) { /* still running: the lowest such rank is the one watched */
		if (pf->watch < 0 || rank < pf->watch)
			pf->watch = rank;
		return;
	}
	read_one(pf->dir, x);
	atomic_fetch_add(&pf->nr_ready, 1);
}

static bool wait_stop(struct ranks_prefetch *pf, long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&pf->mu);
	while (!pf->stop && pthread_cond_timedwait(&pf->cv, &pf->mu, &t) == 0)
		;
	bool stop = pf->stop;
	pthread_mutex_unlock(&pf->mu);
	return stop;
}

/* A look at the directory every 20 ms, plus 1 ms per rank directory (at
 * most 0.5 s): a few stat calls a second on a shared filesystem. */
/* Every rank of the launch's world has written rank.json (read here), and
 * the directory holds those ranks' directories only. */
static bool world_complete(const struct ranks_prefetch *pf, size_t nr_dirs)
{
	if (pf->world <= 0 || pf->nr_skip || nr_dirs != (size_t)pf->world ||
	    pf->rr.n != (size_t)pf->world)
		return false;
	for (size_t i = 0; i < pf->rr.n; i++)
		if (pf->rr.v[i].rank >= pf->world)
			return false;
	return true;
}

/* Every 20 ms, while the ranks run, one look at a single rank.json (the
 * lowest rank still running: MPI ranks end together, in MPI_Finalize), not
 * at every rank's: a long job over many ranks asks a shared filesystem
 * for next to nothing. When it is there, or no rank directory was seen
 * yet, the whole directory is looked at and every ended rank read. */
static void *prefetch_run(void *arg)
{
	struct ranks_prefetch *pf = arg;
	while (!wait_stop(pf, 20)) {
		if (pf->watch >= 0 && !has_rank_json(pf->dir, pf->watch))
			continue;
		pf->watch = -1;
		size_t n = each_rank_dir(pf->dir, read_if_done, pf);
		if (pf->fn && world_complete(pf, n)) {
			/* the print first: whatever changes from here on shows */
			pf->print = world_print(pf->dir, pf->world);
			if (pf->print) {
				pf->fn(pf->ctx, pf->dir, &pf->rr);
				pf->completed = true;
			}
			break; /* nothing left to read */
		}
	}
	return NULL;
}

struct ranks_prefetch *ranks_prefetch__start(const char *collect_dir, int world_size,
					     ranks_complete_fn fn, void *ctx)
{
	struct ranks_prefetch *pf = collect_dir ? xcalloc(1, sizeof(*pf)) : NULL;
	if (!pf || !(pf->dir = xstrdup(collect_dir))) {
		xfree(pf);
		return NULL;
	}
	pf->nr_read = -1;
	pf->world = world_size;
	pf->watch = -1;
	pf->fn = fn;
	pf->ctx = ctx;
	atomic_init(&pf->nr_ready, 0);
	each_rank_dir(pf->dir, note_skip, pf);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, &ca);
	pthread_condattr_destroy(&ca);
	pf->running = start_blocked(&pf->th, prefetch_run, pf) == 0;
	if (!pf->running) {
		ranks_prefetch__free(pf);
		return NULL;
	}
	return pf;
}

static void prefetch_stop(struct ranks_prefetch *pf)
{
	if (!pf->running)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_signal(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->th, NULL);
	pf->running = false;
	pf->nr_read = atomic_load(&pf->nr_ready);
}

int ranks_prefetch__take(struct ranks_prefetch *pf, struct rank_reads *rr)
{
	if (!pf)
		return 0;
	prefetch_stop(pf);
	for (size_t i = 0; i < pf->rr.n; i++) {
		int rank = pf->rr.v[i].rank;
		if (rank_reads__find(rr, rank))
			continue;
		struct rank_read *x = slot_new(rr, rank);
		if (!x)
			return -ENOMEM;
		*x = pf->rr.v[i]; /* moved: the thread's slot forgets it */
		memset(&pf->rr.v[i], 0, sizeof(pf->rr.v[i]));
	}
	rank_reads__release(&pf->rr);
	return 0;
}

bool ranks_prefetch__stop_complete(struct ranks_prefetch *pf)
{
	if (!pf)
		return false;
	prefetch_stop(pf);
	if (!pf->completed)
		return false;
	char *now = world_print(pf->dir, pf->world);
	bool same = now && strcmp(now, pf->print) == 0;
	xfree(now);
	return same;
}

int ranks_prefetch__nr_read(const struct ranks_prefetch *pf)
{
	return pf ? pf->nr_read : -1;
}

int ranks_prefetch__ready(struct ranks_prefetch *pf)
{
	return pf ? atomic_load(&pf->nr_ready) : 0;
}

void ranks_prefetch__free(struct ranks_prefetch *pf)
{
	if (!pf)
		return;
	prefetch_stop(pf);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	rank_reads__release(&pf->rr);
	xfree(pf->skip);
	xfree(pf->print);
	xfree(pf->dir);
	xfree(pf);
}
