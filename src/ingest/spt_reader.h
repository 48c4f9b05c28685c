/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser of scope_profiler region traces (.spt), a pure function from bytes to
 * views into those bytes: nothing is copied per event, so a trace mapped with
 * mmap is read in place. Layout (every integer in the writer's byte order,
 * which the reader detects from the version field; magic is bytes):
 *
 *   char[8]   "SCOPEPRF"
 *   int32     version: 1, 2 or 3
 *   int32     rank
 *   int64     number of regions
 *   per region:
 *     int32   name length in bytes, char[] name (not NUL-terminated)
 *     v2, v3: int32 source file length (0 if unknown), char[] file,
 *             int32 source line (-1 if unknown)
 *     int64   number of calls (n)
 *     int64[n] start timestamps, CLOCK_MONOTONIC nanoseconds
 *     int64[n] end timestamps, nanoseconds
 *     v3:     int32[n] lane of each call (index into the thread table)
 *   v3 only, after all regions:
 *     int32   number of threads; per thread (lane = position):
 *             int64 tid, int32 name length, char[] name
 *
 * Calls of a region are sorted by start as the library writes them; the
 * reconstruction checks rather than trusts that.
 *
 * After those fields a finished trace may carry the extension block
 * (timing context, misuse; lib/sp_format.h), parsed into `ext`. A trace
 * whose version is SP_SPT_VERSION_STREAM is unfinished (the process ended
 * before sp_finalize): every complete frame is recovered into an owned
 * image in the v2/v3 layout, and `cut` says how much and where it ended.
 */
#ifndef NUNATAK_INGEST_SPT_READER_H
#define NUNATAK_INGEST_SPT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct err;

#include "ingest/trace_cursor.h" /* spt_load_i32/i64 */
#include "sp_format.h"

#define SPT_MAGIC SP_SPT_MAGIC
#define SPT_MAX_VERSION SP_SPT_VERSION_MAX

struct spt_region {
	const char *name; /* borrowed from the bytes, not NUL-terminated */
	uint32_t name_len;
	const char *file; /* NULL when unknown (v1, or length 0) */
	uint32_t file_len;
	int32_t line;      /* -1 when unknown */
	int64_t nr_calls;
	const unsigned char *starts; /* nr_calls int64, possibly unaligned */
	const unsigned char *ends;
	const unsigned char *lanes; /* v3: nr_calls int32; else NULL */
	size_t starts_offset;       /* byte offset in the file, for messages */
	size_t lanes_offset;
};

struct spt_thread {
	int64_t tid;
	const char *name;
	uint32_t name_len;
};

struct spt_misuse_name {
	const char *name; /* borrowed */
	uint32_t name_len;
	int64_t count;
};

struct spt_misuse {
	int32_t kind; /* enum sp_misuse_kind */
	int64_t count;
	int32_t nr_names;
	struct spt_misuse_name *names; /* owned */
};

/* An event of the counter section (sp_format.h 'CNTR'). */
struct spt_ctr_event {
	const char *name; /* borrowed */
	uint32_t name_len;
	int32_t kind;     /* SP_CTR_KIND_* (lib/counters.h), other values: a count */
	bool counted;     /* false: no values, reason says why */
	const char *reason; /* borrowed; empty when counted */
	uint32_t reason_len;
};

/* The counter section: rows of (region, lane, calls, then per counted
 * event an inclusive and an exclusive sum), views into the bytes. */
struct spt_counters {
	bool present;
	const char *backend; /* borrowed */
	uint32_t backend_len;
	int32_t nr_events, nr_counted;
	struct spt_ctr_event *events; /* owned */
	int64_t threads_without, dropped;
	int64_t nr_rows;
	const unsigned char *rows; /* nr_rows x (16 + 16 x nr_counted) bytes */
	size_t rows_offset;        /* in the file, for messages */
};
#define SPT_CTR_ROW_LEN(counted) (16 + 16 * (size_t)(counted))

/* Row @p i of @p c: its fields in our byte order; values[k] inclusive,
 * values[SP_CTR_MAX + k] exclusive, for the k-th counted event. */
static inline void spt_counters__row(const struct spt_counters *c, bool swap, int64_t i,
				     int32_t *region, int32_t *lane, int64_t *calls,
				     int64_t *incl, int64_t *excl)
{
	const unsigned char *p = c->rows + (size_t)i * SPT_CTR_ROW_LEN(c->nr_counted);
	*region = spt_load_i32(p, swap);
	*lane = spt_load_i32(p + 4, swap);
	*calls = spt_load_i64(p + 8, swap);
	for (int32_t k = 0; k < c->nr_counted; k++) {
		incl[k] = spt_load_i64(p + 16 + 16 * (size_t)k, swap);
		excl[k] = spt_load_i64(p + 24 + 16 * (size_t)k, swap);
	}
}

