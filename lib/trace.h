/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-memory image of one rank's output, assembled at finalize from the
 * threads' call buffers, the sampler's chunks and the loaded modules, in
 * the order the writers emit it. Everything here is owned by the trace.
 */
#ifndef SP_TRACE_H
#define SP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler.h"
#include "sp_format.h"

struct sp_clock_map;
struct sp_ctr_event;
struct sp_thread;
struct sp_trace_src;

/* The HDF5 plugin reads struct sp_trace directly: bump on any layout
 * change; the loader refuses a plugin built with another value. */
#define SP_TRACE_ABI 4
#define SP_TRACE_ABI_KEY ((long)SP_TRACE_ABI * 1000000L + (long)sizeof(struct sp_trace))

struct sp_call_out {
	int64_t start_ns; /* CLOCK_MONOTONIC */
	int64_t end_ns;
	int32_t lane;
};

struct sp_region_out {
	char *name;
	char *file;  /* NULL if unknown */
	int32_t line; /* -1 if unknown */
	size_t nr_calls;
	struct sp_call_out *calls; /* sorted (sp_trace__sort_calls); into sp_trace::calls;
				    * NULL when the trace is streamed */
	uint64_t spt_off; /* streamed: byte offset of its starts in the written .spt */
};

struct sp_lane_out {
	int64_t tid;
	char name[16];
	int64_t first_ns, last_ns; /* earliest start, latest end of its calls */
	int64_t cpu_ns;            /* thread CPU time at exit or finalize, -1 unknown */
};

/* One kind of misuse, as reported and written to the trace's extension. */
struct sp_misuse_out {
	uint64_t count;
	size_t nr_names;
	char *names[32];     /* regions concerned (SP_MISUSE_SITES) */
	uint64_t counts[32];
	uint64_t others;     /* counted beyond the named regions */
};

/* Counts of one region on one lane (counters.h), per counted event. */
struct sp_ctr_row_out {
	int32_t region, lane;
	uint64_t calls;
	uint64_t incl[8], excl[8]; /* SP_CTR_MAX */
};

struct sp_module_out {
	char *path;
	uint64_t base; /* load bias (dl_iterate_phdr dlpi_addr) */
};

struct sp_trace {
	int rank;
	size_t nr_regions;
	struct sp_region_out *regions;
	size_t nr_calls;
	struct sp_call_out *calls; /* NULL when streamed */
	/* Streamed (more calls than one chunk, spill.h): the .spt writer reads
	 * the calls back from the unfinished trace (sp_trace__each_call) and
	 * writes them in place, sorting on disk only the regions whose calls
	 * are not in order; the HDF5 writer then reads that file back
	 * (spt_path, regions[].spt_off) in slices. */
	struct sp_trace_src *src;
	const char *spt_path; /* the written .spt, NULL if none */
	size_t nr_lanes;
	struct sp_lane_out *lanes;
	/* sampling (has_samples: sampling ran in this process) */
	bool has_samples;
	struct sp_sampler_stats stats;
	size_t nr_modules;
	struct sp_module_out *modules;
	size_t nr_samples;
	int32_t *sample_region; /* -1: no open region */
	int32_t *sample_module; /* -1: address in no known module */
	uint64_t *sample_addr;
	int32_t *sample_weight; /* >= 1: timer expirations the sample stands for */
	uint64_t bad_sites; /* handles that were not readable sp_site descriptors */
	/* timing context (CLOCK_MONOTONIC ns; start_ns -1 if unknown) */
	int64_t init_ns, finalize_ns, init_real_ns, start_ns;
	bool extension; /* write the .spt extension block (timing, misuse) */
	int32_t mpi_size;    /* ranks of the job, -1 unknown */
	int32_t omp_threads; /* OpenMP threads a parallel region would use */
	/* counters per region (counters.h); nr_ctr_events 0: none asked */
	const char *ctr_backend;
	int nr_ctr_events, nr_ctr_counted;
	const struct sp_ctr_event *ctr_events; /* borrowed from the configuration */
	size_t nr_ctr_rows;
	struct sp_ctr_row_out *ctr_rows;
	uint64_t ctr_threads_without, ctr_dropped;
	/* what sp_trace__each_call_counts reads the calls' counts with (the
	 * same as src when streamed); NULL when no event was counted */
	struct sp_trace_src *ctr_src;
	/* misuse, indexed by enum sp_misuse_kind (sp_format.h) */
	struct sp_misuse_out misuse[SP_MISUSE_KIND_NR];
};

/* Input of sp_trace__build: what the registry and sampler hold. */
struct sp_trace_input {
	int rank;
	struct sp_thread **threads;
	size_t nr_threads;
	const struct sp_site *const *interned; /* regions declared by sp_region() */
	size_t nr_interned;
	struct sp_sample_chunk *samples; /* NULL if sampling never ran */
	bool with_modules;
	const char *scratch_near; /* where a spill's scratch file may go; NULL: in memory */
};

/* A streamed trace's calls, in file order (each region's count as in
 * tr->regions): @p fn(ctx, region, call). 0, -errno, -EIO if the file no
 * longer holds the counted calls, or fn's non-zero return. */
int sp_trace__each_call(const struct sp_trace *tr,
			int (*fn)(void *ctx, uint32_t region, const struct sp_call_out *c),
			void *ctx);

/* Each call of the trace with its counts (events counted only), in the
 * order recorded: @p fn(ctx, region, lane, start ns, vals), vals holding
 * nr_ctr_counted inclusive counts (SP_CTR_NONE: not kept), NULL when the
 * call has none. *seen: calls passed. 0, -errno or fn's non-zero return. */
int sp_trace__each_call_counts(const struct sp_trace *tr,
			       int (*fn)(void *ctx, int32_t region, int32_t lane,
					 int64_t start_ns, const int64_t *vals),
			       void *ctx, uint64_t *seen);

/* Builds @p tr (zeroed first). 0 or -ENOMEM; on failure tr is freed. */
int sp_trace__build(struct sp_trace *tr, const struct sp_trace_input *in,
		    struct sp_clock_map *map);
void sp_trace__free(struct sp_trace *tr);

/* Sorts @p n calls by start, equal starts longest first, otherwise stable
 * (natural merge sort: per-lane runs are already sorted, so k lanes cost
 * log2(k) passes). 0 or -ENOMEM. */
int sp_trace__sort_calls(struct sp_call_out *calls, size_t n);
/* The same with the caller's buffers: @p tmp holds n calls, @p bounds n + 2. */
void sp_trace__sort_calls_in(struct sp_call_out *calls, size_t n, struct sp_call_out *tmp,
			     size_t *bounds);


#endif
