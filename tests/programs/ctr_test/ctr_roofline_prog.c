/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regions with known FLOP and DRAM byte counts from the test-only counter
 * backend (ctr_test_backend.c), for nunatak's roofline of regions
 * (tests/e2e/run_regions_roofline.sh), run with
 * SCOPE_PROFILER_EVENTS=test::FLOP,test::DRAM_BYTES:
 *   "stream"  2e9 flop, 8e9 bytes  (0.25 flop/byte: left of any ridge)
 *   "dgemm"   6e9 flop, 5e7 bytes  (120 flop/byte)
 *   "mixed"   on two call paths (under main and under "outer"): counts
 *             are per region, so no path of it can be placed
 * Each region burns about 30 ms of CPU, so its measured time is real.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <scope_profiler.h>

#include "ctr_test_backend.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void burn(double s)
{
	volatile uint64_t x = 1;
	double t0 = cpu_s();
	while (cpu_s() - t0 < s)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1;
}

static void region(const char *name, uint64_t flop, uint64_t bytes)
{
	const struct sp_site *r = sp_region(name);
	sp_begin(r);
	ctr_test_add(flop, bytes);
	burn(0.03);
	sp_end(r);
}

int main(void)
{
	region("stream", 2000000000ull, 8000000000ull);
	region("dgemm", 6000000000ull, 50000000ull);
	region("mixed", 1000000ull, 1000000ull);
	const struct sp_site *outer = sp_region("outer");
	sp_begin(outer);
	region("mixed", 1000000ull, 1000000ull);
	sp_end(outer);
	sp_finalize();
	puts("done");
	return 0;
}
