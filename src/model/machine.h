/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Machine as data: the hardware a Run executes on plus the share of it
 * this process received (REFERENCE.md §5), filled by machine/snapshot.h and
 * recorded in every Run. A Machine is not a node: its identity
 * (model/machine_identity.h) is hardware + allocation shape, so two jobs given
 * different shares of one node are two Machines.
 *
 * Honesty: every field that could not be observed is "unknown" (NULL string,
 * -1 count, has_* false) and serialises as JSON null; it is never 0. A bound
 * that does not exist (cgroup "max") is also null: both mean "no known cap".
 *
 * Under replay (an executor whose recorded_meta() is non-NULL) the platform,
 * cpu_model and cpuinfo come from the recording's meta.json, never from the
 * replaying machine (tests/corpus/README.md).
 *
 * Ownership: struct machine owns all its strings and arrays; release with
 * machine__release(). Not thread-safe (plain data).
 */
#ifndef NUNATAK_MODEL_MACHINE_H
#define NUNATAK_MODEL_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct err;
typedef struct json_t json_t;

/* An upper performance bound of the Machine (roofline); value in `unit`
 * (byte/s, flop/s, s). Quality estimated/measured, reason when downgraded. */
struct ceiling {
	char *name;   /* dram_bandwidth, flops_dp, flops_sp, network_bandwidth ... */
	double value;
	char *unit;
	enum quality quality;
	char *reason; /* NULL when measured cleanly */
};

/* What the CPU says about itself (/proc/cpuinfo, first processor block).
 * x86: vendor_id / cpu family / model / stepping / flags.
 * ARM: CPU implementer (as vendor, e.g. "0x41") / CPU architecture (family) /
 * CPU part (model) / CPU variant (stepping) / Features. */
struct cpu_ident {
	char *vendor;     /* "AuthenticAMD", "GenuineIntel", "0x41", or NULL */
	int family;       /* -1 when unknown */
	int model;        /* -1 when unknown */
	int stepping;     /* -1 when unknown */
	char **flags;     /* flags of interest present on this CPU (see snapshot.c) */
	size_t nr_flags, cap_flags;
};

struct allocation {
	int *affinity_mask;      /* CPU ids the affinity mask allows, ascending */
	size_t nr_affinity;
	bool has_affinity;       /* false: sched_getaffinity unavailable */
	int64_t visible_cores;   /* = nr_affinity, -1 when unknown */
	double cpu_quota;        /* cgroup CPU bandwidth cap in cores */
	bool has_cpu_quota;      /* false: no cap, or none observable */
	int64_t memory_limit_bytes; /* cgroup memory cap, -1: none or unobservable */
	char *cgroup;            /* where the limits were read: "v1", "v2", "hybrid", NULL */
};

struct machine {
	char *system;        /* "Linux" (uname sysname) */
	char *kernel;        /* uname release */
	char *architecture;  /* uname machine: "x86_64", "aarch64" */
	char *cpu_model;     /* /proc/cpuinfo "model name", NULL when absent */
	char *hostname;      /* NULL under replay unless recorded */
	struct cpu_ident cpu;
	int64_t logical_cores; /* online CPUs, -1 when unknown */
	struct allocation alloc;
	struct ceiling *ceilings;
	size_t nr_ceilings, cap_ceilings;
	/* What collecting costs here, measured with the calibration (machine/
	 * sample_cost.h) and cached with the Ceilings: the application time one
	 * sample takes, named "perf_sample_fp", "perf_sample_dwarf", ... (unit
	 * "s"). value NaN with Quality unavailable and the reason when it could
	 * not be measured. Not a bound: never placed on the roofline. */
	struct ceiling *costs;
	size_t nr_costs, cap_costs;
	char *cpuinfo_text;  /* first processor block of /proc/cpuinfo, for recordings;
				not written to the manifest */
	bool replayed;       /* true when built from a recording's meta.json */
};

/* Every function taking a struct machine * expects it initialised (by
 * machine__init or a previous call); fillers release what it held first, and
 * leave it released (but valid) on failure. */
void machine__init(struct machine *m);
void machine__release(struct machine *m);
void cpu_ident__release(struct cpu_ident *c);
bool cpu_ident__has_flag(const struct cpu_ident *c, const char *flag);
void allocation__release(struct allocation *a);

/* The cores this job may burn: visible cores (or logical cores when the mask
 * is unknown), capped by the CPU quota. Returns false when neither is known. */
bool machine__allocated_cores(const struct machine *m, double *cores);

/* Appends a copy of c. Returns 0 or -ENOMEM. */
/* Frees what a ceiling owns (name, unit, reason). */
void ceiling__release(struct ceiling *c);
int machine__add_ceiling(struct machine *m, const struct ceiling *c);
/* Drops every Ceiling (before loading a cached profile's). */
void machine__clear_ceilings(struct machine *m);
/* The same for the costs: appends a copy of c (replacing the cost of the
 * same name), drops them all, finds one by name (NULL when absent). */
int machine__put_cost(struct machine *m, const struct ceiling *c);
void machine__clear_costs(struct machine *m);
const struct ceiling *machine__cost(const struct machine *m, const char *name);
/* Deep copy into dst (initialised by this call). Returns 0 or -ENOMEM. */
int machine__copy(struct machine *dst, const struct machine *src);

/* The plain-JSON form shared by the manifest, the cache and the report
 * payload so they never drift apart: {system, kernel, architecture,
 * cpu_model, hostname, identity, logical_cores, allocated_cores, cpu{vendor,
 * family, model, stepping, flags[]}, allocation{visible_cores, affinity_mask[],
 * cpu_quota, memory_limit_bytes, cgroup}, ceilings[{name,value,unit,quality,
 * reason}], costs[the same fields; absent when there is none]}; unknowns are
 * null. Returns a new reference (caller
 * json_decref()s) or NULL on allocation failure. */
json_t *machine__to_json(const struct machine *m);
/* Inverse of machine__to_json; unknown keys are ignored, absent ones stay
 * unknown. Returns 0, or -EINVAL with e naming the offending field. */
int machine__from_json(struct machine *m, const json_t *j, struct err *e);

/* What the recording executor should merge into meta.json so a replay sees
 * this machine: {platform{system,kernel,architecture}, cpu_model, cpuinfo,
 * machine{...}}. New reference, or NULL on allocation failure. */
json_t *machine__recording_meta(const struct machine *m);

#endif
