/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address-space maps of the profiled processes, rebuilt from perf's
 * PERF_RECORD_MMAP/MMAP2/FORK records (perf.data) or from their text form
 * (`perf script --show-mmap-events --show-task-events` on perf < 6.4), to turn
 * a sampled ip into (module, module-relative offset) exactly as perf >= 6.4
 * prints `dsoff`:
 *
 *     offset = ip - map.start + map.pgoff        (perf's map__map_ip())
 *
 * i.e. the offset in the mapped FILE, not an ELF virtual address (the two
 * coincide for the usual PT_LOAD layout where p_vaddr == p_offset; attrib/
 * converts file offsets to vaddrs with the program headers when they differ).
 *
 * Which map: among the maps of the sample's pid covering ip, the latest one
 * mapped at or before the sample's time (perf's thread maps after sorting by
 * time); when none is older than the sample (records out of order), the
 * earliest covering one. Kernel maps (pid -1) get perf's end fix-up: each
 * ends where the next begins, the last at 2^64-1 (maps__fixup_end()).
 *
 * Lookups cache the last hit per pid, valid while the sample time lies in
 * [map.time, time the map was first overlapped by a newer map): consecutive
 * samples of a thread hit the same map, so a lookup is O(1) in practice. A
 * miss (a call chain's frames hop between modules) searches the pid's maps
 * sorted by start, O(log n) plus the maps overlapping ip; maps added since
 * the sort are scanned until they outnumber a quarter of the sorted ones.
 */
#ifndef NUNATAK_INGEST_PERF_MAPS_H
#define NUNATAK_INGEST_PERF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAPS_KERNEL_PID (-1)

struct perf_map {
	uint64_t start, end;   /* [start, end) */
	uint64_t pgoff;
	uint64_t time;         /* when it was mapped (0: synthesized before the run) */
	uint64_t superseded;   /* time of the first newer overlapping map, or UINT64_MAX */
	const char *path;      /* interned; valid until perf_maps__free() */
	size_t path_len;
};

struct perf_maps;

/* Caller frees with perf_maps__free(). NULL when out of memory. */
struct perf_maps *perf_maps__new(void);
void perf_maps__free(struct perf_maps *m);
/* Adds a mapping of pid (PERF_MAPS_KERNEL_PID for the kernel). 0 or -ENOMEM. */
int perf_maps__add(struct perf_maps *m, int64_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, uint64_t time, const char *path, size_t path_len);
/* A new process `child` starts with a copy of parent's current maps. */
int perf_maps__fork(struct perf_maps *m, int64_t child, int64_t parent, uint64_t time);
/* The map of pid covering ip at time (UINT64_MAX: the latest), or NULL.
 * Borrowed; valid until the next add/fork/free. */
const struct perf_map *perf_maps__find(struct perf_maps *m, int64_t pid, uint64_t ip,
				       uint64_t time);
/* True when some map of pid backed by `path` maps file offset `off`
 * (pgoff <= off < pgoff + len): perf < 6.4 prints call-chain entries as
 * such offsets rather than as ips (see perf_script.h). */
bool perf_maps__maps_offset(struct perf_maps *m, int64_t pid, const char *path, size_t len,
			    uint64_t off);
/*
 * For a kernel map m covering ip: when m is the core kernel
 * ("[kernel.kallsyms]…", whose pgoff perf sets to the running address of
 * `_text`, else its start), *off = ip - `_text` and true; else false. Never
 * an absolute address: offsets from `_text` survive KASLR (docs/ingest.md).
 */
bool perf_maps__kernel_offset(const struct perf_map *m, uint64_t ip, uint64_t *off);

/* Applies the kernel end fix-up; call once after all kernel maps are added. */
void perf_maps__fixup_kernel(struct perf_maps *m);

#endif
