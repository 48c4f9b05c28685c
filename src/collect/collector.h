/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which CPU collector a Run uses (`--collector auto|perf|preload`), and the
 * preload sampler's injection. `auto` uses perf where it can sample;
 * otherwise libscope_profiler is injected into the unmodified application
 * with LD_PRELOAD (SCOPE_PROFILER_SAMPLE_HZ starts its CPU-time timers from
 * the library's constructor), prepended to the user's own LD_PRELOAD so both
 * load. The application is never relinked and never run twice: perf fails
 * before it launches the application, so falling back after a refusal still
 * runs it once.
 */
#ifndef NUNATAK_COLLECT_COLLECTOR_H
#define NUNATAK_COLLECT_COLLECTOR_H

#include <stdbool.h>

enum collector_request { COLLECTOR_AUTO = 0, COLLECTOR_PERF, COLLECTOR_PRELOAD };
enum collector_kind { COLLECTOR_NONE = 0, COLLECTOR_USE_PERF, COLLECTOR_USE_PRELOAD };

/* "auto", "perf", "preload" -> *out. Returns 0 or -EINVAL. */
int collector_request__parse(const char *s, enum collector_request *out);
const char *collector_kind__name(enum collector_kind k); /* "perf", "preload", "none" */

/* The decision, pure: what was asked, whether perf can sample, whether the
 * preload library is there. */
enum collector_kind collector_choose(enum collector_request req, bool perf_can_sample,
				     bool preload_found);

/* "LD_PRELOAD=<lib>[:<existing>]" (caller frees); existing may be NULL/empty.
 * NULL when out of memory. */
char *collector_ld_preload(const char *lib, const char *existing);

/* Cost of one preload sample in seconds of the application's CPU time: the
 * value bench/run measured on this machine ($XDG_CACHE_HOME/nunatak/
 * preload-sample-cost, *measured = true) or a documented default. */
double preload_sample_cost_s(bool *measured);

#endif
