/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rank shim: what nunatak runs inside each MPI rank (REFERENCE.md §3
 * "MPI rank shim"). The run pipeline rewrites the launch into
 *   <launcher prefix> /abs/nunatak rank-shim --directory <run>/collect [opts] -- <app...>
 * so the launcher fans out shims, and each shim collects around its own rank
 * on the rank's own node: an outer sampler around mpirun would see none of
 * the ranks on other nodes and corrupt the ranks' counters.
 *
 * Where perf is missing or refuses to record, a sampling rank is sampled by
 * the preload sampler instead (sampler_lib via LD_PRELOAD, prepended to the
 * rank's own LD_PRELOAD); rank.json then names its .sps ("sps", relative to
 * the directory) and its role is "preload".
 *
 * Two layers: a subset of ranks samples (perf record, the run pipeline's
 * perf adapter options), every other rank counts (perf stat -x, task-clock
 * and, where the node has a hardware PMU, cycles and instructions). Who
 * samples: every rank when the world size is at most rank_threshold;
 * beyond it, or when the size is unknown, rank 0 and local rank 0 of each
 * node. Fallback order: sample -> count -> bare. perf opens its events
 * before it lets the application exec, so "no perf.data / no counter line"
 * proves the application never ran and it can run bare: never twice.
 *
 * Artefacts go to <directory>/rank-<N>/ on the shared filesystem: that *is*
 * the multi-node retrieval. rank.json = {rank, world_size, local_rank, node,
 * perf, perf_version, role, sampled, counted, events, preload, exit_code,
 * term_signal, runtime, degradations[]}. Outside any rank identity the
 * command runs untouched and nothing is written. The shim never writes to
 * the application's stdout/stderr; the application's exit code is returned.
 */
#ifndef NUNATAK_COLLECT_RANK_SHIM_H
#define NUNATAK_COLLECT_RANK_SHIM_H

#include <stdbool.h>
#include <sys/types.h>

struct executor;
struct err;

#define RANK_SHIM_DEFAULT_THRESHOLD 64
#define RANK_SHIM_MPI_PROFILE "mpi-profile.txt" /* in <directory>/rank-<N>/ */
/* the build-ids of the modules a sampling rank mapped, as `perf buildid-list`
 * prints them (perf record -B wrote none into perf.data) */
#define RANK_SHIM_BUILD_IDS "perf-buildid-list.txt"

