/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Views of the region layer for the summary and the payload, pure functions
 * of the pivot (region_stats, region_samples):
 *  - the regions of the Run: per call path, summed over Loci (threads,
 *    ranks): calls, inclusive and exclusive ns, and with several ranks the
 *    busiest rank's inclusive time against the mean of the ranks;
 *  - the regions of a Hotspot: its samples per innermost region path, as a
 *    share of its samples that met a region trace (path NULL: outside every
 *    region).
 * Strings are borrowed from the pivot; arrays freed with xfree().
 */
#ifndef NUNATAK_REPORT_REGIONS_VIEW_H
#define NUNATAK_REPORT_REGIONS_VIEW_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct pivot;
struct text_lines;
typedef struct json_t json_t;

#define REGIONS_SHOWN 5          /* rows of the summary's regions block */
#define REGIONS_PER_FINDING 3    /* regions named under a finding */

struct region_row {
	const char *path, *name;
	int64_t calls;
	double inclusive_ns, exclusive_ns;
	int nr_ranks;            /* distinct ranks holding the path */
	double max_rank_ns;      /* inclusive ns of the busiest rank */
	double mean_rank_ns;     /* mean over those ranks */
	/* scope_profiler counters (region_stat.flop, .dram_bytes): how many of
	 * the path's stats carry each, their sums, and the longest Locus */
	int nr_stats, nr_flop, nr_bytes;
	double flop, dram_bytes, max_locus_ns;
	/* off the CPU inside the path's exclusive time (region_stat.offcpu_ns):
	 * how many stats carry it, their sum */
	int nr_offcpu;
	double offcpu_ns;
};

struct region_share {
	const char *path; /* NULL: outside every region */
	double value, share;
	int64_t samples;
};

/* Rows sorted by decreasing inclusive time. Returns 0 or -ENOMEM. */
int region_rows(const struct pivot *p, struct region_row **out, size_t *n);
/* counter NULL: the time base. Sorted by decreasing share. 0 or -ENOMEM. */
int region_shares(const struct pivot *p, int64_t hotspot, const char *counter,
		  struct region_share **out, size_t *n);

/* "regions:" block of the summary (nothing without region_stats); a region
 * with FLOP and byte counts gets its place on the roofline against a's
 * Ceilings (analysis_place_region). */
int regions_render(const struct pivot *p, const struct analysis *a, struct text_lines *out);
/* "    in solve > sweep 95%, ..." under a finding (nothing without samples). */
int regions_render_finding(const struct pivot *p, int64_t hotspot, const char *counter,
			   struct text_lines *out);

/* Payload fragments: regions[] and a Hotspot's regions[] (new references).
 * A region with counts carries the Hotspot's roofline fields
 * (dram_intensity, achieved, attainable, envelope_fraction, share,
 * classification), which the page's roofline draws as diamonds. */
json_t *regions_json(const struct pivot *p, const struct analysis *a);
json_t *regions_hotspot_json(const struct pivot *p, int64_t hotspot, const char *counter);

#endif
