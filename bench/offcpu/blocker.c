// SPDX-License-Identifier: BSD-3-Clause
/* Blocks argv[1] times (default 3000), about 1000 times a second: 0.5 ms of
 * CPU work, then a 0.5 ms nanosleep, in turn (bench/offcpu/offcpu.sh,
 * offcpu_run.sh). A fixed amount of work, so that any cost shows in its wall
 * time. With argv[2], writes there its own figures, "wall_s cpu_s sys_s"
 * (CLOCK_MONOTONIC around the loop; getrusage(RUSAGE_SELF) user + system,
 * and system alone): what the application itself lived, whatever ran
 * around it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static volatile double sink;

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double tv(struct timeval t)
{
	return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000, blocks = 0;
	double start = now(CLOCK_MONOTONIC);
	while (blocks < n) {
		double stop = now(CLOCK_THREAD_CPUTIME_ID) + 0.0005;
		while (now(CLOCK_THREAD_CPUTIME_ID) < stop)
			for (int i = 0; i < 1000; i++)
				sink += i * 0.5;
		struct timespec t = {0, 500000};
		nanosleep(&t, NULL);
		blocks++;
	}
	double wall = now(CLOCK_MONOTONIC) - start;
	struct rusage ru;
	FILE *f = argc > 2 ? fopen(argv[2], "w") : NULL;
	if (f && getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(f, "%.6f %.6f %.6f\n", wall, tv(ru.ru_utime) + tv(ru.ru_stime), tv(ru.ru_stime));
	if (f)
		fclose(f);
	return blocks > 0 ? 0 : 1;
}
