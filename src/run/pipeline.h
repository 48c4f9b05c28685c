/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pipeline of `nunatak run`: a fixed sequence of stages, each a function
 * taking the Run in progress (struct run_state). cmd_run.c parses options,
 * fills struct run_request, and calls run_pipeline(); it never contains a
 * stage itself. docs/pipeline.md describes every stage and the hook points
 * of attribution (attrib/) and MPI (launch/ + the rank shim).
 *
 * Stage contract: return 0 to continue; a negative value with `e` filled
 * stops the pipeline. Before the application launched that is a failure
 * before launch (exit 125); after, the remaining "finishing" stages (ingest,
 * attribute, store, analyse) still run so a complete Run is always written.
 * A missing capability is never an error: it is a degradation added to
 * s->degradations (announced through the console as soon as known).
 */
#ifndef NUNATAK_RUN_PIPELINE_H
#define NUNATAK_RUN_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/collector.h"
#include "tools/caps.h"
#include "tools/perf.h"
#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "common/err.h"
#include "model/model.h"
#include "model/node_machines.h"
#include "store/manifest.h"

struct console;
struct executor;
struct err;
struct config;
struct machine;
struct attrib_tools;
struct attrib_kprefetch;
struct run_store_job;
typedef struct json_t json_t;

/* What the user asked, from the command line (cmd_run.c fills it; borrowed). */
struct run_request {
	const char *name;          /* --name, or NULL */
	const char *output;        /* -o DIR, or NULL */
	int freq;                  /* --freq, 0: configuration (default 997) */
	bool json;
	bool strict;
	bool no_source;
	bool no_calibrate;         /* --no-calibrate */
	const char *record_entry;  /* --record ENTRY, or NULL */
	const char *replay_entry;  /* --replay ENTRY, or NULL */
	const char *const *source_map; /* "OLD=NEW" entries from --source-map */
	size_t nr_source_map;
	enum collector_request collector; /* --collector auto|perf|preload */
	const char *call_graph;    /* --call-graph lbr|fp|dwarf|none, or NULL: the ladder */
	const char *offcpu;        /* --offcpu auto|switches|process, or NULL: auto */
	bool multi_pass;           /* --multi-pass (collect/passes.h) */
	const char *mpi_skip;      /* --mpi-skip MPI_X,MPI_Y, or NULL: configuration mpi.skip */
	char **cmd;                /* the command after `--`, NULL-terminated */
	int cmd_argc;
};

/* One pass of collection (an entry of the manifest's passes[]):
 * s->collect.passes[0] for a single-pass Run, s->collect.passes[i] under
 * --multi-pass. */
struct run_pass {
	int index;
	bool skipped;         /* never ran: an earlier pass failed */
	bool script_ok;       /* its perf-script.txt was extracted (replay, record) */
	bool counters;        /* perf accepted its counter group */
	int exit_code;        /* the application's, -1 when it never ran */
	int term_signal;      /* signal that ended it, 0 when none */
	int interrupted_by;   /* signal nunatak received while it ran (Ctrl-C ...), 0: none */
	bool abandoned;       /* a second one: its process tree was killed, not waited for */
	char start[32];       /* ISO-8601 UTC */
	char end[32];
	double duration_s;
	bool sampled;         /* a sampling collector ran around it */
	double cpu_user_s, cpu_sys_s; /* wait4's rusage of the launch, < 0: unknown */
};

/* The Run computed once, after attribution (stages analyse, store, report,
 * manifest): the analysis and rank view the page, the terminal summary and
 * the --json document all read; the manifest built in memory, written once
 * (after the provisional one) when every file it lists is on disk. */
struct run_result {
	struct analysis analysis;
	bool have_analysis;         /* analysis_run_bounded succeeded */
	struct rank_imbalance ranks;
	bool have_ranks;            /* imbalance_ranks succeeded (MPI or not) */
	struct manifest manifest;
	bool have_manifest;         /* stage_store filled it */
	char *report_path;          /* report.html when written, or NULL */
	bool pivot_unwritten;       /* stage_store could not write pivot.sqlite: the Run is incomplete */
	json_t *overhead;           /* manifest "overhead" object, or NULL (owned) */
	json_t *nodes;              /* manifest "nodes" (run/node_ceilings.c), or NULL (owned) */
	struct run_ceilings run_ceilings; /* the Run's roof when its nodes' sum (the analysis
					     borrows them), else .applies false */
};

/* The Run in progress, passed to every stage. Owned by run_pipeline(). */
struct run_state {
	/* inputs (borrowed) */
	const struct run_request *req;
	struct console *con;
	struct executor *x;      /* real, recording or replay */
	bool replay;
	const json_t *recorded_meta; /* meta.json under replay, else NULL (borrowed from x) */

	/* configuration (stage "config") */
	struct config *cfg;          /* effective configuration (common/config.h) */
	int freq;                    /* sampling frequency actually used */
	struct run_provenance {      /* the manifest's provenance, as the stages learn it */
		json_t *effective_config; /* flat dict of the configuration used (owned) */
		json_t *dependencies;     /* {name: version} (owned), or NULL */
		char *mpi_probe;          /* the MPI interposition library's description when
					     injected into the ranks ("v1 for libmpi.so.40"), owned */
	} prov;

	/* launch split (stage "launch"; HOOK(mpi) fills prefix/world_size) */
	struct run_launch {
		char **prefix;     /* launcher prefix, NULL-terminated; the array is owned,
				      the strings borrow req->cmd */
		char **app;        /* the application argv, same ownership */
		bool mpi;          /* prefix fans out MPI ranks */
		const char *launcher; /* the MPI launcher's token (borrowed from req->cmd), or NULL */
		int world_size;    /* -1 when unknown */
		const char *target; /* the real target token (borrowed from app), for naming */
	} launch;

