// SPDX-License-Identifier: BSD-3-Clause
// Times our ingestion of one recording: the perf.data direct reader, and the
// perf script parser on each text file given (bytes already in memory, so
// only parsing + aggregation + emission is timed). Prints samples/s; run.sh
// adds perf script's own time for the ratios. Asserts nothing. Each line ends
// with the best CPU time of this thread (a figure the machine's load moves less).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/perf_data.h"
#include "ingest/perf_script.h"
#include "model/model.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* This thread's CPU time: on a shared machine, what the wall time was
 * before other processes took the CPU away. */
static double cpu_now(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static const char *map_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0 || sb.st_size == 0) {
		perror(path);
		exit(1);
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	*len = (size_t)sb.st_size;
	return m;
}

typedef int (*ingest_fn)(const char *buf, size_t len, const struct ingest_opts *o,
			 struct pivot *p, struct ingest_stats *st, struct err *e);

static int via_data(const char *buf, size_t len, const struct ingest_opts *o, struct pivot *p,
		    struct ingest_stats *st, struct err *e)
{
	return ingest_perf_data(buf, len, o, p, st, e);
}

/* Best of `reps` runs (the machine is shared: the minimum is the cost), wall
 * time returned, CPU time into *best_cpu. */
static double best(ingest_fn fn, const char *buf, size_t len, int reps, uint64_t *samples,
		   size_t *nr_meas, double *best_cpu)
{
	struct ingest_opts o = {.sz = sizeof(o), .node = "bench", .rank = -1};
	double b = 1e30;
	*best_cpu = 1e30;
	for (int r = 0; r < reps; r++) {
		struct pivot p;
		pivot__init(&p);
		struct ingest_stats st = {0};
		struct err e = {0};
		double t0 = now(), c0 = cpu_now();
		int rc = fn(buf, len, &o, &p, &st, &e);
		double dt = now() - t0, dc = cpu_now() - c0;
		if (dc < *best_cpu)
			*best_cpu = dc;
		if (rc) {
			fprintf(stderr, "bench_ingest: %s: %s\n", e.code, e.msg);
			exit(1);
		}
		*samples = st.nr_samples;
		*nr_meas = p.nr_measurements;
		if (dt < b)
			b = dt;
		pivot__release(&p);
		ingest_stats__release(&st);
	}
	return b;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_ingest X.data [perf-script.txt ...]\n");
		return 2;
	}
	int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3;
	size_t len, nm;
	uint64_t n;
	double cpu;
	const char *d = map_file(argv[1], &len);
	double t = best(via_data, d, len, reps, &n, &nm, &cpu);
	printf("direct reader     %10.6f s  %9llu samples  %7.2f M samples/s  (%zu measurements, %.0f MB/s)  cpu %.3f s\n",
	       t, (unsigned long long)n, (double)n / t / 1e6, nm, (double)len / t / 1e6, cpu);
	for (int i = 2; i < argc; i++) {
		const char *txt = map_file(argv[i], &len);
		double ts = best(ingest_perf_script, txt, len, reps, &n, &nm, &cpu);
		printf("script parser     %10.6f s  %9llu samples  %7.2f M samples/s  (%s, %.0f MB/s)  cpu %.3f s\n",
		       ts, (unsigned long long)n, (double)n / ts / 1e6, argv[i],
		       (double)len / ts / 1e6, cpu);
	}
	return 0;
}
