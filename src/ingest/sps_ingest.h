/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The preload sampler's samples (.sps, sps_reader.h) as Measurements: the same
 * aggregation as perf samples (aggregate.h), so Hotspots, Loci and
 * attribution are shared. Each sample's absolute address becomes a
 * (module, module-relative file offset) pair as perf's dsoff: the module's
 * ELF virtual address (address - load address for a PIE or a shared object,
 * the address itself for a non-PIE executable), then the file offset of the
 * PT_LOAD that maps it. No absolute address reaches the pivot.
 *
 * Time base: each sample is one tick of a thread CPU-time timer. The file
 * carries the rate the sampler achieved (ticks / CPU seconds, measured in the
 * process), never the requested one; each sample is worth 1/rate seconds of
 * CPU time, counted as `task-clock` in ns with Quality `estimated` (a tick
 * stands for the mean interval, and the timers fire at the kernel's HZ at
 * most). The file has no thread column: the Locus is the whole process
 * (thread -1).
 */
#ifndef NUNATAK_INGEST_SPS_INGEST_H
#define NUNATAK_INGEST_SPS_INGEST_H

#include <stdint.h>

#include "ingest/aggregate.h"

struct err;
struct pivot;

/* What the files said about their time base, summed over files. */
struct sps_ingest_info {
	int nr_files;
	int64_t ticks;        /* timer expirations in total (the samples' weights) */
	int64_t samples;      /* samples ingested */
	int64_t outside;      /* samples with no module (address not in a mapped object) */
	int hz_min, hz_max;   /* achieved rates of the files (0 when none) */
	double cpu_s;         /* Σ ticks / hz: the CPU time the expirations stand for */
};

/* The reason string every preload task-clock Measurement carries. */
#define SPS_TIME_REASON                                                                    \
	"preload sampler: CPU-time timer expirations at the achieved (measured) rate, each " \
	"worth the mean interval, a sample as many as its signal stood for; no hardware "    \
	"counters"

/*
 * Ingests the .sps files (paths, n of them) into p as task-clock samples
 * (o->node, o->rank, thread -1; o->pass_index). A file that cannot be read
 * or parsed fails with e naming it. Returns 0 or a negative errno.
 */
int ingest_sps_files(const char *const *paths, int n, const struct ingest_opts *o,
		     struct pivot *p, struct sps_ingest_info *info, struct err *e);

/* The module-relative file offset of an absolute address sampled in a module
 * loaded at `load` whose PT_LOAD segments are given (pure; exposed for tests).
 * is_exec: ET_EXEC (non-PIE). Returns 0, or -ENOENT when no segment maps it. */
struct elf_info;
int sps_module_offset(const struct elf_info *elf, uint64_t address, uint64_t load,
		      uint64_t *offset);

#endif
