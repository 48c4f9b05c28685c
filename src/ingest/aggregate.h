/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-pass aggregation of perf samples into the pivot (REFERENCE.md §4).
 *
 * Every sample source (the `perf script` text parser, the perf.data reader)
 * hands samples to an `ingest_agg`; nothing is stored per sample. The key is
 * (module, module-relative offset, tid, canonical counter): value =
 * Σperiod × scale, sample_count = n. Call stacks, when present, are
 * aggregated per (frame sequence, tid, canonical counter). Both tables are
 * open-addressing hash tables, so ingestion is linear in samples.
 *
 * ingest_agg__emit() then writes, in a deterministic (sorted) order:
 *   - hotspots: one unresolved Hotspot per distinct (module, build-id,
 *     offset), reusing an equal unresolved Hotspot already in the pivot
 *     (another pass, another rank);
 *   - loci: (opts->node, opts->rank, tid), interned;
 *   - measurements: per (hotspot, locus, counter);
 *   - addresses: per (hotspot, offset, counter), summed over Loci;
 *   - stacks and stack_frames: per (locus, counter, frame sequence).
 *
 * Offsets are module-relative as perf >= 6.4 prints `dsoff` (docs/ingest.md):
 * file offset = ip - map.start + map.pgoff; the core kernel's is ip - `_text`.
 * Modules without an offset ([unknown], [vdso], kernel modules) aggregate per
 * module with has_offset=false.
 */
#ifndef NUNATAK_INGEST_AGGREGATE_H
#define NUNATAK_INGEST_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct err;
struct buildid_list;

/* A code location as a sample source resolved it. `module` is borrowed for the
 * duration of ingest_agg__add() only (not NUL-terminated; module_len bytes). */
struct ingest_frame {
	const char *module;
	size_t module_len;
	uint64_t offset;
	bool has_offset;
};

/* One sample; every pointer is borrowed for the duration of the call. */
struct ingest_sample {
	const char *comm;       /* may be NULL */
	size_t comm_len;
	int64_t pid, tid;
	uint64_t time_ns;
	uint64_t period;
	const char *event;      /* as perf names it, modifiers included ("cycles:Pu") */
	size_t event_len;
	struct ingest_frame hit;
	/* Call chain innermost first (frame 0 is the hit), or NULL/0 without one. */
	const struct ingest_frame *callchain;
	size_t nr_callchain;
};

/* What the caller knows about where the samples come from. */
struct ingest_opts {
	size_t sz;                          /* sizeof(struct ingest_opts) */
	const char *node;                   /* hostname of the Locus */
	int rank;                           /* MPI rank, -1 outside MPI */
	int pass_index;
	const struct buildid_list *build_ids; /* may be NULL: no build-ids known */
};

/* Counters of what a parser saw; filled by the parsers, read by the caller.
 * Zero-initialise before the first call; counts accumulate when the same
 * stats are passed to several calls (degradations are deduplicated). */
struct ingest_stats {
	uint64_t nr_samples;      /* samples aggregated */
	uint64_t nr_sample_lines; /* perf script: header lines that looked like samples, plus unparsed */
	uint64_t nr_unparsed;     /* perf script / perf stat lines not recognised */
	char first_unparsed[160]; /* the first of them, truncated */
	uint64_t nr_no_offset;    /* file-backed samples whose offset could not be computed */
	uint64_t nr_records;      /* perf.data records walked */
	uint64_t nr_skipped_records; /* perf.data records of types we do not need */
	/* perf.data: context switches out of the recorded threads (SWITCH
	 * records, out; 0 without --switch-events, and from perf script text,
	 * which has none) */
	uint64_t nr_switch_outs;
	int64_t first_unparsed_line; /* 1-based line of first_unparsed, 0 when none */
	struct degradations degradations; /* owned; release with ingest_stats__release() */
};

void ingest_stats__release(struct ingest_stats *st);
/* Records an unparsed line (keeps the first). */
void ingest_stats__unparsed(struct ingest_stats *st, const char *line, size_t len,
			    int64_t lineno);

/*
 * The canonical counter of a perf event name (REFERENCE.md §3): modifiers
 * (from the first ':') and then everything from the first '/' are stripped;
 * the Zen counter-group events map to `flops` (flop, x1, measured) and
 * `dram_bytes` (byte, x64, estimated with its reason); task-clock and cpu-clock
 * are in ns; any other counter is its own unit.
 */
struct counter_info {
	const char *unit;    /* static string, or NULL: the canonical name itself */
	double scale;
	enum quality quality;
	const char *reason;  /* static string, NULL when measured */
};
/* Writes the canonical name into out (NUL-terminated, truncated to cap) and
 * fills *ci. Returns the canonical length. */
size_t ingest_counter_canon(const char *event, size_t len, char *out, size_t cap,
			    struct counter_info *ci);

struct ingest_agg;

/* Returns a new empty aggregator, or NULL when out of memory. Caller frees
 * with ingest_agg__free(). Not thread-safe; one per ingestion. */
struct ingest_agg *ingest_agg__new(void);
void ingest_agg__free(struct ingest_agg *a);
/* Adds one sample. Returns 0 or -ENOMEM. */
int ingest_agg__add(struct ingest_agg *a, const struct ingest_sample *s);
/* Number of samples added so far. */
uint64_t ingest_agg__nr_samples(const struct ingest_agg *a);
/*
 * Writes the aggregate into p (see the top of this file). May be called once.
 * Returns 0, or -ENOMEM with e filled (p then holds a partial aggregate the
 * caller should discard).
 */
int ingest_agg__emit(struct ingest_agg *a, const struct ingest_opts *o, struct pivot *p,
		     struct err *e);

#endif
