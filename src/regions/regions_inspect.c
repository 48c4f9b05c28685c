// SPDX-License-Identifier: BSD-3-Clause
#include "regions/regions_inspect.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/regions_run.h"
#include "regions/summary.h"
#include "regions/trace_set.h"

/* Summaries need no per-call storage: each rank's calls stream straight from
 * the mapped trace into the per-region accumulators. Ranks are independent,
 * so they are reconstructed in parallel: every selected rank is loaded first
 * (mapped, parsed, region names interned: the shared table is complete and
 * read-only afterwards), then workers each summarise a share of the ranks
 * with their own call-path tree, and the partial summaries are folded in
 * rank order. Memory: the mapped traces, about 1x their size. */
struct job {
	struct trace_set *ts;
	struct rank_data *rd; /* all loaded ranks, by slot */
	size_t nr, next_slot;  /* next_slot: work queue under lock */
	pthread_mutex_t lock;
};

struct worker {
	struct job *job;
	struct summary s;
	size_t *slots, nr_slots;
	int rc;
	struct err e;
	pthread_t th;
};

static int summarize_rank(struct worker *w, size_t slot, struct path_tree *pt)
{
	struct rank_data *rd = &w->job->rd[slot];
	struct call_sink sink = summary__sink(&w->s);
	if (summary__begin_rank(&w->s, slot, rd->rank, rd->nr_lanes, w->job->ts, pt))
		return err_oom(&w->e);
	int rc = calls__stream(rd, w->job->ts, pt, &sink, &w->e);
	if (rc == 0 && summary__end_rank(&w->s))
		rc = err_oom(&w->e);
	rank_data__release(rd); /* unmapped as soon as it is summarised */
	return rc;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct path_tree pt;
	path_tree__init(&pt);
	while (w->rc == 0) {
		pthread_mutex_lock(&w->job->lock);
		size_t slot = w->job->next_slot < w->job->nr ? w->job->next_slot++ : SIZE_MAX;
		pthread_mutex_unlock(&w->job->lock);
		if (slot == SIZE_MAX)
			break;
		w->slots[w->nr_slots++] = slot;
		w->rc = summarize_rank(w, slot, &pt);
	}
	path_tree__release(&pt);
	return NULL;
}

/* One worker per CPU this process may run on (taskset, a batch job's
 * cpuset), at most one per rank. */
static size_t nr_workers(size_t ranks)
{
	cpu_set_t set;
	long cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
								  : sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 0 ? (size_t)cpus : 1;
	n = n > 16 ? 16 : n;
	return ranks < n ? (ranks ? ranks : 1) : n;
}

static int load_all(struct trace_set *ts, const struct rank_filter *rf, struct job *job,
		    struct console *con, struct err *e)
{
	int rc = 0;
	size_t slot = 0;
	for (size_t i = 0; rc == 0 && i < ts->nr_src; i++) {
		if (!rank_filter__has(rf, ts->src[i].rank))
			continue;
		rc = trace_set__load(ts, i, &job->rd[slot++], e);
		if (con && con->terminal && job->nr > 1)
			console__progress(con, "reading ranks", slot, job->nr);
	}
	if (con && con->terminal && job->nr > 1)
		console__progress_end(con, "reading ranks");
	return rc;
}

int regions_summarize(struct trace_set *ts, const struct rank_filter *rf, struct summary *s,
		      struct console *con, struct err *e)
{
	size_t n = 0;
	memset(s, 0, sizeof(*s));
	int rc = rank_filter__count(rf, ts, &n, e);
	if (rc)
		return rc;
	struct job job = {.ts = ts, .nr = n, .lock = PTHREAD_MUTEX_INITIALIZER};
	size_t nw = nr_workers(n);
	struct worker *w = xcalloc(nw, sizeof(*w));
	job.rd = xcalloc(n + 1, sizeof(*job.rd));
	if (!w || !job.rd || summary__init(s, n))
		rc = err_oom(e);
	if (rc == 0)
		rc = load_all(ts, rf, &job, con, e);
	size_t started = 0;
	for (size_t k = 0; rc == 0 && k < nw; k++) {
		w[k].job = &job;
		w[k].slots = xcalloc(n + 1, sizeof(*w[k].slots));
		if (!w[k].slots || summary__init(&w[k].s, n)) {
			rc = err_oom(e);
			break;
		}
		if (k > 0 && pthread_create(&w[k].th, NULL, work, &w[k]) != 0)
			break; /* fewer workers: the others take its share */
		started = k + 1;
	}
	if (rc == 0 && started)
		work(&w[0]); /* the calling thread is worker 0 */
	for (size_t k = 1; k < started; k++)
		pthread_join(w[k].th, NULL);
	for (size_t k = 0; k < nw; k++) {
		if (rc == 0 && w[k].rc) {
			*e = w[k].e;
			rc = w[k].rc;
		}
		if (rc == 0 && summary__merge(s, &w[k].s, w[k].slots, w[k].nr_slots))
			rc = err_oom(e);
		summary__release(&w[k].s);
		xfree(w[k].slots);
	}
	for (size_t i = 0; job.rd && i < n; i++)
		rank_data__release(&job.rd[i]); /* those not reached after an error */
	xfree(job.rd);
	xfree(w);
	pthread_mutex_destroy(&job.lock);
	return rc;
}
