/* SPDX-License-Identifier: BSD-3-Clause */
#include "clock.h"

#include "amem.h"
#include "inlib.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool sp_clock_tsc;
uint64_t sp_clock_anchor_interval = UINT64_MAX;
uint64_t sp_clock_init_mono_ns, sp_clock_init_real_ns;

static pthread_mutex_t anchor_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *anchor_tsc, *anchor_mono;
static size_t anchor_nr, anchor_cap, tsc_bytes, mono_bytes;
static bool clock_ready;
static bool anchors_frozen; /* test hook in use: keep its table exact */

__attribute__((noinline)) uint64_t sp_clock__mono_ns_outline(void)
{
	return sp_clock__mono_ns();
}

/* The first processor's block of /proc/cpuinfo, read with open/read (the
 * first call, which decides the clock, may be made in a signal handler:
 * no stdio). Under the library's init lock. */
static char cpuinfo[16384];

/* Both flags are needed: constant_tsc alone still stops in deep C-states. */
static bool cpu_has_invariant_tsc(void)
{
#if defined(__x86_64__)
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t n = 0;
	char *flags = NULL, *eol = NULL;
	while (n + 1 < sizeof(cpuinfo) && !eol) {
		ssize_t r = read(fd, cpuinfo + n, sizeof(cpuinfo) - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		cpuinfo[n] = 0;
		if (!flags)
			flags = strncmp(cpuinfo, "flags", 5) == 0 ? cpuinfo : strstr(cpuinfo, "\nflags");
		if (flags)
			eol = strchr(flags + 1, '\n');
	}
	close(fd);
	if (!eol)
		return false;
	*eol = 0;
	return strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
#else
	return false;
#endif
}

/* One (tsc, mono) pair: the tightest of a few tries brackets the monotonic
 * read between two TSC reads and uses their midpoint. */
static void take_pair(uint64_t *tsc, uint64_t *mono)
{
	if (!sp_clock_tsc) {
		*tsc = *mono = sp_clock__mono_ns();
		return;
	}
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = sp_clock__now();
		uint64_t m = sp_clock__mono_ns();
		uint64_t b = sp_clock__now();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*mono = m;
		}
	}
}

/* Mapped, never malloc'd (amem.h): a signal handler's sp_end that runs its
 * thread's periodic flush takes an anchor. */
static void append_locked(uint64_t tsc, uint64_t mono)
{
	if (anchor_nr == anchor_cap) {
		size_t need = (anchor_cap ? anchor_cap * 2 : 64) * sizeof(uint64_t);
		void *t = anchor_tsc, *m = anchor_mono;
		bool ok = sp_amem__reserve(&t, &tsc_bytes, need) &&
			  sp_amem__reserve(&m, &mono_bytes, need);
		anchor_tsc = t;
		anchor_mono = m;
		if (!ok)
			return;
		anchor_cap = need / sizeof(uint64_t);
	}
	anchor_tsc[anchor_nr] = tsc;
	anchor_mono[anchor_nr] = mono;
	anchor_nr++;
}

void sp_clock__init(void)
{
	if (clock_ready)
		return;
	const char *force = getenv("SCOPE_PROFILER_CLOCK");
	bool want_tsc = !(force && strcmp(force, "monotonic") == 0);
	sp_clock_tsc = want_tsc && cpu_has_invariant_tsc();
	clock_ready = true;
	uint64_t t0, m0;
	take_pair(&t0, &m0);
	/* 1e9 ticks is at most a second for any TSC of 1 GHz or more; no
	 * calibration sleep, which would delay every preloaded process. */
	/* Monotonic stamps are ns: the same number is a second either way.
	 * Each interval a recording thread also flushes its buffer (stream.h). */
	sp_clock_anchor_interval = 1000000000u;
	sp_clock_init_mono_ns = sp_clock__mono_ns();
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	sp_clock_init_real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (sp_clock_tsc) {
		sp_lock(&anchor_lock);
		append_locked(t0, m0);
		sp_unlock(&anchor_lock);
	}
}

uint64_t sp_clock__anchor(void)
{
	uint64_t t, m;
	take_pair(&t, &m);
	if (!sp_clock_tsc || anchors_frozen)
		return t;
	sp_lock(&anchor_lock);
	append_locked(t, m);
	sp_unlock(&anchor_lock);
	return t;
}

