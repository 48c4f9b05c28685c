/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads: scope_profiler with several POSIX threads. Each worker is its own
 * lane in the trace (written as format version 3, with the threads' OS ids
 * and names).
 *
 *   threads [NTHREADS [ROUNDS [WAIT_MS]]]     defaults 4 20 2
 *
 * Regions and calls: "main" 1 (main thread); per worker thread "worker" 1,
 * "compute" ROUNDS (CPU-bound), "wait" ROUNDS (sleeps WAIT_MS).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

static int rounds = 20, wait_ms = 2;

static double compute(int seed)
{
	SP_SCOPE("compute");
	double x = seed;
	for (int i = 0; i < 300000; i++)
		x = x * 0.999999 + 1e-6 * (i & 7);
	return x;
}

static void wait_a_bit(void)
{
	SP_SCOPE("wait");
	struct timespec d = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
	while (nanosleep(&d, &d) != 0)
		;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	double acc = 0;
	SP_BEGIN(w, "worker");
	for (int r = 0; r < rounds; r++) {
		acc += compute(id + r);
		wait_a_bit();
	}
	SP_END(w);
	return (void *)(long)(acc > 0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	rounds = argc > 2 ? atoi(argv[2]) : 20;
	wait_ms = argc > 3 ? atoi(argv[3]) : 2;
	if (n < 1 || n > 256 || rounds < 1 || wait_ms < 0) {
		fprintf(stderr, "usage: threads [NTHREADS 1-256 [ROUNDS>=1 [WAIT_MS>=0]]]\n");
		return 2;
	}
	sp_init("threads", "threads example");
	pthread_t tid[256];
	SP_BEGIN(m, "main");
	for (int i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, worker, (void *)(long)i) != 0) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	SP_END(m);
	printf("threads: %d workers x %d rounds done (pid %ld)\n", n, rounds, (long)getpid());
	return sp_finalize() == 0 ? 0 : 1;
}
