/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timestamps for the hot path. With an invariant TSC (constant_tsc and
 * nonstop_tsc in /proc/cpuinfo, x86-64) a stamp is a raw rdtsc, mapped to
 * CLOCK_MONOTONIC nanoseconds after the run by linear interpolation between
 * anchors: (tsc, monotonic ns) pairs taken at init, before each buffer a
 * thread writes to the trace file, at least once a second by each recording
 * thread, and at finalize.
 * Elsewhere a stamp is CLOCK_MONOTONIC ns and the mapping is the identity.
 * SCOPE_PROFILER_CLOCK=monotonic forces the fallback.
 */
#ifndef SP_CLOCK_H
#define SP_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* CLOCK_MONOTONIC and CLOCK_REALTIME ns when the library initialised. */
extern uint64_t sp_clock_init_mono_ns, sp_clock_init_real_ns;
/* True when stamps are TSC ticks; set once by sp_clock__init(). */
extern bool sp_clock_tsc;
/* TSC ticks after which a recording thread takes a fresh anchor (<= 1 s). */
extern uint64_t sp_clock_anchor_interval;

static inline uint64_t sp_clock__mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* sp_clock__mono_ns() out of line: keeps the timespec off the hot
 * functions' frames in TSC mode. Async-signal-safe. */
uint64_t sp_clock__mono_ns_outline(void);

/* A raw stamp. Async-signal-safe. */
static inline uint64_t sp_clock__now(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(sp_clock_tsc, 1))
		return __rdtsc();
#endif
	return sp_clock__mono_ns_outline();
}

/*
 * Decides the mode (reads /proc/cpuinfo, without stdio, and the env) and
 * takes the first anchor. Idempotent; called under the library's init lock.
 */
void sp_clock__init(void);

/* Takes one anchor now and appends it to the table (mapped memory, never
 * malloc; its mutex is a section of the library, inlib.h: a signal
 * handler's flush reaches it only when its thread holds no lock of ours).
 * Returns the stamp it used. */
uint64_t sp_clock__anchor(void);

/* Copies up to @p max anchors from index @p from as (tsc, mono ns) pairs
 * into @p pairs; returns how many. */
size_t sp_clock__anchors_since(size_t from, uint64_t *pairs, size_t max);

/*
 * Converter from stamps to CLOCK_MONOTONIC ns over a frozen copy of the
 * anchor table. Stamps outside the anchored span extrapolate with the
 * nearest segment's slope.
 */
struct sp_clock_map {
	size_t nr;
	uint64_t *tsc;
	uint64_t *mono;
	double *slope; /* ns per tick of each segment */
	size_t hint; /* segment of the last lookup: stamps arrive near-sorted */
};

/* Snapshots the anchors (taking one more). Returns 0 or -ENOMEM. */
int sp_clock_map__init(struct sp_clock_map *m);
void sp_clock_map__exit(struct sp_clock_map *m);
int64_t sp_clock_map__ns(struct sp_clock_map *m, uint64_t stamp);
/* Length of @p ticks stamps in ns (for durations such as handler time). */
double sp_clock_map__span_ns(const struct sp_clock_map *m, uint64_t ticks);

/* Test hook: replaces the anchor table by @p nr given pairs. */
void sp_clock__set_anchors_for_test(const uint64_t *tsc, const uint64_t *mono,
				    size_t nr, bool tsc_mode);

#endif
