/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to compare.c: one observation per (item, Run), gathered from each
 * Run's pivot, then sorted so that an item's observations are adjacent.
 */
#ifndef NUNATAK_ANALYSIS_COMPARE_GATHER_H
#define NUNATAK_ANALYSIS_COMPARE_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/compare.h"

struct compare_obs {
	enum compare_kind kind;
	char *key;            /* owned: the logical identity ("module\x1fname", path, rank) */
	char *name;           /* owned display name, or NULL */
	char *module;         /* owned module basename, or NULL */
	int rank;
	size_t run;           /* over A then B */
	double value;         /* in the item's unit */
	int64_t samples;      /* -1 when not sampled */
	enum quality quality; /* worst Quality of the Measurements behind value */
	const char *build_id; /* borrowed from the pivot, or NULL */
	const char *file;     /* Hotspots: the function's source file (borrowed), or NULL */
	const char *function; /* Hotspots: the function's name (borrowed), or NULL */
};

struct compare_obs_set {
	struct compare_obs *v;
	size_t n, cap;
};

/* The sampled time base of p (task-clock, cpu-clock, cycles, first
 * present at Hotspot level), or NULL; *lowest_pass gets its lowest pass. */
const char *compare_time_base(const struct pivot *p, int *lowest_pass);
/* Whether a counter's values are nanoseconds of a clock. */
bool compare_is_clock(const char *counter);

/* Appends the Run's Hotspots and its total (kind COMPARE_TOTAL), its regions
 * and its ranks. scale converts the time base's unit (1e-9 for ns clocks).
 * Returns 0 or -ENOMEM. */
int compare_gather_run(struct compare_obs_set *s, const struct compare_run *r, size_t run,
		       const char *time_base, double scale);

/* Sorts by (kind, key, run). */
void compare_obs_set__sort(struct compare_obs_set *s);
void compare_obs_set__release(struct compare_obs_set *s);

/* The distinct Hotspot-level counters of p joined with "," in sorted order
 * (caller frees), NULL on ENOMEM. */
char *compare_counter_set(const struct pivot *p);

#endif
