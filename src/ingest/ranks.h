/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ingestion of the rank layer: <collect>/rank-<N>/ written by the rank shim
 * on each rank's own node (collect/rank_shim.h) into the pivot.
 *
 *  - rank.json names the Locus: node (the rank's own hostname: nothing
 *    assumes one node), rank; its degradations[] are carried over;
 *  - perf-stat.csv (counting ranks) becomes Locus-level Measurements, one
 *    per (node, rank) and counter, hotspot = PIVOT_NONE: the counting layer
 *    has nothing to attribute and covers every rank at constant cost;
 *  - perf-script.txt + perf-buildid-list.txt (sampling ranks) become
 *    Hotspot-level Measurements per (node, rank, thread); samples of several
 *    ranks fuse onto one Hotspot per module offset, per-Locus values kept.
 *
 * Ranks that ran uncounted and ranks the world size announces but that left
 * no rank.json are each declared ONCE, with their numbers (degradations
 * `ranks-uncounted`, `ranks-missing`): silence about a rank would read as
 * "nothing ran there". Per-rank degradations of the same name are merged
 * into one with the list of ranks. A Run without rank directories is not
 * an MPI Run and yields nothing (not a degradation).
 */
#ifndef NUNATAK_INGEST_RANKS_H
#define NUNATAK_INGEST_RANKS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct err;

struct ranks_summary {
	int world_size;     /* announced (argument or rank.json), -1 unknown */
	int nr_ranks;       /* rank directories with a readable rank.json */
	int nr_sampled;     /* ranks whose samples were ingested */
	int nr_counted;     /* ranks whose counts were ingested */
	int nr_missing;     /* announced ranks without a rank.json */
	int nr_uncounted;   /* ranks present but neither sampled nor counted */
	int64_t nr_samples; /* samples ingested over all ranks */
	int64_t nr_switches; /* context switches out of the ranks' threads that
				perf recorded (ingest_stats.nr_switch_outs, summed) */
	/* The ranks' span from their rank.json "clock" (the shim's start, the
	 * application's end under perf), on this node's CLOCK_MONOTONIC
	 * (common/host_clock.h); 0 when no rank has one (an older Run). */
	int nr_clocked;         /* ranks whose rank.json has a clock */
	bool clock_by_wall;     /* some rank ran under another kernel: wall clocks */
	double first_started, last_ended; /* seconds */
};

/*
 * Reads every rank directory under collect_dir into p and adds the
 * degradations to d. world_size (-1 unknown) is what the launch announced.
 * Returns 0 (also when there are no rank directories), or a negative errno
 * with e filled on out-of-memory or an unreadable collect_dir.
 */
int ingest_ranks(const char *collect_dir, int world_size, struct pivot *p,
		 struct degradations *d, struct ranks_summary *out, struct err *e);

/* The same, the ranks' recordings read ahead (ingest/ranks_read.h): those
 * pf read while the launch ran (pf may be NULL; it is stopped here), the
 * rest on `threads` threads (0: one per online CPU, at most 4; 1: this
 * one). The pivot is the same whatever pf read and however many threads. */
struct ranks_prefetch;
int ingest_ranks_ahead(const char *collect_dir, int world_size, struct ranks_prefetch *pf,
		       int threads, struct pivot *p, struct degradations *d,
		       struct ranks_summary *out, struct err *e);

/* The same from reads made already (ingest/ranks_read.h: a ranks_prefetch's
 * complete-world callback); the rest are read here. rr stays the caller's. */
struct rank_reads;
int ingest_ranks_reads(const char *collect_dir, int world_size, struct rank_reads *rr,
		       int threads, struct pivot *p, struct degradations *d,
		       struct ranks_summary *out, struct err *e);

/* "0-3, 7, 9-10" for a sorted list of ranks into buf (truncated with "...").
 * Exposed for tests. */
const char *ranks_format_list(const int *ranks, int n, char *buf, size_t cap);

#endif
