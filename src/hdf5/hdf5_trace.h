/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HDF5 region profiles, implemented against libhdf5: reading per-rank
 * (library-written) or merged .h5 files, and writing the merged profile of
 * `regions convert`/`merge`, in the layout docs/formats.md documents for the
 * library's own .h5 (compatible with the published Python scope-profiler:
 * /metadata attributes and /rank<r>/regions/<name>/{start_times,end_times};
 * our additions beside them).
 *
 * These files build the module nunatak-hdf5.so (hdf5/module.c), which the
 * executable loads on first need (modules/trace_h5.c), so that a nunatak
 * that never touches an .h5 never maps libhdf5 and its ~30 dependencies.
 * Callers use modules/trace_h5.h, whose functions have the same contracts;
 * only the fuzz target links these directly. The module resolves the
 * executable's own symbols (common/, regions/trace_set ...): one copy of
 * that code, allocation faults included.
 */
#ifndef NUNATAK_HDF5_HDF5_TRACE_H
#define NUNATAK_HDF5_HDF5_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct err;
struct rank_data;
struct trace_set;
struct console;
struct region_counters;

/* Ranks held by an .h5 file (groups /rank<N>), sorted. Caller frees *ranks. */
int h5_read_list_ranks(const char *path, int32_t **ranks, size_t *nr, struct err *e);
/* Loads one rank of an .h5 file into rd (data owned by rd). */
int h5_read_load(struct trace_set *ts, const char *path, int32_t rank, struct rank_data *rd,
		  struct err *e);
/* Adds the counters per region of one rank of an .h5 file (its
 * /rank<r>/perf_events; ranks_without when it has none) to rc, as
 * region_counters__read_path does for an .spt. 0 or -errno (e filled). */
int h5_read_counters(struct region_counters *rc, struct trace_set *ts, const char *path,
		     int32_t rank, struct err *e);
/* Writes every rank of ts into one HDF5 file at `out` (temp + rename). */
int h5_write_convert(struct trace_set *ts, const char *out, struct console *con,
		     struct err *e);
/* Merges result sets into one HDF5 file (contract: trace_h5_merge). */
int h5_write_merge(struct trace_set *runs, size_t nr, const char *const *names, const char *out,
		   struct console *con, struct err *e);

#endif
