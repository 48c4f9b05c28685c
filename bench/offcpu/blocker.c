// SPDX-License-Identifier: BSD-3-Clause
/* Blocks argv[1] times (default 3000), about 1000 times a second: 0.5 ms of
 * CPU work, then a 0.5 ms nanosleep, in turn (bench/offcpu/offcpu.sh). A
 * fixed amount of work, so that any cost shows in its wall time. */
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000, blocks = 0;
	while (blocks < n) {
		double stop = now(CLOCK_THREAD_CPUTIME_ID) + 0.0005;
		while (now(CLOCK_THREAD_CPUTIME_ID) < stop)
			for (int i = 0; i < 1000; i++)
				sink += i * 0.5;
		struct timespec t = {0, 500000};
		nanosleep(&t, NULL);
		blocks++;
	}
	return blocks > 0 ? 0 : 1;
}
