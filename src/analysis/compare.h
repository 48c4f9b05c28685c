/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nunatak compare`'s statistics, pure numbers (no text): two sides of Runs,
 * A (before) and B (after), one Run or several per side. Items are matched
 * by logical identity, stable across recompilation:
 *   - Hotspots by (module basename, function name); a module present on one
 *     side only (a renamed or copied binary) is paired with the module of
 *     the other side that shares the most of its functions, a function
 *     matching by name and, when both know it, source file basename (a
 *     COMPARE_NOTE_RENAMED says so and counts what could not match); an
 *     unresolved address by
 *     (module basename, offset, build-id), so it matches only the same build;
 *   - regions by call path (region_stats, inclusive time summed over Loci);
 *   - ranks by number (counted task-clock, else the rank's samples);
 *   - source lines (function + file basename + line of the innermost inline
 *     frame of each sampled address), only for modules whose build-id is
 *     the same in every Run: a rebuilt binary's lines are other code;
 *   - the total of every sampled Hotspot; Hotspots below the statistical
 *     floor on both sides pooled as "others".
 * Per item: the mean time per Run on each side (samples x period: the time
 * base's value), the ratio B/A and a confidence interval:
 *   - one Run per side, sampled: the exact conditional interval of the
 *     ratio of two Poisson rates (stats_poisson_ratio) on the sample counts,
 *     scaled by the ratio of the mean periods, so Runs sampled at different
 *     rates compare in seconds. It covers sampling error only: QUALITY_ESTIMATED;
 *   - several Runs on a side: a t interval on the log times (Welch, or pooled
 *     when one side has one Run), widened to the Poisson interval of the
 *     summed counts when that is wider (two or three Runs can agree by
 *     chance): QUALITY_MEASURED;
 *   - counted or traced times of single Runs: no interval (unavailable).
 * significant: the interval lies entirely above 1 + threshold or entirely
 * below 1 / (1 + threshold).
 * Comparability: a different Machine identity or rank count is a refusal
 * (unless forced, then a flag); a different time base is always a refusal;
 * different sampling rates, counter sets and build-ids are flags.
 */
#ifndef NUNATAK_ANALYSIS_COMPARE_H
#define NUNATAK_ANALYSIS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define COMPARE_CONFIDENCE 0.95
#define COMPARE_THRESHOLD 0.05 /* practical threshold: 5 % either way */

/* One Run as the caller read it (manifest + pivot); everything borrowed. */
struct compare_run {
	const char *machine_identity; /* NULL when the manifest has none */
	int world_size;               /* manifest run.world_size, -1 when absent */
	double frequency_hz;          /* sampling.frequency, NaN when not recorded */
	const struct pivot *pivot;
};

enum compare_kind { COMPARE_TOTAL, COMPARE_HOTSPOT, COMPARE_OTHERS, COMPARE_REGION,
		    COMPARE_RANK, COMPARE_LINE };
enum compare_status { COMPARE_MATCHED, COMPARE_NEW, COMPARE_VANISHED };
enum compare_basis {
	COMPARE_BASIS_NONE,      /* no interval: single counted/traced values */
	COMPARE_BASIS_POISSON,   /* sample counts of one Run per side */
	COMPARE_BASIS_SPREAD,    /* run-to-run spread (t on log times) */
	COMPARE_BASIS_SPREAD_POISSON, /* spread, widened to the pooled Poisson interval */
	COMPARE_BASIS_POOLED_POISSON, /* repeated Runs, but absent from some: counts summed */
};

struct compare_item {
	enum compare_kind kind;
	char *name;          /* function, "module+0x1f0", region path, "function at file:line",
				or NULL (total, others) */
	char *module;        /* module basename (Hotspots), else NULL */
	int rank;            /* COMPARE_RANK: the rank, else -1 */
	enum compare_status status;
	double a, b;         /* mean value per Run on each side (unit: compare_result.unit) */
	const char *unit;    /* "s", or the time base's own unit (cycles) */
	int64_t a_samples, b_samples; /* Σ over each side's Runs, -1 when not sampled */
	double ratio;        /* b / a; NaN when a == 0 */
	double low, high;    /* interval of the ratio; NaN unavailable, high INFINITY when new */
	double df;           /* t interval's degrees of freedom, NaN otherwise */
	enum compare_basis basis;
	enum quality ratio_quality;    /* worst Quality of the Measurements behind a and b */
	enum quality interval_quality; /* estimated (Poisson), measured (spread), unavailable */
	bool significant;
	int direction;       /* +1 slower (B/A > 1), -1 faster, 0 neither/unknown */
	bool build_id_same;  /* Hotspots: every Run had the same non-null build-id */
	double score;        /* |log ratio| / half log-width: the sort key; 0 unknown */
	size_t nr_members;   /* COMPARE_OTHERS: Hotspots pooled; else 1 */
};

enum compare_note_kind {
	COMPARE_NOTE_MACHINE,    /* refusal: Machine identities differ */
	COMPARE_NOTE_RANKS,      /* refusal: rank counts differ */
	COMPARE_NOTE_TIME_BASE,  /* refusal, never forced: different time-base counters */
	COMPARE_NOTE_NO_SAMPLES, /* refusal: a Run has no time-base sample */
	COMPARE_NOTE_RATE,       /* flag: sampling rates differ, normalised by the period */
	COMPARE_NOTE_COUNTERS,   /* flag: counter sets differ, only the time base compared */
	COMPARE_NOTE_BUILD_ID,   /* flag: a module's build-id differs, lines not compared
				    (a_value: the module basename; b_value: both build-ids,
				    12 digits each) */
	COMPARE_NOTE_RENAMED,    /* flag: a module of B matched to another-named module
				    of A by its functions (a_value: "A's -> B's";
				    b_value: how many functions matched and not) */
};

/* A comparability finding; the two values are what differs (borrowed from
 * the inputs or owned strings, see `owned`), e.g. two identities. */
struct compare_note {
	enum compare_note_kind kind;
	bool refusal;        /* blocks the comparison (unless forced, for some) */
	bool forced;         /* a refusal turned into a flag by force */
	size_t run_a, run_b; /* indexes (0-based over A then B) of two Runs that differ */
	char *a_value, *b_value; /* owned; what differs (identity, count, Hz, counters, module) */
};

struct compare_result {
	const char *time_base;  /* borrowed from the first Run's pivot, or NULL */
	const char *unit;       /* "s" for clock time bases, else the counter's unit */
	double confidence, threshold;
	int floor_samples;
	size_t nr_a, nr_b;
	bool refused;           /* a refusal not forced: nothing else is filled */
	struct compare_note *notes;
	size_t nr_notes, cap_notes;
	struct compare_item *items; /* by kind (total, hotspots, others, regions, ranks,
				       lines), then significant first, then by score;
				       lines and Hotspots under the floor on both sides
				       are not items (Hotspots are pooled as others) */
	size_t nr_items, cap_items;
};

/*
 * Compares a[0..na) with b[0..nb). force turns the refusals that can be
 * forced (Machine, ranks) into flags. Returns 0 (out->refused tells whether
 * items were computed) or -ENOMEM / -EINVAL (na or nb == 0). Release with
 * compare_result__release().
 */
int compare_runs(const struct compare_run *a, size_t na, const struct compare_run *b,
		 size_t nb, bool force, struct compare_result *out);
void compare_result__release(struct compare_result *r);

/* The items that fail `--fail-on-regression PCT`: the total and matched
 * Hotspots that are significant with ratio > 1 + pct / 100. New Hotspots do
 * not count (a renamed function would fail CI; the total carries its cost). */
size_t compare_regressions(const struct compare_result *r, double pct);
bool compare_item__regression(const struct compare_item *it, double pct);

/* Fills an item's a, b, status, ratio, interval and verdict from its values
 * per Run (xa[na], xb[nb]) and it->a_samples / it->b_samples (Σ per side,
 * -1 when not sampled). period_a / period_b: each side's mean sampling
 * period (value per sample), used when the item has no sample on a side.
 * Exposed for tests. */
void compare_item__judge(struct compare_item *it, const double *xa, size_t na,
			 const double *xb, size_t nb, double period_a, double period_b,
			 double confidence, double threshold);

#endif
