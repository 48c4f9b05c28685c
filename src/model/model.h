/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one model of measured data (the "pivot"): what a Run measured, never a
 * conclusion (invariant I1), never an aggregate across Loci (I2), never an
 * absolute address (I3: offsets are module-relative, as perf >= 6.4's dsoff).
 * Vocabulary from docs/REFERENCE.md: Hotspot = physical function, Locus =
 * node > rank > thread, Measurement = value for one (Hotspot, Locus) pair or,
 * with hotspot == PIVOT_NONE, a Locus-level aggregate.
 *
 * Ownership: the pivot owns every string it holds (copied in by the __add
 * functions); ids are indexes into the arrays, stable once assigned.
 */
#ifndef NUNATAK_MODEL_MODEL_H
#define NUNATAK_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIVOT_NONE (-1)

enum quality { QUALITY_MEASURED = 0, QUALITY_ESTIMATED = 1, QUALITY_UNAVAILABLE = 2 };
const char *quality__name(enum quality q);
int quality__parse(const char *s, enum quality *q);
static inline enum quality quality__worst(enum quality a, enum quality b)
{
	return a > b ? a : b;
}

enum resolution { RESOLUTION_LINE = 0, RESOLUTION_FUNCTION, RESOLUTION_SYMBOL,
		  RESOLUTION_UNRESOLVED };
const char *resolution__name(enum resolution r);
int resolution__parse(const char *s, enum resolution *r);

/* A named, announced capability loss: "degraded [name]: message - remedy". */
struct degradation {
	char *name;
	char *message;
	char *remedy;
};

typedef struct json_t json_t;

struct degradations {
	struct degradation *v;
	size_t n, cap;
};
/* Adds a copy unless (name, message) is already there. Returns 1 when added,
 * 0 when a duplicate, -ENOMEM. */
int degradations__add(struct degradations *d, const char *name, const char *message,
		      const char *remedy);
void degradations__release(struct degradations *d);
/* The JSON array [{name, message, remedy}] (an absent string is ""), the one
 * form every document uses. New reference, or NULL when out of memory. */
json_t *degradations__to_json(const struct degradations *d);

/* {value, unit, quality, reason}: the shape of every number with its Quality
 * in a JSON document. value is null, and quality unavailable, when v is not
 * finite or q is unavailable (never 0); reason is null only when measured.
 * The _clock form adds "clock": which clock a time comes from ("sampled CPU
 * time (task-clock)", "wall clock (CLOCK_MONOTONIC)"). New reference or NULL. */
#define CLOCK_WALL "wall clock"          /* region traces, MPI interposition */
#define CLOCK_SAMPLED "sampled CPU time" /* perf samples of the time base */
json_t *quality__json(double v, const char *unit, enum quality q, const char *reason);
json_t *quality__json_clock(double v, const char *unit, enum quality q, const char *reason,
			    const char *clock);

struct locus {
	char *node;      /* hostname */
	int rank;        /* MPI rank, or -1 outside MPI */
	int64_t thread;  /* OS thread id, or -1 for a whole process/rank */
	int64_t pid;     /* OS process id the thread belongs to, 0 when unknown
			    (not part of the identity: set once samples name it) */
	char *name;      /* the thread's name (comm) as the kernel last reported it
			    during the Run, valid UTF-8 (locus__set_name), NULL when
			    none was recorded (not part of the identity) */
};

struct hotspot {
	char *module;      /* path as the collector saw it ("/usr/bin/x", "[kernel.kallsyms]") */
	char *build_id;    /* hex, or NULL */
	char *name;        /* function name, or NULL while unresolved */
	char *source_file; /* physical function's file, or NULL */
	enum resolution level;
	uint64_t offset;   /* function start if named, sampled offset if unresolved */
	bool has_offset;   /* false for [unknown]/[vdso] modules */
};

struct measurement {
	int64_t hotspot;   /* PIVOT_NONE: Locus-level aggregate */
	int64_t locus;
	int pass_index;
	char *counter;     /* canonical: task-clock, cycles, instructions, flops, dram_bytes ... */
	double value;      /* in `unit`; meaningless when quality is unavailable */
	char *unit;        /* ns, flop, byte, or the counter's own name */
	enum quality quality;
	char *reason;      /* NULL when measured */
	int64_t sample_count; /* samples behind a sampled value, -1 for counted values */
	double coverage;   /* perf stat's multiplexing coverage 0..1, -1 when n/a */
};

/* Per-address detail, aggregated over Loci (for line and inline breakdowns). */
struct address {
	int64_t hotspot;
	uint64_t offset;
	int pass_index;
	char *counter;
	double value;
	int64_t sample_count;
};

/* One frame of an address's inline chain; depth 0 is innermost. */
struct frame {
	int64_t hotspot;
	uint64_t offset;
	int depth;
	char *function;
	char *file;             /* NULL when unknown */
	int line;               /* 0 when unknown */
	int declaration_line;   /* 0 when unknown */
};

struct extract {
	int64_t hotspot;
	char *file;             /* as recorded in the debug info */
	char *resolved_path;    /* where it was found, or NULL */
	int start_line, end_line;
	char *text;             /* NULL when withheld or not found (see reason) */
	bool truncated;
	char *reason;
};

/* A call stack sample aggregate; frames in pivot.stack_frames, depth 0 the hit. */
struct stack {
	int64_t locus;
	int pass_index;
	char *counter;
	double value;
	char *unit;
	int64_t sample_count;
};

struct stack_frame {
	int64_t stack;
	int depth;
	char *module;
	uint64_t offset;
	char *function; /* NULL until attributed */
};

/* A region call aggregate from scope_profiler traces, per Locus and call path. */
struct region_stat {
	int64_t locus;
	char *path;          /* call path joined with " > " */
	char *name;          /* innermost region name */
	int64_t calls;
	int64_t inclusive_ns;
	int64_t exclusive_ns;
	/* Counted by scope_profiler (SCOPE_PROFILER_EVENTS, kinds flop and
	 * bytes), inclusive: present only when the region ran on this one
	 * call path of its thread (counts are kept per region, not per path). */
	bool has_flop, has_dram_bytes;
	double flop, dram_bytes;
	/* Off the CPU while this path was the innermost open region of its
	 * thread (exclusive, ns), from the kernel's context switches on the
	 * traces' clock: exclusive_ns - offcpu_ns is its CPU time. Present
	 * only when the recording held the switches (issue 23 item 5). */
	bool has_offcpu;
	double offcpu_ns;
};

/* Samples that fell inside a region call (perf -k CLOCK_MONOTONIC and region
 * traces share one timeline): per innermost open region's call path, Locus
 * (thread), Hotspot and counter. region_path NULL: outside every region. */
struct region_sample {
	char *region_path;
	int64_t locus;
	int64_t hotspot;
	char *counter;
	double value;        /* in the counter's unit (as its Measurements) */
	int64_t sample_count;
};

/* One MPI function's totals on one Locus (rank), measured by interposition
 * (src/mpi/probe/nunatak_mpi.c): calls, time inside the call, payload bytes. */
struct mpi_call {
	int64_t locus;
	char *name;          /* "MPI_Barrier" */
	int64_t calls;
	int64_t time_ns;
	int64_t bytes;
};

/* The same per call site: the caller's module and ELF virtual address of the
 * call instruction (module-relative, never absolute), named by attribution. */
struct mpi_site {
	int64_t locus;
	char *name;          /* MPI function */
	char *module;
	uint64_t address;    /* ELF virtual address in module */
	char *function;      /* the calling function, NULL until attributed */
	char *file;          /* NULL when unknown */
	int line;            /* 0 when unknown */
	int64_t calls;
	int64_t time_ns;
	int64_t bytes;
};

/* A rank's point-to-point totals with one partner, measured by interposition
 * (the probe's `peer` records): the send calls naming it (direction "send",
 * bytes sent) or the receives from it ("recv"; bytes received, or posted for
 * MPI_Irecv). peer: the partner's rank in MPI_COMM_WORLD, -1 for the calls
 * whose partner could not be placed (see src/mpi/probe/nunatak_mpi.c). */
struct mpi_peer {
	int64_t locus;
	int peer;
	char *direction;
	int64_t calls;
	int64_t time_ns;
	int64_t bytes;
};

/* A rank's totals of one collective on one communicator with one root,
 * measured by interposition (the probe's `coll` records): members, the
 * communicator's ranks in MPI_COMM_WORLD in its own order as a rank list
 * ("0-3", "2,0", "0-6:2": model/rank_list.h), NULL when the communicator
 * could not be placed (then size 0); root: the root's rank in
 * MPI_COMM_WORLD, -1 for collectives without one (or not placed). bytes:
 * this rank's bytes as the probe counts them (src/mpi/probe/nunatak_mpi.c). */
struct mpi_collective {
	int64_t locus;
	char *name;          /* "MPI_Bcast" */
	char *members;
	int size;
	int root;
	int64_t calls;
	int64_t time_ns;
	int64_t bytes;
};

/* One OpenMP parallel region on one thread, measured by nunatak's OMPT tool
 * (lib/ompt/nunatak_ompt.c) in LLVM's libomp: the region is the call site
 * of its fork (module and ELF virtual address of the call, named by
 * attribution); task_ns is the time in the region's implicit task, wait_ns
 * the part of it waiting in barriers, taskwaits and taskgroups. */
struct omp_site {
	int64_t locus;       /* the thread */
	char *module;
	uint64_t address;    /* ELF virtual address in module */
	char *function;      /* the forking function, NULL until attributed */
	char *file;          /* NULL when unknown */
	int line;            /* 0 when unknown */
	int thread_num;      /* OpenMP thread number in the region's team, -1 unknown */
	int64_t calls;       /* region instances the thread took part in */
	int64_t task_ns;
	int64_t wait_ns;
};

/* A timestamped fact with a duration (REFERENCE.md §2 `events`): an MPI call
 * (kind "mpi"), start on CLOCK_MONOTONIC. attributes: a JSON object text
 * ({"bytes": n, "peer": r}), or NULL. */
struct event {
	int64_t locus;
	int pass_index;
	char *kind;
	char *name;
	int64_t start_ns;
	int64_t duration_ns;
	char *attributes;
};

#define PIVOT_ARRAY(type, field) \
	struct type *field;      \
	size_t nr_##field, cap_##field

struct pivot {
	PIVOT_ARRAY(hotspot, hotspots);
	PIVOT_ARRAY(locus, loci);
	PIVOT_ARRAY(measurement, measurements);
	PIVOT_ARRAY(address, addresses);
	PIVOT_ARRAY(frame, frames);
	PIVOT_ARRAY(extract, extracts);
	PIVOT_ARRAY(stack, stacks);
	PIVOT_ARRAY(stack_frame, stack_frames);
	PIVOT_ARRAY(region_stat, region_stats);
	PIVOT_ARRAY(region_sample, region_samples);
	PIVOT_ARRAY(mpi_call, mpi_calls);
	PIVOT_ARRAY(mpi_site, mpi_sites);
	PIVOT_ARRAY(event, events);
	PIVOT_ARRAY(mpi_peer, mpi_peers);
	PIVOT_ARRAY(omp_site, omp_sites);
	PIVOT_ARRAY(mpi_collective, mpi_collectives);
};

void pivot__init(struct pivot *p);
/* The Run's time base: the first of task-clock, cpu-clock, cycles measured
 * on a Hotspot (a static string), or NULL. */
const char *pivot__time_base(const struct pivot *p);
void pivot__release(struct pivot *p);

/* Each __add copies the strings of *src and returns the new id (>= 0) or -ENOMEM. */
int64_t pivot__add_locus(struct pivot *p, const struct locus *src);
/* Returns the id of an equal Locus (node, rank, thread), adding it if absent. */
int64_t pivot__intern_locus(struct pivot *p, const char *node, int rank, int64_t thread);
/* Sets a thread Locus's name from a comm as the kernel reports it (at most
 * 15 bytes, any bytes but NUL): bytes that are not UTF-8 and controls are
 * written as "\xNN" (text_escape_controls), so the name is text every
 * output can carry. Replaces a name already set. 0 or -ENOMEM. */
int locus__set_name(struct locus *l, const char *comm, size_t len);
int64_t pivot__add_hotspot(struct pivot *p, const struct hotspot *src);
int64_t pivot__add_measurement(struct pivot *p, const struct measurement *src);
int64_t pivot__add_address(struct pivot *p, const struct address *src);
int64_t pivot__add_frame(struct pivot *p, const struct frame *src);
int64_t pivot__add_extract(struct pivot *p, const struct extract *src);
int64_t pivot__add_stack(struct pivot *p, const struct stack *src);
int64_t pivot__add_stack_frame(struct pivot *p, const struct stack_frame *src);
int64_t pivot__add_region_stat(struct pivot *p, const struct region_stat *src);
int64_t pivot__add_region_sample(struct pivot *p, const struct region_sample *src);
int64_t pivot__add_mpi_call(struct pivot *p, const struct mpi_call *src);
int64_t pivot__add_mpi_site(struct pivot *p, const struct mpi_site *src);
int64_t pivot__add_event(struct pivot *p, const struct event *src);
int64_t pivot__add_mpi_peer(struct pivot *p, const struct mpi_peer *src);
int64_t pivot__add_omp_site(struct pivot *p, const struct omp_site *src);
int64_t pivot__add_mpi_collective(struct pivot *p, const struct mpi_collective *src);

/* Display name of a Hotspot: its name, or "module-basename+0x<offset>". Caller frees. */
char *hotspot__display_name(const struct hotspot *h);

#endif
