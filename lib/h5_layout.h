/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The .h5 profile's layout (docs/formats.md, ".h5 — HDF5 profile"), written
 * in one place for its two writers: the library's plugin
 * (libscope_profiler_h5.so, writer_h5.c) and nunatak's `regions convert` /
 * `merge` (nunatak-hdf5.so, src/hdf5/trace_write.c). Each writer gathers its
 * values from what it holds (a finished sp_trace, or loaded traces) and
 * hands them here, so both write the same groups, datasets, types and
 * attributes. Every string, attribute or dataset, is variable-length UTF-8
 * (h5py's own kind); readers also accept the fixed-length attributes that
 * libraries before this file wrote.
 *
 * Built into both plugins (never into libscope_profiler itself: it does not
 * link HDF5). libc and libhdf5 only. Functions return 0 or -EIO/-ENOMEM.
 */
#ifndef SP_H5_LAYOUT_H
#define SP_H5_LAYOUT_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void sp_h5_attr_str(hid_t obj, const char *name, const char *value); /* NULL as "" */
void sp_h5_attr_i64(hid_t obj, const char *name, int64_t v);
void sp_h5_attr_f64(hid_t obj, const char *name, double v);
/* A dataset of nd dimensions (nothing written when one is 0). */
int sp_h5_dset(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, int nd,
	       const hsize_t *dims, const void *data);
int sp_h5_dset_strings(hid_t loc, const char *name, const char *const *v, size_t n);

#define SP_H5_SCHEMA 2 /* the published layout's schema number */

/* /metadata. Strings NULL and the optional numbers below 0 are left out. */
struct sp_h5_metadata {
	const char *timestamp, *writer, *versions, *hostname, *platform, *working_directory,
		*user, *label;
	int64_t omp_num_threads, mpi_size, total_cores; /* always written; -1 unknown */
	int64_t start_time_ns, finalize_time_ns, num_nodes; /* optional (num_nodes > 0) */
};
int sp_h5_write_metadata(hid_t file, const struct sp_h5_metadata *m);

/* One region group under /rank<r>/regions. Its columns are filled a slice
 * at a time by fill(): calls [at, at + m) of column SP_H5_START or
 * SP_H5_END (int64 ns) or SP_H5_LANE (int32) into buf, 0 or -errno. */
enum { SP_H5_START, SP_H5_END, SP_H5_LANE };
struct sp_h5_region {
	const char *name, *file; /* file NULL: unknown */
	int64_t line;
	size_t nr_calls;
	bool lanes; /* write the lanes column */
	int (*fill)(void *ctx, int column, size_t at, size_t m, void *buf);
	void *ctx;
};
/* buf holds `slice` int64 (slice >= 1). */
int sp_h5_write_region(hid_t regions, const struct sp_h5_region *r, void *buf, size_t slice);

/* /rank<r>/threads: one row a lane. */
int sp_h5_write_threads(hid_t rank, size_t n, const int64_t *tid, const char *const *names);

/* /rank<r>/samples. */
struct sp_h5_samples {
	double effective_hz;
	int64_t requested_hz; /* < 0: unknown, left out */
	int64_t ticks;
	double overhead; /* < 0: unknown, left out */
	size_t nr_samples;
	const int32_t *region, *module;
	const uint64_t *address;
	const int32_t *weight; /* timer expirations per sample (>= 1) */
	size_t nr_regions, nr_modules;
	const char *const *region_names, *const *module_paths;
	const uint64_t *module_bases;
};
int sp_h5_write_samples(hid_t rank, const struct sp_h5_samples *s);

/* /rank<r>/perf_events: counters per (region, lane) row, one column of
 * inclusive / exclusive (row-major, nr_rows x nr_counted) per counted event. */
struct sp_h5_counters {
	const char *backend;
	int64_t threads_without, dropped;
	size_t nr_events;
	const char *const *event_names, *const *event_reasons; /* reason "" when counted */
	const int32_t *event_kinds, *event_status; /* status 0 counted, 1 unavailable */
	size_t nr_rows, nr_counted;
	const char *const *region;
	const int32_t *lane;
	const int64_t *calls, *inclusive, *exclusive;
	/* nr_rows x nr_counted, 1 where the cell holds a count; NULL when every
	 * cell does (then not written: only a merge of runs that counted
	 * different events needs it). */
	const int8_t *counted;
};
int sp_h5_write_counters(hid_t rank, const struct sp_h5_counters *c);

#endif
