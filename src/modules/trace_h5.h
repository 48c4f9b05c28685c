/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HDF5 region profiles: reading per-rank (library-written) or merged .h5
 * files, and writing the merged profile of `regions convert`, in the layout
 * docs/formats.md documents for the library's own .h5 (compatible with the
 * published Python scope-profiler: /metadata attributes and
 * /rank<r>/regions/<name>/{start_times,end_times}; our additions beside
 * them). The work is done by the HDF5 module (src/hdf5/, nunatak-hdf5.so),
 * loaded on each call (modules/trace_h5.c) so that the executable does not
 * link libhdf5. Looked for in $NUNATAK_HDF5_MODULE, else beside the
 * executable, else in ../lib/nunatak/ from it. Without HDF5 at build time,
 * or when the module is missing or fails to load, every function fails with
 * regions.no_hdf5, naming the path tried, the loader's reason and the remedy.
 */
#ifndef NUNATAK_MODULES_TRACE_H5_H
#define NUNATAK_MODULES_TRACE_H5_H

#include <stddef.h>
#include <stdint.h>

struct err;
struct rank_data;
struct trace_set;
struct console;
struct region_counters;


/* Ranks held by an .h5 file (groups /rank<N>), sorted. Caller frees *ranks. */
int trace_h5_list_ranks(const char *path, int32_t **ranks, size_t *nr, struct err *e);
/* Loads one rank of an .h5 file into rd (data owned by rd). */
int trace_h5_load(struct trace_set *ts, const char *path, int32_t rank, struct rank_data *rd,
		  struct err *e);
/* Adds the counters per region of one rank of an .h5 file (its
 * /rank<r>/perf_events, docs/formats.md) to rc; a rank without them counts
 * in rc->ranks_without. 0 or -errno (e filled). */
int trace_h5_counters(struct region_counters *rc, struct trace_set *ts, const char *path,
		      int32_t rank, struct err *e);
/* Writes every rank of ts into one HDF5 file at `out` (temp + rename). */
int trace_h5_convert(struct trace_set *ts, const char *out, struct console *con,
		     struct err *e);

/*
 * Merges result sets (runs[k], named names[k] in messages), e.g. a Python
 * and a Fortran run of the same ranks, into one HDF5 file: per rank, the
 * regions of every run that has the rank, lanes one run after the other.
 * Two runs holding a region of the same name on one rank are refused
 * (regions.collision), as the seed's merge_results does. Metadata is the
 * first run's (its lowest rank's .h5), samples the first run's that has them.
 */
int trace_h5_merge(struct trace_set *runs, size_t nr, const char *const *names, const char *out,
		   struct console *con, struct err *e);

/* Loads the module to describe it: "HDF5 1.10.8, loaded from PATH" into
 * detail (n bytes), or fails with regions.no_hdf5 saying why (`doctor`). */
int trace_h5_support(char *detail, size_t n, struct err *e);

#endif
