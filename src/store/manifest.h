/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * manifest.json: the plain-JSON description of a Run, readable without
 * nunatak (documented field by field in docs/run-format.md):
 *
 *   format{name:"nunatak-run", schema:2, generated_by}
 *   run{name, created, command[], exit_code, world_size?, signal?, interrupted_by?,
 *       status, outcome}               world_size: MPI ranks announced by the launcher
 *                                       (absent when unknown); signal: the name of the
 *                                       signal that ended the application ("SIGSEGV");
 *                                       interrupted_by: the signal nunatak received
 *                                       ("SIGINT": Ctrl-C); status complete|incomplete|
 *                                       abandoned; outcome: one sentence saying it all
 *   machine{...}                        complete snapshot + ceilings (machine/snapshot.h)
 *   provenance{commit, dirty_tree, dependencies{}, effective_configuration{}}
 *   passes[{index, exit_code, signal?, interrupted_by?, start, end, collectors[]}]
 *   degradations[{name, message, remedy}]
 *   files{table: relpath}
 *   overhead{...}                       optional (the sampling overhead)
 *   cost{setup, calibration, network_probe, collection_overhead, finish}
 *                                       optional (nunatak's own cost by part)
 *
 * Versioning: RUN_SCHEMA bumps only for incompatible changes; additive keys
 * and tables do not bump it, and readers ignore keys they do not know.
 * Readers refuse a newer schema, a foreign format.name and a directory
 * without manifest.json, each with a message saying what to do.
 *
 * Ownership: struct manifest owns everything it points to, including the
 * json_t members (one reference each); manifest__release() frees it all.
 */
#ifndef NUNATAK_STORE_MANIFEST_H
#define NUNATAK_STORE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "model/machine.h"
#include "model/model.h"

struct err;
typedef struct json_t json_t;

#define RUN_FORMAT_NAME "nunatak-run"
#define RUN_SCHEMA 2
#define MANIFEST_FILE "manifest.json"
#define MANIFEST_MAX_BYTES (64u << 20)

struct manifest_collector { /* a pass's collectors[]: tool and version */
	char *tool;
	char *version; /* NULL when the tool gave none */
};

struct pass {
	int index;
	int exit_code;     /* -1 when the pass never ran to an exit */
	char *start, *end; /* ISO-8601 with offset, or NULL */
	double duration_s; /* monotonic clock, from launch to exit; 0: unknown (replay) */
	/* wait4's rusage of the launch: the application and, when the collector
	 * wraps it (perf record), the collector's own CPU time; < 0: unknown */
	double cpu_user_s, cpu_sys_s;
	bool cpu_includes_collector;
	int term_signal;   /* the signal that ended it, 0: none */
	int interrupted_by; /* the signal nunatak received while it ran, 0: none */
	struct manifest_collector *collectors;
	size_t nr_collectors;
};

struct provenance {
	char *commit;      /* git HEAD, NULL outside a repository or without git */
	int dirty_tree;    /* 1 dirty, 0 clean, -1 unknown */
	json_t *dependencies;            /* object {name: version}, or NULL = {} */
	json_t *effective_configuration; /* object (flat "section.key": value), or NULL = {} */
};

struct run_file {
	char *table;   /* "pivot", "perf.data", "report" ... */
	char *relpath; /* relative to the Run directory */
};

/* How far the Run got (run.status). An older Run without the key is complete. */
enum run_status {
	RUN_STATUS_COMPLETE,   /* every stage ran: pivot, report */
	RUN_STATUS_INCOMPLETE, /* the application ended; post-processing did not finish
				  (nunatak was killed, crashed or is still at it) */
	RUN_STATUS_ABANDONED,  /* a second interrupt: nunatak stopped waiting */
};
const char *run_status__name(enum run_status st);

struct manifest {
	int schema;          /* RUN_SCHEMA when written by us; what was read otherwise */
	char *generated_by;  /* "nunatak 0.1.0" */
	char *name;
	char *created;       /* ISO-8601 with UTC offset, second precision */
	char **command;
	size_t nr_command;
	int exit_code;       /* the application's; -1 when unknown (never launched) */
	int world_size;      /* MPI ranks the launcher announced; -1 unknown / not MPI */
	int term_signal;     /* the signal that ended the application, 0: none */
	int interrupted_by;  /* the signal nunatak received while it ran, 0: none */
	enum run_status status;
	struct machine machine;
	struct provenance provenance;
	struct pass *passes;
	size_t nr_passes;
	struct degradations degradations;
	struct run_file *files;
	size_t nr_files;
	json_t *overhead;    /* optional object, NULL when absent */
	json_t *cost;        /* optional: nunatak's own cost by part, NULL when absent */
	json_t *multi_pass;  /* optional object (--multi-pass: witness, totals, spread) */
	json_t *nodes;       /* optional array: each node's Machine and the Ceilings its
				ranks are placed against (model/node_machines.h) */
};

void manifest__init(struct manifest *m);
void manifest__release(struct manifest *m);

/* Builders: copy their arguments. Return 0 or -ENOMEM. */
int manifest__set_command(struct manifest *m, const char *const *argv, size_t argc);
int manifest__add_pass(struct manifest *m, int index, int exit_code, const char *start,
		       const char *end);
/* Adds a collector to the last pass (there must be one). */
int manifest__add_collector(struct manifest *m, const char *tool, const char *version);
/* Records (or replaces) the relative path of a table/artefact. */
int manifest__set_file(struct manifest *m, const char *table, const char *relpath);

/* The JSON document (new reference, caller json_decref()s), NULL on ENOMEM. */
json_t *manifest__to_json(const struct manifest *m);
/* Parses a document; checks format.name and schema (see manifest__read).
 * `origin` names the source in messages. m must be initialised. */
int manifest__from_json(struct manifest *m, const json_t *doc, const char *origin,
			struct err *e);

/* Writes <run_dir>/manifest.json atomically (temp + fsync + rename): a crash
 * or a failure leaves the previous manifest, if any, intact. */
int manifest__write(const struct manifest *m, const char *run_dir, struct err *e);

/* The same into <run_dir>/<file> (a manifest kept ready to be renamed into
 * place: the abandoned Run's, see run/pipeline.c). */
int manifest__write_as(const struct manifest *m, const char *run_dir, const char *file,
		       struct err *e);

/* Reads <run_dir>/manifest.json. Errors (e->code):
 *  run.not_a_run   "not a nunatak Run: <dir> has no manifest.json" (or
 *                  "... <dir> does not exist", "... <dir> is a file; ...")
 *  run.foreign     format.name is not "nunatak-run"
 *  run.newer_schema "Run written with schema N, newer than the supported 2;
 *                   upgrade nunatak to read it"
 *  run.corrupt     invalid JSON (with line:column) or a field of the wrong type
 * Returns 0 or a negative errno. */
int manifest__read(struct manifest *m, const char *run_dir, struct err *e);

/* Same checks on bytes already in memory (for the fuzzer and tests). */
int manifest__parse(struct manifest *m, const char *text, size_t len, const char *origin,
		    struct err *e);

#endif
