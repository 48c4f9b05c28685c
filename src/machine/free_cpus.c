// SPDX-License-Identifier: BSD-3-Clause
#include "machine/free_cpus.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/fsutil.h"
#include "machine/snapshot.h"

/* idle+iowait and total ticks of "cpu<cpu> ..." in text; false when absent. */
static bool cpu_ticks(const char *text, int cpu, double *idle, double *total)
{
	for (const char *l = text; l && *l;) {
		if (!strncmp(l, "cpu", 3) && l[3] >= '0' && l[3] <= '9' && atoi(l + 3) == cpu) {
			const char *p = l + 3;
			while (*p >= '0' && *p <= '9')
				p++;
			double v[10] = {0};
			for (int i = 0; i < 10; i++) {
				char *end;
				v[i] = strtod(p, &end);
				if (end == p)
					break;
				p = end;
			}
			*idle = v[3] + v[4];
			*total = 0;
			for (int i = 0; i < 8; i++) /* guest ticks are already in user */
				*total += v[i];
			return true;
		}
		const char *nl = strchr(l, '\n');
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

int cpu_idle_fractions(const char *before, const char *after, const int *cpus, size_t n,
		       double *idle)
{
	double i0, t0;
	if (!before || !after || !strstr(before, "\ncpu0") || !strstr(after, "\ncpu0"))
		return -EINVAL;
	for (size_t k = 0; k < n; k++) {
		double i1, t1;
		idle[k] = NAN;
		if (cpu_ticks(before, cpus[k], &i0, &t0) && cpu_ticks(after, cpus[k], &i1, &t1) &&
		    t1 > t0) {
			double f = (i1 - i0) / (t1 - t0);
			idle[k] = f < 0 ? 0 : f > 1 ? 1 : f;
		}
	}
	return 0;
}

static void pause_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

int machine_free_cpus(const char *root, const struct machine *m, double interval_s,
		      int *free_cpus, size_t cap)
{
	double cores = 1;
	size_t n = m->alloc.has_affinity ? m->alloc.nr_affinity : 0;
	if (!n && machine__allocated_cores(m, &cores) && cores >= 1)
		n = (size_t)cores;
	char *path = fs_join(root ? root : "/", "proc/stat"), *a = NULL, *b = NULL;
	int *cpus = xcalloc(n ? n : 1, sizeof(*cpus));
	double *idle = xcalloc(n ? n : 1, sizeof(*idle));
	int nr = -1;
	if (!path || !cpus || !idle || !n || fs_read_file(path, 1 << 22, &a, NULL))
		goto out;
	for (size_t k = 0; k < n; k++)
		cpus[k] = m->alloc.has_affinity ? m->alloc.affinity_mask[k] : (int)k;
	pause_s(interval_s);
	if (fs_read_file(path, 1 << 22, &b, NULL) || cpu_idle_fractions(a, b, cpus, n, idle))
		goto out;
	nr = 0;
	/* Most idle first: a selection, n is a core count. */
	for (size_t k = 0; k < n && (size_t)nr < cap; k++) {
		size_t best = k;
		for (size_t j = k + 1; j < n; j++)
			if (!(idle[j] <= idle[best]) && !isnan(idle[j]))
				best = j;
		double ti = idle[k];
		int tc = cpus[k];
		idle[k] = idle[best], cpus[k] = cpus[best];
		idle[best] = ti, cpus[best] = tc;
		if (!(idle[k] >= FREE_CPU_IDLE))
			break;
		free_cpus[nr++] = cpus[k];
	}
out:
	xfree(path);
	xfree(a);
	xfree(b);
	xfree(cpus);
	xfree(idle);
	return nr;
}
