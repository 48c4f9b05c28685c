/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /rank<r>/perf_events of the .h5 profile (docs/formats.md): counters per
 * region and lane, written from a rank's struct region_counters and read
 * back into one (h5_read_counters in hdf5_trace.h).
 */
#ifndef NUNATAK_HDF5_COUNTERS_H5_H
#define NUNATAK_HDF5_COUNTERS_H5_H

#include <hdf5.h>
#include <stdint.h>

struct err;
struct region_counters;
struct trace_set;
struct trace_source;

/* Writes rc (one rank's counters, region ids of ts) as the group
 * perf_events of rk, lanes shifted by lane_off; nothing when rc has no
 * counter section. 0 or -errno. */
int h5_counters_write(hid_t rk, const struct region_counters *rc, const struct trace_set *ts,
		      int32_t lane_off);
/* Reads the counters of one source (.spt CNTR section or .h5 perf_events)
 * into rc (zeroed first; released on failure). 0 or -errno (e filled). */
int h5_counters_of_source(struct region_counters *rc, struct trace_set *ts,
			  const struct trace_source *src, struct err *e);

#endif