size_t sp_clock__anchors_since(size_t from, uint64_t *pairs, size_t max)
{
	size_t n = 0;
	sp_lock(&anchor_lock);
	for (size_t i = from; i < anchor_nr && n < max; i++, n++) {
		pairs[2 * n] = anchor_tsc[i];
		pairs[2 * n + 1] = anchor_mono[i];
	}
	sp_unlock(&anchor_lock);
	return n;
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int sp_clock_map__init(struct sp_clock_map *m)
{
	memset(m, 0, sizeof(*m));
	if (!sp_clock_tsc)
		return 0;
	if (!anchors_frozen)
		sp_clock__anchor();
	sp_lock(&anchor_lock);
	size_t nr = anchor_nr;
	uint64_t *pairs = malloc(nr * 2 * sizeof(*pairs) + 1);
	if (pairs) {
		for (size_t i = 0; i < nr; i++) {
			pairs[2 * i] = anchor_tsc[i];
			pairs[2 * i + 1] = anchor_mono[i];
		}
	}
	sp_unlock(&anchor_lock);
	if (!pairs)
		return -ENOMEM;
	/* Threads append anchors concurrently, so the table is only nearly
	 * sorted; equal stamps would give a zero-length segment: drop them. */
	qsort(pairs, nr, 2 * sizeof(*pairs), cmp_u64_pair);
	m->tsc = malloc(nr * sizeof(uint64_t) + 1);
	m->mono = malloc(nr * sizeof(uint64_t) + 1);
	if (!m->tsc || !m->mono) {
		free(pairs);
		sp_clock_map__exit(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		if (m->nr && pairs[2 * i] <= m->tsc[m->nr - 1])
			continue;
		if (m->nr && pairs[2 * i + 1] < m->mono[m->nr - 1])
			continue;
		m->tsc[m->nr] = pairs[2 * i];
		m->mono[m->nr] = pairs[2 * i + 1];
		m->nr++;
	}
	free(pairs);
	m->slope = malloc(m->nr * sizeof(double) + 1);
	if (!m->slope) {
		sp_clock_map__exit(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i + 1 < m->nr; i++)
		m->slope[i] = ((double)m->mono[i + 1] - (double)m->mono[i]) /
			      ((double)m->tsc[i + 1] - (double)m->tsc[i]);
	return 0;
}

void sp_clock_map__exit(struct sp_clock_map *m)
{
	free(m->tsc);
	free(m->mono);
	free(m->slope);
	memset(m, 0, sizeof(*m));
}

static int64_t interp(const struct sp_clock_map *m, size_t i, uint64_t stamp)
{
	double off = (double)(int64_t)(stamp - m->tsc[i]);
	return (int64_t)m->mono[i] + (int64_t)(off * m->slope[i]);
}

int64_t sp_clock_map__ns(struct sp_clock_map *m, uint64_t stamp)
{
	if (m->nr < 2)
		return m->nr == 1 ? (int64_t)m->mono[0] : (int64_t)stamp;
	size_t i = m->hint;
	if (i + 1 >= m->nr)
		i = m->nr - 2;
	if (stamp < m->tsc[i] || stamp >= m->tsc[i + 1]) {
		size_t lo = 0, hi = m->nr - 1; /* find last i with tsc[i] <= stamp */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->tsc[mid] <= stamp)
				lo = mid;
			else
				hi = mid;
		}
		i = lo;
	}
	m->hint = i;
	return interp(m, i, stamp);
}

double sp_clock_map__span_ns(const struct sp_clock_map *m, uint64_t ticks)
{
	if (m->nr < 2)
		return (double)ticks;
	double dt = (double)(m->tsc[m->nr - 1] - m->tsc[0]);
	double dm = (double)(m->mono[m->nr - 1] - m->mono[0]);
	return dt > 0 ? (double)ticks * dm / dt : (double)ticks;
}

void sp_clock__set_anchors_for_test(const uint64_t *tsc, const uint64_t *mono,
				    size_t nr, bool tsc_mode)
{
	sp_lock(&anchor_lock);
	anchor_nr = 0;
	for (size_t i = 0; i < nr; i++)
		append_locked(tsc[i], mono[i]);
	sp_clock_tsc = tsc_mode;
	clock_ready = true;
	anchors_frozen = true;
	sp_unlock(&anchor_lock);
}
