// SPDX-License-Identifier: BSD-3-Clause
// Times pivot.sqlite writing and reading of N measurement rows against a
// baseline measured in the same run: the same rows printed as CSV with
// fprintf (what a naive text dump costs). CPU time and wall time are both
// printed because benchmark machines are often shared. Asserts nothing.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "model/model.h"
#include "store/pivot_db.h"

struct clocks {
	double wall, cpu;
};

static struct clocks now(void)
{
	struct timespec w, c;
	clock_gettime(CLOCK_MONOTONIC, &w);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	return (struct clocks){(double)w.tv_sec + (double)w.tv_nsec * 1e-9,
			       (double)c.tv_sec + (double)c.tv_nsec * 1e-9};
}

static void report(const char *what, size_t n, struct clocks a, struct clocks b, double base)
{
	double cpu = b.cpu - a.cpu, wall = b.wall - a.wall;
	printf("%-22s %8.2f M rows/s cpu  %8.2f M rows/s wall", what, (double)n / cpu / 1e6,
	       (double)n / wall / 1e6);
	if (base > 0)
		printf("  x%.2f of the CSV baseline's cpu time", cpu / base);
	printf("\n");
}

static double csv_baseline(const struct pivot *p, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	struct clocks a = now();
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		fprintf(f, "%zu,%lld,%lld,%d,%s,%.17g,%s,%s,,%lld,\n", i, (long long)m->hotspot,
			(long long)m->locus, m->pass_index, m->counter, m->value, m->unit,
			quality__name(m->quality), (long long)m->sample_count);
	}
	fflush(f);
	struct clocks b = now();
	fclose(f);
	report("CSV fprintf baseline", p->nr_measurements, a, b, 0);
	return b.cpu - a.cpu;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	char dir[] = "/tmp/nunatak-bench-store-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char db[64], csv[64];
	snprintf(db, sizeof(db), "%s/pivot.sqlite", dir);
	snprintf(csv, sizeof(csv), "%s/rows.csv", dir);
	struct pivot p, r;
	struct err e = {0};
	pivot__init(&p);
	pivot__init(&r);
	for (int i = 0; i < 64; i++) {
		char name[32];
		snprintf(name, sizeof(name), "kernel_%d", i);
		struct hotspot h = {(char *)"/opt/app/solver", NULL, name, NULL,
				    RESOLUTION_FUNCTION, (uint64_t)i * 64, true};
		pivot__add_hotspot(&p, &h);
		pivot__intern_locus(&p, "node", i, -1);
	}
	for (size_t i = 0; i < n; i++) {
		struct measurement m = {(int64_t)(i % 64), (int64_t)(i / 7 % 64), 0,
					(char *)"task-clock", (double)i * 1.5, (char *)"ns",
					QUALITY_MEASURED, NULL, (int64_t)i, -1};
		if (pivot__add_measurement(&p, &m) < 0)
			return 1;
	}
	double base = csv_baseline(&p, csv);
	struct clocks a = now();
	if (pivot_db_write(&p, db, "bench", &e)) {
		fprintf(stderr, "write: %s\n", e.msg);
		return 1;
	}
	struct clocks b = now();
	report("pivot_db_write", n, a, b, base);
	a = now();
	if (pivot_db_read(&r, db, &e)) {
		fprintf(stderr, "read: %s\n", e.msg);
		return 1;
	}
	b = now();
	report("pivot_db_read", n, a, b, base);
	unlink(db);
	unlink(csv);
	rmdir(dir);
	pivot__release(&p);
	pivot__release(&r);
	return 0;
}