/* One 'CCAL' section (sp_format.h): each call's counts, entries of
 * SPT_CCAL_ENTRY_LEN(nr_counted) bytes, views into the file. */
struct spt_ccal_section {
	int32_t nr_counted;
	int64_t nr_calls;
	const unsigned char *entries;
	size_t offset; /* in the file, for messages */
};
#define SPT_CCAL_ENTRY_LEN(counted) (16 + 8 * (size_t)(counted))

struct spt_call_counts {
	int32_t nr_sections;
	struct spt_ccal_section *sections; /* owned */
	size_t cap_sections;
	int32_t newer_version;             /* > 0: a section of a newer format, skipped */
};

/* Entry @p i of section @p s: region (-1: padding), lane, start ns, and the
 * call's inclusive count per counted event (SP_CTR_NONE: not kept). */
static inline void spt_ccal__entry(const struct spt_ccal_section *s, bool swap, int64_t i,
				   int32_t *region, int32_t *lane, int64_t *start, int64_t *vals)
{
	const unsigned char *p = s->entries + (size_t)i * SPT_CCAL_ENTRY_LEN(s->nr_counted);
	*region = spt_load_i32(p, swap);
	*lane = spt_load_i32(p + 4, swap);
	*start = spt_load_i64(p + 8, swap);
	for (int32_t k = 0; k < s->nr_counted; k++)
		vals[k] = spt_load_i64(p + 16 + 8 * (size_t)k, swap);
}

/* The extension block of a finished trace (has_timing false without it). */
struct spt_ext {
	bool present;
	bool has_timing;
	int64_t init_ns, finalize_ns, init_real_ns, start_ns; /* start_ns -1: unknown */
	int32_t nr_lanes;
	const unsigned char *lanes; /* nr_lanes x (int64 first, last, cpu ns), borrowed */
	int32_t nr_misuse;
	struct spt_misuse *misuse; /* owned */
	struct spt_counters counters;
	struct spt_call_counts call_counts;
};

/* What an unfinished trace held. */
struct spt_cut {
	bool cut;               /* the trace is unfinished */
	int64_t pid;
	int64_t init_ns;        /* CLOCK_MONOTONIC ns at the library's init */
	int64_t calls;          /* calls recovered */
	int64_t frames;         /* complete call frames */
	int64_t dropped_calls;  /* calls of handles that were not region descriptors */
	size_t bytes_used;      /* end of the last complete frame */
	size_t bytes_total;     /* file length: the rest is an incomplete frame */
	int64_t last_ns;        /* latest call end recovered, -1 if none */
};

struct spt_trace {
	int version;
	int32_t rank;
	bool swap; /* the file's byte order differs from ours */
	int64_t nr_regions;
	struct spt_region *regions; /* owned; spt_trace__release */
	int32_t nr_threads;         /* 0 before v3 */
	struct spt_thread *threads; /* owned */
	struct spt_ext ext;
	struct spt_cut cut;
	unsigned char *image; /* unfinished trace: the owned v2/v3 bytes the views
				 point into (see spt_trace__take_image) */
	size_t image_len;
};

/* Parses `len` bytes named `path` (for messages). The trace borrows `buf`,
 * which must outlive it. Returns 0, or a negative errno with e filled:
 * trace.bad_magic, trace.truncated, trace.newer_version, trace.bad_version,
 * trace.corrupt — each message names the file, the byte offset, what was
 * expected and what was found. */
int spt_parse(const unsigned char *buf, size_t len, const char *path, struct spt_trace *t,
	      struct err *e);
void spt_trace__release(struct spt_trace *t);
/* Hands the owned image (NULL for a finished trace) to the caller, who must
 * keep it as long as the views are used and free it with xfree. */
unsigned char *spt_trace__take_image(struct spt_trace *t);

/* Unfinished traces (spt_stream.c): recovers the frames of `buf` into an
 * owned v2/v3 image (*image, *image_len) and fills *cut. 0 or -errno. */
int spt_stream_recover(const unsigned char *buf, size_t len, const char *path, bool swap,
		       unsigned char **image, size_t *image_len, struct spt_cut *cut,
		       struct err *e);
/* Parses the extension block at `off` (SP_EXT_MAGIC). 0 or -errno. */
int spt_parse_ext(const unsigned char *buf, size_t len, size_t off, const char *path, bool swap,
		  struct spt_ext *x, struct err *e);

/* Detects the byte order from a version field that must be small and
 * positive. Sets *swap and returns the version in our order, or -1 when
 * neither order gives a plausible version. Shared with the .sps reader. */
int trace_detect_version(const unsigned char *p, bool *swap);

#endif