	/* machine (stage "machine") */
	struct machine *machine; /* snapshot, or the recording's (owned) */
	char *cpuinfo;      /* /proc/cpuinfo text or recorded meta cpuinfo, or NULL (owned) */

	/* run directory (stage "rundir") */
	struct run_dir {
		char *name;         /* sanitized Run name (owned) */
		char *dir;          /* the Run directory (owned) */
		char *collect_dir;  /* <dir>/collect (owned) */
		char created[32];   /* ISO-8601 UTC */
	} rundir;

	/* collection (stages "preload", "stacks", "collect", then "ingest"
	 * reads it): who collects, with what, and every pass's outcome */
	struct run_collection {
		struct caps caps;           /* the capability probe: perf, permission */
		bool sampling_blocked;      /* perf absent or forbidden: no collector */
		const struct counter_group *group; /* the µarch's counter group, or NULL */
		enum collector_kind collector; /* the collector this Run uses (collect/collector.h) */
		int stacks;                 /* enum stacks_mode (collect/stacks.h) perf records with */
		int offcpu;                 /* enum offcpu_mechanism (doctor/offcpu.h) */
		char *preload_lib;          /* libscope_profiler.so injected, or NULL (owned) */
		struct collector *coll;     /* the collector that ran (collect/collector.h), owned */
		char *perf_data;            /* pass 0's perf.data, for the regions' meet (owned) */
		bool rejected;              /* perf record refused every rung of the ladder */
		/* The passes, held once: passes[0] is the Run's (the single pass,
		 * or --multi-pass's pass 0, whose exit code the Run returns). */
		struct run_pass passes[4];
		int nr_passes;              /* passes --multi-pass ran (stage_passes.c), 0: one pass */
		struct pass_plan *plan;     /* --multi-pass's passes (owned), or NULL: one pass */
		json_t *multi_pass_json;    /* manifest "multi_pass" (owned), or NULL */
	} collect;

	/* ingestion + attribution (stages "ingest", "attribute") */
	struct attrib_tools *tools; /* located before launch (doctor), owned */
	/* the kernel's symbol table read as perf starts (attrib.h), owned:
	 * freed by stage_attribute, else at release */
	struct attrib_kprefetch *kprefetch;
	struct pivot pivot;
	/* pivot.sqlite being written while the page renders (stages.h), or NULL */
	struct run_store_job *store_job;
	struct collect_counts counts; /* what ingest counted: samples (over passes), and
					 under MPI the ranks seen and sampled (0 outside) */

	/* nunatak's own cost (run/run_cost.c, manifest "cost"): monotonic
	 * seconds at the start, the launch, the application's end; the
	 * calibration's and the network probe's wall time (< 0: did not run) */
	struct run_cost_clock {
		double start, launch, app_end, calibrate_s, netprobe_s;
		double app_launch, app_stop; /* the application itself (0: unknown) */
		bool netprobe_cached;        /* the network Ceilings came from the cache */
	} cost;

	/* where the network Ceilings came from (run/ranks_mpi.c): the nodes the
	 * ping-pong ran on, when, from the cache or now; checked once the
	 * application's nodes are known (run_netceil_check) */
	struct run_netceil {
		char *nodes;     /* "n1,n2", or NULL: not said (owned) */
		long long at;    /* Unix time of the measurement */
		bool cached;
		json_t *stored;  /* a hit's Ceilings as stored, restored when checked (owned) */
		char *source;    /* the manifest's and the summary's sentence (owned) */
	} netceil;

	/* degradations, outcome (provenance is collected by stage_store) */
	/* the application's extra environment (stage_regions.c, the OMPT tool) */
	struct run_app_env {
		char *regions; /* "SCOPE_PROFILER_PREFIX=<collect>/regions/<name>" (owned) */
		const char *set[4]; /* {regions, ompt..., NULL}: what the launch adds */
		char *ompt_dir; /* <collect>/ompt, where the OMPT tool writes, or NULL: not added (owned) */
		char *ompt[2];  /* OMP_TOOL_LIBRARIES=..., NUNATAK_OMPT_DIR=... (owned) */
	} env;

	struct degradations degradations;
	bool launched;              /* the application was started */
	int exit_code;              /* what `nunatak run` returns */
	struct run_result out;      /* analysis, rank view, manifest, page (once) */
	struct err error;           /* why the Run stopped before launch (for --json) */
};

/* Runs every stage in order (see docs/pipeline.md). Returns the exit code
 * `nunatak run` must return: the application's own, 125/126/127 before
 * launch, 121 under --strict with a degradation. The JSON document for --json
 * is written into *json_out (caller frees with json_decref), or NULL; when
 * it is a failure's document, *failure holds the error's code and message
 * for the caller to add (cli_error_json), else failure->code stays empty. */
int run_pipeline(const struct run_request *req, struct console *con, json_t **json_out,
		 struct err *failure);

/* Frees everything a run_state owns (safe on a partially filled state). */
void run_state__release(struct run_state *s);

/* The application's outcome from its executor result into a pass. */
struct exec_result;
void run_pass__take(struct run_pass *p, const struct exec_result *res);

/* The first signal nunatak received while any pass ran, 0: none. */
int run_interrupted_by(const struct run_state *s);

/* What collectors see of the Run (collect/collector.h), borrowed from s. */
struct collect_env;
void run_state__collect_env(struct run_state *s, struct collect_env *env);

/* Adds a degradation and, unless already known (same name and message),
 * announces it on the console at once. Returns 0 or -ENOMEM. */
int run_state__degrade(struct run_state *s, const char *name, const char *message,
		       const char *remedy);

#endif
