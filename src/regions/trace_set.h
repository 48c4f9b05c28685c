/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The traces of one run: discovery of the input files, the rank each one
 * holds, one global table of region names, and loading one rank at a time so
 * post-processing holds a single rank's events in memory (mmap'd .spt bytes
 * are read in place and unmapped when the rank is released).
 */
#ifndef NUNATAK_REGIONS_TRACE_SET_H
#define NUNATAK_REGIONS_TRACE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hashtab.h"
#include "ingest/spt_reader.h"
#include "regions/rank_notes.h"

struct err;
struct region_filter;

enum trace_kind { TRACE_SPT, TRACE_H5 };

struct trace_source {
	char *path;
	enum trace_kind kind;
	int32_t rank;
};

struct region_info {
	char *name;
	char *file; /* NULL when unknown */
	int32_t line;
	uint64_t hash; /* hash_bytes of name, for the region index */
};

struct trace_set {
	char *label; /* run name: common file prefix before _rank, or the directory */
	struct trace_source *src; /* sorted by rank */
	size_t nr_src;
	struct region_info *regions; /* global region table, ids are indices */
	uint32_t nr_regions;
	size_t cap_regions;
	struct oatab index; /* common/hashtab index of regions by name */
	struct rank_notes notes; /* what loaded ranks said about themselves, once each */
	struct region_filter *filter; /* borrowed; applied to every rank loaded, or NULL */
};

/* One region of one loaded rank, as views into the trace bytes. */
struct rank_region {
	uint32_t id; /* into trace_set.regions */
	int64_t nr_calls;
	const unsigned char *starts, *ends; /* int64, maybe unaligned / swapped */
	const unsigned char *lanes;         /* int32 or NULL (one lane) */
	size_t starts_offset, lanes_offset; /* for messages */
};

struct lane_info {
	int64_t tid; /* -1 when unknown */
	char *name;  /* NULL when unknown */
};

struct rank_data {
	const char *path; /* borrowed from the trace_set */
	int32_t rank;
	bool swap;
	struct rank_region *regions;
	size_t nr_regions;
	int32_t nr_lanes; /* >= 1 */
	struct lane_info *lanes;
	/* ownership of the bytes */
	void *map;
	size_t map_len;
	void **owned;
	size_t nr_owned, cap_owned;
};

/*
 * Collects the trace files named by `inputs` (files, and directories searched
 * non-recursively for *.spt and *_rank<N>.h5), sorted and de-duplicated, and
 * reads the rank of each. Fails (e filled) on a missing input, a directory
 * with no trace, an unreadable or malformed header, or two sources claiming
 * the same rank (trace.duplicate_rank, naming both files).
 */
int trace_set__open(struct trace_set *ts, const char *const *inputs, size_t nr_inputs,
		    struct err *e);
void trace_set__release(struct trace_set *ts);
/* sizeof(struct trace_set) and sizeof(struct rank_data) as this executable
 * was built: the HDF5 module (src/hdf5/) shares both structs and refuses to
 * load when its own sizes differ (a module built from other sources). */
void trace_set__sizes(size_t *trace_set, size_t *rank_data);

/* Returns the id of `name` (len bytes), adding it with file/line if new. */
int64_t trace_set__intern(struct trace_set *ts, const char *name, size_t len, const char *file,
			  size_t file_len, int32_t line);
/* A copy of s (len bytes) with invalid UTF-8 replaced; NULL when out of memory. */
char *trace_set__clean_name(const char *s, size_t len);

/* Presents a parsed trace as rank_data (views into the trace's bytes, which
 * must outlive rd; rd->path is left to the caller). For fuzzing and tests. */
int trace_set__from_spt(struct trace_set *ts, const struct spt_trace *t, struct rank_data *rd,
			struct err *e);

/* Loads source i (mapped, parsed, region names interned, ts->filter
 * applied). Caller releases. */
int trace_set__load(struct trace_set *ts, size_t i, struct rank_data *rd, struct err *e);
void rank_data__release(struct rank_data *rd);

/* Maps a whole file read-only; empty files give a valid non-NULL buffer. */
int trace_map_file(const char *path, void **map, size_t *len, struct err *e);
void trace_unmap_file(void *map, size_t len);

#endif
