/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An uninstrumented program for the preload-sampler test (lib_sampling.sh):
 * the main thread sleeps and reads a pipe while a thread it creates after
 * start burns CPU. Exits 3 if a system call fails with EINTR.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *burner(void *arg)
{
	double t0 = cpu_s();
	while (cpu_s() - t0 < 0.4)
		for (int i = 0; i < 10000; i++)
			sink += i * 1e-9;
	int fd = *(int *)arg;
	return (void *)(long)(write(fd, "done", 4) == 4);
}

int main(void)
{
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pthread_t th;
	if (pthread_create(&th, NULL, burner, &p[1]) != 0)
		return 1;
	for (int i = 0; i < 50; i++) {
		struct timespec d = {0, 1000000};
		if (nanosleep(&d, NULL) != 0) {
			fprintf(stderr, "spin: nanosleep: errno %d\n", errno);
			return 3;
		}
	}
	char buf[8];
	ssize_t n = read(p[0], buf, sizeof(buf)); /* blocks until the burner ends */
	if (n != 4) {
		fprintf(stderr, "spin: read returned %zd, errno %d\n", n, errno);
		return 3;
	}
	pthread_join(th, NULL);
	puts("spin: done");
	return 0;
}
