/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct reader of perf.data (file mode, "PERFILE2"), a pure function from
 * bytes to samples streamed into the aggregator: about 10x faster than
 * running `perf script` and parsing its text, and independent of the perf
 * version's text shapes (docs/ingest.md has the figures).
 *
 * Layout (tools/perf/Documentation/perf.data-file-format.txt; record bodies
 * from linux/perf_event.h). Every integer is in the byte order of the
 * recording machine; we read files of OUR byte order only and refuse the other
 * (detected from the magic, exactly as perf's `needs_swap`), so the caller
 * falls back to `perf script`, which swaps.
 *
 *   perf_file_header (104 bytes): u64 magic "PERFILE2", u64 size (of this
 *     header), u64 attr_size, {u64 offset, size} attrs, data, event_types,
 *     u64 adds_features[4] (feature bitmap)
 *   attrs: array of {perf_event_attr (attr_size - 16 bytes), {offset, size} ids}
 *   data: records {u32 type, u16 misc, u16 size, body}, perf-sorted only per
 *     round (FINISHED_ROUND), hence the two passes below
 *   features, at data.offset + data.size: one {offset, size} per set bit of
 *     adds_features, in bit order. We read HEADER_BUILD_ID (bit 2) and
 *     HEADER_EVENT_DESC (bit 12) and skip the rest.
 *
 * Records used (SWITCH, EXIT and context-switch samples only with a
 * switch log, ingest/switches.h): MMAP (1), MMAP2 (10) -> per-pid maps (exec maps only);
 * FORK (7) -> the child inherits the maps and its maker's comm; COMM (3) ->
 * comm per tid (ingest/thread_names.h: the last in time, not in file order); SAMPLE
 * (9) -> ip, pid/tid, time, period, callchain. Every other type is skipped by
 * its size (AUXTRACE's trailing payload included). Pass 1 collects the maps,
 * pass 2 the samples, so a sample never misses a map written later in the file
 * (records are only sorted per round).
 *
 * Offsets: exactly perf's `dsoff` (perf_maps.h): ip - map.start + map.pgoff,
 * the offset in the file. Kernel-mode samples become "[kernel.kallsyms]" with
 * offset ip - `_text` (the pgoff of the kernel's mmap event; never the ip),
 * or "[module]" for a kernel module map without offset; user samples outside
 * any map "[unknown]", as `perf script` prints them.
 *
 * Not handled, each a specific error with code "perf_data.unsupported" so
 * the caller falls back to the perf script path: pipe mode (header size 16),
 * the legacy "PERFFILE" magic, the other byte order, directory format
 * (HEADER_DIR_FORMAT), compressed records (HEADER_COMPRESSED or
 * PERF_RECORD_COMPRESSED/COMPRESSED2), an attr too short to hold
 * sample_type/read_format, and several events without PERF_SAMPLE_IDENTIFIER
 * or PERF_SAMPLE_ID. Malformed bytes give "perf_data.corrupt" with the offset.
 */
#ifndef NUNATAK_INGEST_PERF_DATA_H
#define NUNATAK_INGEST_PERF_DATA_H

#include <stddef.h>

#include "ingest/aggregate.h"
#include "ingest/perf_script.h"

struct err;
struct pivot;
struct buildid_list;

/*
 * Reads a perf.data image buf[0..len) (borrowed; mmap it, it is read in place)
 * and calls fn per sample. Build-ids of the HEADER_BUILD_ID section are added
 * to ids when it is non-NULL. st must be zero-initialised; it receives the
 * counts (nr_records, nr_skipped_records, nr_samples, nr_no_offset).
 * Returns 0; -ENOTSUP ("perf_data.unsupported": fall back to perf script),
 * -EINVAL ("perf_data.corrupt"), -ENOMEM, or fn's non-zero value.
 */
int perf_data__read(const void *buf, size_t len, perf_sample_fn fn, void *ctx,
		    struct buildid_list *ids, struct ingest_stats *st, struct err *e);

/* The same, with context switches, thread starts and exits and the
 * context-switch samples (not handed to fn) fed into sw (ingest/
 * switches.h) when it is non-NULL. */
struct switch_log;
int perf_data__read_switches(const void *buf, size_t len, perf_sample_fn fn, void *ctx,
			     struct buildid_list *ids, struct switch_log *sw,
			     struct ingest_stats *st, struct err *e);

/* The same, handing the recording's thread names (tid -> last comm,
 * ingest/thread_names.h) over to names when it is non-NULL (initialised by
 * the caller; filled only on success). */
struct thread_names;
int perf_data__read_names(const void *buf, size_t len, perf_sample_fn fn, void *ctx,
			  struct buildid_list *ids, struct switch_log *sw,
			  struct thread_names *names, struct ingest_stats *st, struct err *e);

/*
 * The whole path for one perf.data image: read, aggregate, emit into p.
 * Build-ids come from o->build_ids when set, else from the file itself.
 * Errors as perf_data__read(); on error p is untouched.
 */
int ingest_perf_data(const void *buf, size_t len, const struct ingest_opts *o,
		     struct pivot *p, struct ingest_stats *st, struct err *e);

/*
 * Convenience for callers holding a path: maps the file read-only (the only
 * I/O of this module), runs ingest_perf_data(), unmaps. Errors as above plus
 * -errno with code "perf_data.open".
 */
int ingest_perf_data_file(const char *path, const struct ingest_opts *o, struct pivot *p,
			  struct ingest_stats *st, struct err *e);

/*
 * The same in two steps: read and aggregate (the part that grows with the
 * recording's events; touches no pivot, so several recordings can be read
 * on several threads, or while the launch still runs), then emit into a
 * pivot (in a fixed order: the pivot comes out as ingest_perf_data's), each
 * thread Locus named after its comm (ingest/thread_names.h).
 * ids: the build-ids to emit with (kept by the caller until the emit, which
 * gets them again in o->build_ids), or NULL: the file's own header. On
 * success *out is the read, freed with perf_data_read__free().
 */
struct perf_data_read;
int perf_data_read__mem(const void *buf, size_t len, const struct buildid_list *ids,
			struct perf_data_read **out, struct ingest_stats *st, struct err *e);
int perf_data_read__file(const char *path, const struct buildid_list *ids,
			 struct perf_data_read **out, struct ingest_stats *st, struct err *e);
int perf_data_read__emit(struct perf_data_read *r, const struct ingest_opts *o, struct pivot *p,
			 struct ingest_stats *st, struct err *e);
void perf_data_read__free(struct perf_data_read *r);

/* The files buf's MMAP and MMAP2 records map as code (absolute paths, as
 * recorded, in record order, repeats included), each through fn(ctx, path,
 * its length); fn's non-zero value stops the walk and is returned. 0, or
 * -ENOTSUP / -EINVAL with e as perf_data__read(). Reads no sample. */
int perf_data__mapped_files(const void *buf, size_t len,
			    int (*fn)(void *ctx, const char *path, size_t n), void *ctx,
			    struct err *e);

/* The clock of every event of a perf.data image: CLOCK_MONOTONIC (1) when
 * each was recorded with use_clockid and that clock, the clock id when they
 * share another; -2 when use_clockid is off (perf's own clock) or the events
 * disagree; -1 when the header is unreadable. Reads the header only. */
int perf_data_clockid(const void *buf, size_t len);

#endif
