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
 * With CTR_ROOFLINE_RANK_SCALE=1 under an MPI launcher, rank r counts
 * (r + 1) times the FLOP (bytes unchanged), so per-rank points differ
 * (tests/e2e/run_regions_roofline_mpi.sh).
 */
#include <stdint.h>
#include <stdlib.h>
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

/* The launcher's rank (Open MPI, then PMI), 0 outside MPI. */
static uint64_t flop_scale(void)
{
	const char *on = getenv("CTR_ROOFLINE_RANK_SCALE");
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	if (!r)
		r = getenv("PMI_RANK");
	return on && *on == '1' && r ? 1 + strtoull(r, NULL, 10) : 1;
}

static void region(const char *name, uint64_t flop, uint64_t bytes)
{
	flop *= flop_scale();
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