struct rank_shim_opts {
	const char *directory;  /* <run>/collect (required) */
	int freq;               /* sampling frequency, Hz (0: PERF_DEFAULT_FREQ) */
	int rank_threshold;     /* 0: RANK_SHIM_DEFAULT_THRESHOLD */
	const char *perf;       /* perf to use (NULL: "perf" from PATH) */
	const char *call_graph; /* NULL, "fp", "lbr", "dwarf" */
	const char *preload;    /* library to LD_PRELOAD into the application, or NULL */
	const char *mpi_profile; /* nunatak's MPI interposition library (mpi/build.h), or
				    NULL: preloaded before `preload` and any LD_PRELOAD
				    the user set, with NUNATAK_MPI_PROFILE=<rank dir>/
				    RANK_SHIM_MPI_PROFILE for the application */
	const char *mpi_skip;   /* "MPI_X,MPI_Y" (mpi/skip.h), or NULL: set as
				   NUNATAK_MPI_SKIP for the application with
				   mpi_profile */
	bool clock_monotonic;   /* perf record -k CLOCK_MONOTONIC */
	const char *regions_name; /* the Run's name, or NULL: the application gets
				     SCOPE_PROFILER_PREFIX=<directory>/regions/<name>
				     set by the shim itself, on every node (mpirun's
				     own environment does not reach remote nodes) */
	const char *sampler_lib; /* libscope_profiler.so: the preload sampler stands in
				    for perf in a sampling rank where perf is missing or
				    refuses to record, or NULL: no stand-in */
	bool preload_only;      /* --collector preload: sample with sampler_lib, no perf */
	const char *status_file; /* relay mode (no rank, no collection): run the
				    application, write how it ended ("exit N" or
				    "signal N") to this file, exit 128+N for a
				    signal. perf stat runs the shim so in a counting
				    rank: it would exit 0 for an application killed
				    by a signal */
	const char *ompt_lib;   /* nunatak's OMPT tool, or NULL: the shim names it in the
				   application's OMP_TOOL_LIBRARIES with
				   NUNATAK_OMPT_DIR=<directory>/ompt on every node
				   (only libomp reads them), unless the rank's
				   environment names another tool or OMP_TOOL=disabled */
	int offcpu;             /* enum offcpu_mechanism (doctor/offcpu.h): OFFCPU_SWITCHES
				   adds --switch-events to a sampling rank's perf record
				   (its threads' wall, CPU and off-CPU time),
				   OFFCPU_STACKS the stacks at each switch out; a perf
				   that refuses them records without (announced) */
	const char *launch_machine; /* the launch node's Machine identity, or NULL: with
				       node_calibration_s > 0, local rank 0 of a node
				       of another Machine with no cached profile
				       calibrates it after its application
				       (machine/node_profile.h) */
	int node_calibration_s; /* the calibration budget (s); 0: never on a node */
	const char *cc;         /* [tools] cc for that calibration, or NULL */
	bool perf_script;       /* also write perf-script.txt + perf-buildid-list.txt
				   in the rank (ingestion reads perf.data directly;
				   this is for formats its reader refuses) */
	bool split_writer;      /* in a rank, split first (exec_rank_split): the pid the
				   launcher knows waits in the launcher's group with
				   the application, the collection runs out of its
				   reach (`nunatak rank-shim` only; never in tests
				   that call rank_shim_run in-process) */
	pid_t app_pgid;         /* relay mode: the process group the application
				   starts in (the rank's launcher-facing group), or 0 */
	bool tool_cache;        /* perf --version through the user's tools' cache
				   (exec/cache.c, keyed by perf's identity), opened
				   only then, after the application (`nunatak
				   rank-shim`); false: through x, as every call */
};

/* Beside the ranks' directories in <directory>: the rank shims' writers hold
 * its shared lock while they write (exec_rank_split); `nunatak run` waits
 * for them after the launcher ended (exec_request.writers_lock). */
#define RANK_SHIM_WRITERS_LOCK ".rank-writers"

/* Returns a variable of the rank's environment, or NULL (getenv-like). */
typedef const char *(*rank_shim_getenv)(const char *name, void *ctx);

struct rank_shim_result {
	bool in_rank;     /* a rank identity was found (artefacts were attempted) */
	int rank;         /* -1 outside a rank */
	const char *role; /* "sampler", "counter", "bare", or "outside" (static) */
	int exit_code;    /* the application's: 0..255, 128+N when killed by N */
	int term_signal;  /* N when the application was killed by signal N */
};

/* Whether this rank samples (see the top of this file). */
bool rank_shim_samples(int rank, int world_size, int local_rank, int threshold);

/*
 * Runs app (NULL-terminated) in this rank through x with collection around
 * it, and writes the rank's artefacts. getenv_fn NULL reads the process
 * environment. Returns 0 with *res filled (whatever the application's exit
 * code), or a negative error with e filled when nunatak itself failed
 * before the application could be started (out of memory).
 */
int rank_shim_run(struct executor *x, const struct rank_shim_opts *o, char *const *app,
		  rank_shim_getenv getenv_fn, void *ctx, struct rank_shim_result *res,
		  struct err *e);

/*
 * The shim's own argv for the rewritten launch: `<self> rank-shim
 * --directory D --frequency F --rank-threshold T [--perf P] [--call-graph M]
 * [--preload L] [--sampler-lib L] [--preload-only] [--mpi-profile LIB]
 * [--offcpu switches|stacks] [--ompt-lib LIB]
 * [--regions-name N] [--clock-monotonic] [--perf-script] --`. self should be absolute
 * (rank_shim_self_exe) so it resolves on every node. Returns a
 * NULL-terminated array, caller frees with rank_shim_argv__free(); NULL on
 * ENOMEM.
 */
char **rank_shim_argv(const char *self, const struct rank_shim_opts *o);
void rank_shim_argv__free(char **argv);

/* The absolute path of the running nunatak (/proc/self/exe), caller frees;
 * NULL when it cannot be read. */
char *rank_shim_self_exe(void);

#endif
