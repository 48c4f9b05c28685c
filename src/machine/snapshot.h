/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Observing the Machine (struct machine, model/machine.h): uname,
 * /proc/cpuinfo, online CPUs, affinity mask and cgroup limits (cgroup.c).
 * Under replay (an executor whose recorded_meta() is non-NULL) the platform,
 * cpu_model and cpuinfo come from the recording's meta.json, never from the
 * replaying machine (tests/corpus/README.md).
 */
#ifndef NUNATAK_MACHINE_SNAPSHOT_H
#define NUNATAK_MACHINE_SNAPSHOT_H

#include <stddef.h>

#include "model/machine.h"

struct err;
struct executor;

/* Best-effort snapshot of this machine (or, under replay, of the recorded
 * one). Never fails for a missing file: what cannot be read stays unknown.
 * Returns 0, or -ENOMEM (e filled). `x` may be NULL (treated as real). */
int machine__snapshot(struct machine *m, struct executor *x, struct err *e);

/* Same, reading every file below `root` ("/" on a live system; a fixture tree
 * in tests: root/proc/cpuinfo, root/proc/self/{cgroup,mountinfo},
 * root/sys/fs/cgroup/...). uname, sysconf, sched_getaffinity and gethostname
 * are always live. */
int machine__snapshot_at(struct machine *m, const char *root, struct err *e);

/* Fills platform/cpu fields from a recording's meta.json (platform{system,
 * kernel,architecture}, cpu_model, cpuinfo; and our own recordings' "machine"
 * object for allocation and cores). Missing fields stay unknown. */
int machine__from_recorded_meta(struct machine *m, const json_t *meta, struct err *e);

/* Pure: parses cpuinfo text (all of /proc/cpuinfo or one block) into c and,
 * when model_out is non-NULL, the "model name" (caller frees; NULL if absent).
 * Returns 0 or -ENOMEM. */
int cpuinfo_parse(const char *text, size_t len, struct cpu_ident *c, char **model_out);

/* Pure with respect to `root`: reads root/proc/self/cgroup, root/proc/self/
 * mountinfo and the cgroup files below the mount points it names (v2 cpu.max
 * and memory.max; v1 cpu.cfs_quota_us/cpu.cfs_period_us and
 * memory.limit_in_bytes), taking the tightest limit from the process's cgroup
 * up to its mount root. Fills cpu_quota, memory_limit_bytes and cgroup of a;
 * leaves affinity alone. Missing files mean "no observable cap". Returns 0 or
 * -ENOMEM. */
int allocation_read_cgroup(const char *root, struct allocation *a, struct err *e);

#endif
