/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters per region: SCOPE_PROFILER_EVENTS=name,name,... (or
 * sp_set_events() before the first region) makes every sp_begin/sp_end of
 * a thread read that thread's counter group, and each region keeps, per
 * thread (lane), its number of calls and the inclusive and exclusive sums
 * of every event. Written to the trace's extension (sp_format.h 'CNTR').
 *
 * Backend: perf_event_open(2) directly, one group per thread read with one
 * read(2) (PERF_FORMAT_GROUP): a system call, no library, nothing to load.
 * Why not PAPI (libpapi-dev 7): measured on the development machine (no
 * PMU), PAPI's perf_event component disables itself ("libpfm4 no default
 * PMU found"), so PAPI counts nothing there, not even perf::TASK-CLOCK;
 * where it works, PAPI_read reads the same kernel counters with the same
 * read(2) plus its own bookkeeping, so it cannot be cheaper where rdpmc is
 * unavailable (every software event, and this machine). PAPI's preset
 * names are accepted as aliases where perf has a generic event
 * (PAPI_TOT_CYC, PAPI_TOT_INS, ...). Measured cost: a region pair with one
 * event about 1.3 us, two events about 1.35 us, against 22-25 ns without
 * (bench/lib bench_lib_static; docs/cli/regions.md); keeping each call's
 * counts (sp_counters__keep, flushed as 'CVAL' frames) did not move it.
 *
 * A test-only backend with known counts (tests/programs/ctr_test/ctr_test_backend.c)
 * is reached through a weak reference: it exists only in test programs
 * that link it; the release libraries contain no such backend.
 *
 * Concurrency: configuration happens once, under the API lock, before any
 * thread records (sp_set_events refuses afterwards). A thread's counter
 * state is written only by that thread; finalize reads the sums of every
 * thread (a live thread's last region may be torn: its sums are final only
 * once its regions are closed, as for its calls).
 */
#ifndef SP_COUNTERS_H
#define SP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_format.h" /* enum sp_ctr_kind */

struct sp_site;
struct sp_trace;
struct sp_thread;

/* Events per group: more are named unavailable ("at most 8 events"). */
#define SP_CTR_MAX 8
/* Names kept (counted or unavailable, each in the trace); more are ignored
 * and said so at start. */
#define SP_CTR_NAMES 16
/* Regions per thread with counts: further regions are counted as dropped. */
#define SP_CTR_SLOTS 4096u


/* One requested event, as configured and as written to the trace. */
struct sp_ctr_event {
	char name[64];
	int kind;     /* enum sp_ctr_kind */
	bool counted; /* false: reason says why */
	char reason[256];
};

/* A backend: the perf_event one (counters.c) or the test one. */
struct sp_ctr_backend {
	const char *name;
	/* Resolves @p name: >= 0 an event id of the backend (and *kind), or
	 * -1 when the backend does not know the name. */
	int (*resolve)(const char *name, int *kind);
	/* Opens the calling thread's group of @p n events (ids from resolve);
	 * 0 or -errno. @p state is SP_CTR_STATE_BYTES of zeroed storage. */
	int (*open)(void *state, const int *ids, int n);
	/* Reads the group's @p n values (monotonic per thread). 0 or -errno. */
	int (*read)(void *state, uint64_t *values, int n);
	void (*close)(void *state);
};
#define SP_CTR_STATE_BYTES 128

/* The test backend, defined only by test programs (weak: NULL otherwise). */
extern const struct sp_ctr_backend sp_ctr_test_backend
	__attribute__((weak, visibility("hidden")));

/* Parses and probes @p list (comma separated) once: every event gets a
 * status, logged at start (unavailable ones with their reason). @p source
 * names where the list came from, for the log. 0, -EALREADY when events
 * were set, -EBUSY when @p threads_started (a thread already recorded: it
 * has no group). Under the API lock. */
int sp_counters__configure(const char *list, const char *source, bool threads_started);

/* True when at least one event is counted. */
bool sp_counters__on(void);

/* Gives @p t its counter state (opens its group). Called once per thread
 * at registration; failures leave t->ctr NULL and are counted. */
void sp_counters__thread_start(struct sp_thread *t);
/* The thread exits: closes its group, keeps its sums. */
void sp_counters__thread_exit(struct sp_thread *t);

/* Hot path, out of line: the region at stack depth @p d opens / closes. */
void sp_counters__begin(struct sp_thread *t, uint32_t d);
/* @p cv receives the closing call's inclusive counts (SP_CTR_NONE each when
 * they were not kept): the caller's storage, for sp_counters__keep. */
void sp_counters__end(struct sp_thread *t, const struct sp_site *h, uint32_t d, int64_t *cv);

/* Hot path, before the call is published: keeps @p cv (sp_counters__end's)
 * as the counts of call @p n of the thread's buffer. No allocation. */
void sp_counters__keep(struct sp_thread *t, size_t n, const int64_t *cv);
/* The thread's per-call counts, *per_call values per buffered call (0 and
 * NULL: the thread has no group). Read by the flush, under the stream lock. */
const int64_t *sp_counters__values(const struct sp_thread *t, int *per_call);

/* Fills the trace's counter section: @p region_of maps a site to its
 * region index (-1: none), @p lane_of a thread (by snapshot position) to
 * its lane (-1: none). 0 or -ENOMEM. */
int sp_counters__collect(struct sp_trace *tr, struct sp_thread *const *threads, size_t nr,
			 const int32_t *lane_of,
			 int32_t (*region_of)(void *ctx, const struct sp_site *site), void *ctx);

/* Warns once at finalize about regions or threads whose counts were lost. */
void sp_counters__report(void);

#endif
