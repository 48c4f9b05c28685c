/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test program of libscope_profiler's streaming, crash-safety and misuse
 * reporting, driven by tests/e2e/lib_streaming.sh:
 *   lib_stream_prog crash N    a worker thread records 1000 calls and exits,
 *                              then main records N calls (step > work), says
 *                              "recorded" and waits to be killed
 *   lib_stream_prog rss N SPT  records N calls, prints the peak RSS (getrusage)
 *                              and the unfinished trace's size, then calls
 *                              sp_finalize and prints the peak RSS again
 *   lib_stream_prog mix N      N calls over 3 threads (a recursive region
 *                              3 deep in each), then sp_finalize
 *   lib_stream_prog misuse     an end of a region never opened, ends out of
 *                              order, a region left open, recursion 300 deep
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scope_profiler.h>

static void *worker(void *arg)
{
	(void)arg;
	const struct sp_site *w = sp_region("worker");
	for (int i = 0; i < 1000; i++) {
		sp_begin(w);
		sp_end(w);
	}
	return NULL;
}

static __attribute__((noreturn)) void crash(long n)
{
	pthread_t th;
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	const struct sp_site *step = sp_region("step"), *work = sp_region("work");
	for (long i = 0; i < n; i += 2) {
		sp_begin(step);
		sp_begin(work);
		sp_end(work);
		sp_end(step);
	}
	printf("recorded %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}

static int rss(long n, const char *spt)
{
	const struct sp_site *r = sp_region("r");
	for (long i = 0; i < n; i++) {
		sp_begin(r);
		sp_end(r);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	struct stat st;
	long long size = stat(spt, &st) == 0 ? (long long)st.st_size : -1;
	printf("calls %ld maxrss_kib %ld trace_bytes %lld\n", n, ru.ru_maxrss, size);
	fflush(stdout);
	int rc = sp_finalize();
	getrusage(RUSAGE_SELF, &ru);
	size = stat(spt, &st) == 0 ? (long long)st.st_size : -1;
	printf("finalized rc %d maxrss_kib %ld spt_bytes %lld\n", rc, ru.ru_maxrss, size);
	return rc;
}

static void recurse(const struct sp_site *r, int depth);

static void *mix_thread(void *arg)
{
	long n = *(long *)arg;
	const struct sp_site *a = sp_region("mix_a"), *rec = sp_region("mix_rec");
	for (long i = 0; i < n; i += 4) {
		sp_begin(a);
		sp_end(a);
		recurse(rec, 3);
	}
	return NULL;
}

static int mix(long n)
{
	pthread_t th[2];
	long per = n / 3;
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, mix_thread, &per);
	mix_thread(&per);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return sp_finalize();
}

static void recurse(const struct sp_site *r, int depth)
{
	sp_begin(r);
	if (depth > 1)
		recurse(r, depth - 1);
	sp_end(r);
}

static int misuse(void)
{
	const struct sp_site *a = sp_region("never_opened"), *o = sp_region("outer"),
			     *i = sp_region("inner"), *l = sp_region("left_open"),
			     *r = sp_region("recursive");
	sp_end(a);     /* end of a region never opened */
	sp_begin(o);
	sp_begin(i);
	sp_end(o);     /* ends out of order: inner discarded, outer recorded */
	sp_end(i);     /* ... and inner is no longer open */
	recurse(r, 300);
	sp_begin(l);   /* left open at finalize */
	return sp_finalize() == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (strcmp(mode, "crash") == 0)
		crash(n);
	if (strcmp(mode, "rss") == 0)
		return rss(n, argc > 3 ? argv[3] : "");
	if (strcmp(mode, "mix") == 0)
		return mix(n);
	if (strcmp(mode, "misuse") == 0)
		return misuse();
	fprintf(stderr, "usage: lib_stream_prog crash N | rss N SPT | mix N | misuse\n");
	return 2;
}
