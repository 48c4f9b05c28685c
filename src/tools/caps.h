/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capability probe: what this machine (or, under replay, the recorded
 * one) lets nunatak measure, and the degradation each missing capability
 * implies, in words shared by `nunatak run` (announced before the run) and
 * `nunatak doctor` (which reports the same texts, so announcements
 * deduplicate). One probe, two readers: run/stage_collect.c and doctor/.
 *
 * Under replay (executor__recorded_meta() non-NULL) `perf --version` is the
 * recording's answer and the permission is the recording machine's
 * (meta.json "sampling_blocked": paranoid 3 when true, else 2); root is
 * never assumed then.
 */
#ifndef NUNATAK_TOOLS_CAPS_H
#define NUNATAK_TOOLS_CAPS_H

#include <stdbool.h>

#include "tools/perf.h"
#include "common/degradation_kinds.h"

struct err;
struct executor;

#define CAPS_PERF_MISSING_MSG "perf not found: no CPU samples will be collected"
#define CAPS_PERF_MISSING_REMEDY DEG_CPU_COLLECTION_UNAVAILABLE_REMEDY
#define CAPS_PARANOID_REMEDY "sudo sysctl kernel.perf_event_paranoid=2 (or 1)"

struct caps {
	struct perf_tool perf;   /* path owned (as configured); version when present */
	int perf_exit;           /* exit code of `perf --version` (127: not found) */
	bool replay;             /* answers come from a recording */
	bool root;               /* effective uid 0 (never under replay) */
	int paranoid;            /* kernel.perf_event_paranoid (2 when unreadable) */
	bool sampling_blocked;   /* perf missing, or paranoid forbids sampling */
	/* The degradation implied, or name == NULL when sampling is possible. */
	struct {
		const char *name;
		char message[200];
		const char *remedy;
	} degradation;
};

/*
 * Runs `<perf> --version` through x and reads the permission. `perf` is the
 * configured tool ("perf" or a path). Returns 0 (a missing perf is a result:
 * perf.present false), or -ENOMEM / a negative executor error with e filled.
 * Release with caps__release().
 */
int caps_probe(struct caps *c, struct executor *x, const char *perf, struct err *e);
void caps__release(struct caps *c);

#endif
