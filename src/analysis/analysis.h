/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deterministic analysis: a pure function of (pivot, Machine Ceilings), never
 * persisted (REFERENCE.md §6). Every derived quantity carries its lineage,
 * formula and Quality, the worst of its inputs; an unavailable quantity has
 * no value (NaN internally, null in JSON) and always a reason.
 *
 * Only Hotspot-level Measurements count; a counter sampled in several passes
 * counts only in its lowest pass. The time base is the first of task-clock,
 * cpu-clock, cycles. Hotspots with fewer than floor samples of the time base
 * are aggregated as "others".
 */
#ifndef NUNATAK_ANALYSIS_ANALYSIS_H
#define NUNATAK_ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h" /* struct ceiling */
#include "model/model.h"

#define ANALYSIS_FLOOR_SAMPLES 30
#define ANALYSIS_LATENCY_FRACTION 0.5
#define ANALYSIS_IMBALANCE_RATIO 2.0
#define DERIVED_MAX_LINEAGE 4

struct derived {
	const char *name;
	double value;            /* NaN when unavailable */
	const char *unit;
	enum quality quality;
	const char *lineage[DERIVED_MAX_LINEAGE]; /* input names, NULL-terminated */
	const char *formula;
	char *reason;            /* owned; NULL when measured */
	const char *bound;       /* NULL: the value; "lower": the true value is above it */
};

struct diagnostic {
	int64_t hotspot;         /* index in pivot.hotspots */
	int64_t samples;         /* time-base samples over all Loci */
	double time_value;       /* Σ time base (ns for clocks) */
	struct derived share, dram_intensity, achieved, attainable, envelope_fraction,
		imbalance;
	const char *classification;   /* imbalance, latency-bound, memory-bound,
					 compute-bound, or NULL */
	char *classification_reason;  /* owned; set when classification is NULL */
	double relative_error;        /* 1/sqrt(samples) */
};

struct analysis {
	const char *time_base;   /* counter name (borrowed from the pivot), or NULL */
	const char *time_unit;
	int floor_samples;
	int64_t samples;         /* Σ time-base samples over all Hotspots */
	double time_value;       /* Σ time base over all Hotspots */
	double seconds;          /* time_value / 1e9 for clocks in ns, else NaN */
	size_t nr_loci;          /* application Loci with at least one sample */
	size_t nr_helper_loci;   /* MPI runtime helper threads, sampled or not (analysis/threads.h),
				    counted apart, never as Loci */
	double helper_share;     /* their share of the time base; NaN without time */
	int separate_worlds;     /* the ranks' own MPI world size when they ran as
				    separate worlds (analysis/imbalance.h
				    imbalance_own_world), else 0: no imbalance
				    across their Loci */
	struct diagnostic *diags; /* above the floor, by decreasing share */
	size_t nr_diags;
	size_t others_count;     /* Hotspots with samples below the floor */
	double others_share;
	double unresolved_share; /* share of time in unresolved Hotspots */
	size_t nr_unresolved;
	bool have_ceilings;      /* both flops_dp and dram_bandwidth present */
	const struct ceiling *flops_ceiling; /* borrowed from the caller's array, or NULL */
	const struct ceiling *bw_ceiling;
	double dram_bytes_below; /* analysis_run_bounded's bound, else NaN */
};

/* Computes the analysis. ceilings may be NULL/0 (no Ceiling: placement is
 * unavailable with the reason). Returns 0 or -ENOMEM. Release with
 * analysis__release(). The analysis borrows strings from p and ceilings. */
int analysis_run(const struct pivot *p, const struct ceiling *ceilings, size_t nr_ceilings,
		 int floor_samples, struct analysis *out);

/* analysis_run, knowing that a pass sampled the DRAM fills and recorded none
 * (manifest multi_pass.dram_bound): the DRAM bytes of the Run are below
 * dram_bytes_below, so each Hotspot's DRAM intensity is a value, a lower
 * bound (bound "lower", estimated): flops / dram_bytes_below. NaN or <= 0:
 * no bound, as analysis_run. */
int analysis_run_bounded(const struct pivot *p, const struct ceiling *ceilings,
			 size_t nr_ceilings, int floor_samples, double dram_bytes_below,
			 struct analysis *a);
void analysis__release(struct analysis *a);

/* What places a scope_profiler region on the roofline: its counted FLOP
 * and DRAM bytes (inclusive, summed over its Loci) and the longest of its
 * Loci's inclusive times (Loci run concurrently, as for a Hotspot's
 * achieved rate). */
struct region_counts {
	bool have_flop, have_bytes;
	double flop, dram_bytes;
	double max_locus_ns;
	enum quality quality; /* of the counts */
	const char *reason;   /* when not measured */
};

/* Places a region as a Hotspot is placed: DRAM intensity, achieved,
 * attainable, envelope fraction and classification against the same
 * Ceilings (share and imbalance are unavailable: a region is timed, not
 * sampled). Release g with diagnostic__release. */
void analysis_place_region(const struct analysis *a, const struct region_counts *rc,
			   struct diagnostic *g);
void diagnostic__release(struct diagnostic *g);

/* Joins and deduplicates reasons with "; " into a fresh string (NULL when
 * both are NULL). Exposed for tests. */
char *analysis_join_reasons(const char *a, const char *b);

#endif
