/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser of scope_profiler sample files (.sps), pure bytes -> views. Layout,
 * in the writer's byte order (detected from the version field):
 *
 *   char[8]  "SCOPESMP"
 *   int32    version (1 or 2)
 *   int32    rank
 *   int32    sampling rate, Hz
 *   int64    timer ticks in total, whether or not they landed in a region
 *   int32    number of regions;  per region: int32 name length, char[] name
 *   int32    number of modules;  per module: int32 path length, char[] path,
 *                                            uint64 load address
 *   int64    number of samples;  per sample: int32 region (-1: outside every
 *            region), int32 module (-1 if unknown), uint64 absolute address,
 *            and from version 2 int32 weight (>= 1: timer expirations the
 *            sample stands for; a version-1 sample weighs 1)
 */
#ifndef NUNATAK_INGEST_SPS_READER_H
#define NUNATAK_INGEST_SPS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_format.h"

struct err;

#define SPS_MAGIC SP_SPS_MAGIC
#define SPS_MAX_VERSION SP_SPS_VERSION

struct sps_name {
	const char *s; /* borrowed, not NUL-terminated */
	uint32_t len;
};

struct sps_module {
	const char *path; /* borrowed, not NUL-terminated */
	uint32_t path_len;
	uint64_t load_address;
};

struct sps_file {
	int version;
	int32_t rank;
	int32_t hz;
	int64_t ticks;
	bool swap;
	int32_t nr_regions;
	struct sps_name *regions; /* owned */
	int32_t nr_modules;
	struct sps_module *modules; /* owned */
	int64_t nr_samples;
	const unsigned char *samples; /* nr_samples records of sample_size bytes, borrowed */
	size_t sample_size;           /* 16 (version 1) or 20 (version 2: + weight) */
	size_t samples_offset;
};

struct sps_sample {
	int32_t region;
	int32_t module;
	uint64_t address;
	int32_t weight; /* >= 1 */
};

/* Parses `len` bytes named `path`; the result borrows `buf`. Returns 0 or a
 * negative errno with e filled (trace.bad_magic, trace.truncated,
 * trace.newer_version, trace.bad_version, trace.corrupt), naming the file and
 * byte offset. Sample indices are checked: a region or module index out of
 * range is trace.corrupt. */
int sps_parse(const unsigned char *buf, size_t len, const char *path, struct sps_file *f,
	      struct err *e);
void sps_file__release(struct sps_file *f);
/* The i-th sample, in our byte order. */
struct sps_sample sps_file__sample(const struct sps_file *f, int64_t i);

#endif
