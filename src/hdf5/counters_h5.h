/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /rank<r>/perf_events of the .h5 profile (docs/formats.md): counters per
 * region and lane, written from a rank's struct region_counters and read
 * back into one (h5_read_counters in hdf5_trace.h).
 */
#ifndef NUNATAK_HDF5_COUNTERS_H5_H
#define NUNATAK_HDF5_COUNTERS_H5_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "regions/region_counters.h"

struct err;
struct region_counters;
struct trace_set;
struct trace_source;

/* Writes rc (one rank's counters, region ids of ts) as the group
 * perf_events of rk, lanes shifted by lane_off; nothing when rc has no
 * counter section. 0 or -errno. */
int h5_counters_write(hid_t rk, const struct region_counters *rc, const struct trace_set *ts,
		      int32_t lane_off);
/* The counters of several runs on one rank, for `regions merge`: the runs'
 * regions are distinct (merge refuses a name in two runs), so every row is
 * kept, lanes shifted as the regions' are; events are matched by name, and
 * a row of a run that did not count an event has no value for it (the
 * group's `counted` cells), never zero; threads_without and dropped add. */
struct ctr_merged {
	struct region_counters rc; /* rows' region fields unused: names[] */
	const char **names;        /* per row, borrowed from the runs' trace sets */
	size_t cap_names;
};

/* Adds one run's counters on @p rank (read from ts's source). 0 or -ENOMEM. */
int h5_counters_absorb(struct ctr_merged *m, const struct region_counters *one,
		       const struct trace_set *ts, int32_t rank, int32_t lane_off);
/* Writes the merged group (nothing when no run had counters). 0 or -errno. */
int h5_counters_write_merged(hid_t rk, const struct ctr_merged *m);
void h5_counters_merged_release(struct ctr_merged *m);

/* Reads the counters of one source (.spt CNTR section or .h5 perf_events)
 * into rc (zeroed first; released on failure). 0 or -errno (e filled). */
int h5_counters_of_source(struct region_counters *rc, struct trace_set *ts,
			  const struct trace_source *src, struct err *e);

#endif
