/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nunatak's configuration cascade (REFERENCE.md §9), by increasing precedence:
 *   1. site:    $NUNATAK_SITE_CONFIG if set, else /etc/nunatak.toml
 *               ("/dev/null", an empty value or a missing file = empty);
 *   2. project: the first nunatak.toml found walking up from the cwd
 *               (never pyproject.toml), ignored with a warning when it or a
 *               directory above it is another user's or writable by others
 *               (common/safefs.h; docs/security.md);
 *   3. flags:   applied by the verb with config__set().
 * Scalars are overwritten by a later layer; [tools] and [source_map] are
 * merged key by key. Unknown keys are not fatal: each becomes a warning
 * string ("<file>: unknown key 'x'") the verb prints through the console.
 * A known key with the wrong type or an out-of-range value is an error
 * (code "config.type" / "config.value"), as is a TOML syntax error
 * ("toml.syntax", with file:line:col).
 *
 * Keys and defaults:
 *   name                   (none)        runs_dir             ".nunatak"
 *   [tools] perf, llvm-symbolizer, llvm-readelf, llvm-dwarfdump, addr2line,
 *           objdump, cc, mpicc, mpirun, git  (conventional names)
 *   [source_map] "<old prefix>" = "<new prefix>"            ({})
 *   [sampling] frequency 997 (Hz), rank_threshold 64 (ranks)
 *   [stacks] fp_threshold  0.75
 *   [debuginfod] enabled true, timeout 10 (seconds)
 *   [passes] witness 0.05
 *   [calibration] on_first_run true, budget 60 (seconds)
 *   [mpi] skip "MPI_Test,MPI_Iprobe" (none): the PMPI probe forwards them unmeasured
 *
 * Every key has a reader: stacks.fp_threshold and tools.objdump the
 * call-stack ladder (run/stage_stacks.c), passes.witness multi-pass
 * collection (run/stage_passes.c), tools.mpicc the MPI probes' build
 * (run/ranks_mpi.c), mpi.skip the ranks' launch (run/ranks.c), tools.git the
 * provenance. tools.mpifort was removed (the
 * PMPI library is C, built by mpicc, and serves Fortran too), like
 * thresholds.coverage and tools.mpip before it: a configuration that still
 * sets one gets the unknown-key warning.
 *
 * Ownership: a struct config owns all its strings; config__release() frees
 * them. Returned `const char *` are borrowed until the config is released or
 * the same key is set again. Not thread-safe for writers.
 */
#ifndef NUNATAK_COMMON_CONFIG_H
#define NUNATAK_COMMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct err;
typedef struct json_t json_t;

struct config_entry {
	char *key;
	char *value;
};

/* An ordered string map ([tools], [source_map]). */
struct config_map {
	struct config_entry *v;
	size_t n, cap;
};

struct config {
	char *name;      /* NULL: not configured (naming cascade continues) */
	char *runs_dir;  /* ".nunatak", relative to the cwd unless absolute */
	struct config_map tools;
	struct config_map source_map; /* old prefix -> new prefix, file order */
	int sampling_frequency_hz;    /* sampling.frequency */
	int rank_threshold;           /* sampling.rank_threshold */
	double fp_threshold;          /* stacks.fp_threshold */
	bool debuginfod_enabled;
	double debuginfod_timeout_s;
	double symbolizer_timeout_s;  /* symbolizer.timeout: seconds per symbolizer call */
	double passes_witness;
	bool calibration_on_first_run; /* calibration.on_first_run */
	double calibration_budget_s;   /* calibration.budget */
	char *mpi_skip;                /* mpi.skip: "MPI_X,MPI_Y" the probe leaves out, or NULL */
	char **warnings; /* unknown keys etc., in encounter order */
	size_t nr_warnings, cap_warnings;
	char *site_path;    /* the site file read, or NULL */
	char *project_path; /* the project nunatak.toml read, or NULL */
};

/* Fills defaults (all allocations inside). Returns 0 or -ENOMEM. */
int config__init(struct config *c);

/* config__init + site + project layers. `cwd` NULL: the process's cwd.
 * Returns 0, or negative with e filled (the config then still holds
 * defaults and whatever layers applied before the failure, and must be
 * released). */
int config__load(struct config *c, const char *cwd, struct err *e);

/* Applies one TOML file as a layer (a missing file is an error "toml.io"). */
int config__apply_file(struct config *c, const char *path, struct err *e);

/* Applies a parsed TOML document (borrowed); `origin` names it in messages. */
int config__apply_json(struct config *c, const json_t *doc, const char *origin,
		       struct err *e);

/* The flags layer: sets one dotted key from its command-line text
 * ("sampling.frequency", "997"; "tools.perf", "/opt/perf/bin/perf";
 * "name", "solver"). Parsed and range-checked like the TOML value.
 * Unknown keys are an error here (code "config.key"). */
int config__set(struct config *c, const char *key, const char *value, struct err *e);

/* The configured program for a tool ("perf" -> "perf" or the [tools] value);
 * an unknown tool name returns `tool` itself. Borrowed. */
const char *config__tool(const struct config *c, const char *tool);

/* The flat effective configuration recorded in a Run's provenance:
 * {"name": str|null, "runs_dir": ..., "tools.perf": ..., "source_map.<old>":
 *  "<new>", "sampling.frequency": 997, ...}.
 * New reference (caller decrefs) or NULL on out-of-memory. Flag-only values a
 * verb keeps outside the config (--source-map entries, a dwarf-lowered
 * frequency) are by design not in it. */
json_t *config__effective_json(const struct config *c);

void config__release(struct config *c);

#endif
