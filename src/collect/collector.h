/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which CPU collector a Run uses (`--collector auto|perf|preload`), and the
 * preload sampler's injection. `auto` uses perf where it can sample;
 * otherwise libscope_profiler is injected into the unmodified application
 * with LD_PRELOAD (SCOPE_PROFILER_SAMPLE_HZ starts its CPU-time timers from
 * the library's constructor), prepended to the user's own LD_PRELOAD so both
 * load. The application is never relinked and never run twice: perf fails
 * before it launches the application, so falling back after a refusal still
 * runs it once.
 */
#ifndef NUNATAK_COLLECT_COLLECTOR_H
#define NUNATAK_COLLECT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"

struct console;
struct counter_group;
struct err;
struct exec_result;
struct executor;
struct ingest_opts;
struct perf_tool;
struct pivot;

enum collector_request { COLLECTOR_AUTO = 0, COLLECTOR_PERF, COLLECTOR_PRELOAD };
enum collector_kind { COLLECTOR_NONE = 0, COLLECTOR_USE_PERF, COLLECTOR_USE_PRELOAD };

/* "auto", "perf", "preload" -> *out. Returns 0 or -EINVAL. */
int collector_request__parse(const char *s, enum collector_request *out);
const char *collector_kind__name(enum collector_kind k); /* "perf", "preload", "none" */

/* The decision, pure: what was asked, whether perf can sample, whether the
 * preload library is there. */
enum collector_kind collector_choose(enum collector_request req, bool perf_can_sample,
				     bool preload_found);

/* "LD_PRELOAD=<lib>[:<existing>]" (caller frees); existing may be NULL/empty.
 * NULL when out of memory. */
char *collector_ld_preload(const char *lib, const char *existing);

/*
 * The Collector interface: one implementation per way of measuring the
 * application (perf record, the preload sampler, bare, the MPI ranks; off-CPU
 * and OpenMP collectors plug in the same way), driven by run/ in this order:
 *
 *   prepare  before launch: the pass's files, probes; may be NULL
 *   launch   runs the application exactly once around the pass; returns 0
 *            when it ran (res filled), 1 when the collector refused before
 *            starting it (the driver launches it with another collector: it
 *            has not run), < 0 with e filled when nunatak failed
 *   extract  after the application: raw outputs into the pass's files
 *            (perf script, perf buildid-list); may be NULL
 *   ingest   the pass's raw outputs -> the pivot; may be NULL
 *   describe what collected, for the collecting line and the manifest
 *
 * Every process goes through env->x (the execution boundary), so recording
 * and replay see each collector's calls in the order the corpus holds them.
 * A collector never prints to stdout; it speaks through env->con and records
 * lost measurements with env->degrade (DEG_* kinds, common/degradation_kinds.h).
 */

/* The Run as collectors see it; borrowed, filled by run/. */
struct collect_env {
	struct executor *x;
	struct console *con;
	bool replay;                  /* answers come from a recording */
	bool recording;               /* --record: the corpus holds perf script's output */
	int freq;                     /* sampling frequency, Hz */
	char *const *app;             /* the application's argv, NULL-terminated */
	const char *const *env_set;   /* extra environment of the application (exec_request) */
	const char *collect_dir;      /* <run>/collect */
	/* Records a degradation (announced at once when new); returns 0 or -ENOMEM. */
	int (*degrade)(void *run, const char *name, const char *message, const char *remedy);
	void *run;
};

/* One pass of collection: its files (owned) and what happened to it. */
struct collect_pass {
	int index;            /* 0 for a single pass */
	const char *label;    /* "pass 1: memory" on the collecting line, or NULL (borrowed) */
	char *dir;            /* collect/, or collect/pass-<i>/ under --multi-pass (owned) */
	char *perf_data;      /* <dir>/perf.data (owned) */
	char *script_path;    /* <dir>/perf-script.txt (owned) */
	char *buildid_path;   /* <dir>/perf-buildid-list.txt (owned) */
	bool launched;        /* the application was started */
	bool sampled;         /* a sampling collector ran around it */
	bool script_ok;       /* perf-script.txt was extracted */
	int collector_exit;   /* perf's own exit code when it was not the application's
				 (perf stopped early: a full disk, a write error), else -1 */
	char start[32];       /* ISO-8601 UTC */
	char end[32];
	double duration_s;
	double mono_start, mono_end; /* CLOCK_MONOTONIC s around the application
					(the first and last pass's), 0: not run */
	const char *return_ns; /* while perf runs in a mount namespace of its own
				  (collect/perf_kallsyms.h): fg-exec's --return-ns, else
				  NULL (borrowed) */
};

/* The pass's files under collect_dir (own_dir: in collect/pass-<index>/,
 * created). Returns 0, -ENOMEM or -errno; release with
 * collect_pass__release() either way. */
int collect_pass__init(struct collect_pass *p, const char *collect_dir, int index, bool own_dir);
void collect_pass__release(struct collect_pass *p);

/* What ingest counted. */
struct collect_counts {
	int64_t nr_samples;   /* samples ingested (all counters) */
	int64_t nr_switches;  /* context switches out that perf recorded (0: none
				 recorded, or no --switch-events) */
	int nr_ranks;         /* MPI: ranks announced or seen (0 outside MPI) */
	int nr_sampled_ranks; /* MPI: ranks whose samples were ingested */
	/* MPI: the first rank's start and the last rank's end (ingest/ranks.h),
	 * on this node's monotonic clock; nr_clocked 0 when no rank said */
	int nr_clocked;
	bool clock_by_wall;
	double ranks_started, ranks_ended;
};

struct collector;
struct collector_ops {
	const char *name; /* "perf", "preload", "bare" */
	int (*prepare)(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct err *e);
	int (*launch)(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		      struct exec_result *res, struct err *e);
	int (*extract)(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct err *e);
	int (*ingest)(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		      const struct ingest_opts *o, struct pivot *pivot, struct collect_counts *out,
		      struct err *e);
	/* Why launch returned 1 (refused to start), or NULL; may be NULL. */
	const char *(*refusal)(const struct collector *c);
	/* "perf 6.1.55 record", "preload sampler", "bare" into buf[cap]. */
	void (*describe)(const struct collector *c, char *buf, size_t cap);
	void (*free)(struct collector *c);
};

/* Implementations embed this first. */
struct collector {
	const struct collector_ops *ops;
};

/* Dispatch; a NULL hook is a no-op returning 0. */
int collector__prepare(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct err *e);
int collector__launch(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		      struct exec_result *res, struct err *e);
int collector__extract(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct err *e);
int collector__ingest(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		      const struct ingest_opts *o, struct pivot *pivot, struct collect_counts *out,
		      struct err *e);
void collector__describe(const struct collector *c, char *buf, size_t cap);
void collector__free(struct collector *c); /* accepts NULL */

/* The application, once, through the execution boundary: signals forwarded,
 * the pass's start, end and duration set. wrapper_output: the file a
 * wrapping collector (perf record) writes, which tells perf's re-raise of
 * the application's signal from perf being killed; NULL when unwrapped.
 * Returns executor__run()'s result. The one launch every collector uses. */
/* argv (`perf ... -- app args`) with `nunatak fg-exec --pgid <ours> --` put
 * before the application: run with exec_request.own_pgrp, perf stays out of
 * the terminal's foreground group and the application comes back into it.
 * NULL when argv has no command after `--` or on allocation failure (run argv
 * as it is). status_fd >= 0: fg-exec relays the application as its child
 * and writes how it ended there (exec_become). Freed with
 * collect_fg_argv__free. pgid > 0: the group the application joins instead of
 * ours (a rank's launcher-facing group, exec_rank_split). */
char **collect_fg_argv(char *const *argv, int status_fd, pid_t pgid);
/* The same with `--return-ns WORD` (borrowed) when return_ns is not NULL:
 * fg-exec goes back to the caller's mount namespace first
 * (collect/perf_kallsyms.h). Freed by collect_fg_argv__free. */
char **collect_fg_argv_ns(char *const *argv, int status_fd, pid_t pgid, const char *return_ns);
void collect_fg_argv__free(char **v);
/* env_set holds an LD_PRELOAD: no fg-exec then (it would load it too). */
bool collect_env_preloads(const char *const *env_set);
int collect_run_app(const struct collect_env *env, struct collect_pass *p, char *const *argv,
		    const char *wrapper_output, struct exec_result *res, struct err *e);
/* The same for an MPI launch of world_size ranks (-1: unknown) wrapped in
 * rank shims: an interrupt goes to the ranks, and to the launcher only when
 * not all of them run below it here (exec_request.local_ranks). */
int collect_run_ranks(const struct collect_env *env, struct collect_pass *p, char *const *argv,
		      int world_size, struct exec_result *res, struct err *e);

/* The application alone: no collector ("launching: <argv>"). */
struct collector *collector_bare__new(void);

/* perf record around the application, stepping down a ladder of options
 * when perf rejects them (the counter group, then the call stacks, then
 * -k CLOCK_MONOTONIC), then perf script and buildid-list (extract) and
 * perf.data or perf script into the pivot (ingest). perf (borrowed) is the
 * probed tool; group (borrowed, may be NULL), stacks (enum stacks_mode,
 * 0: none) and offcpu (enum offcpu_mechanism, doctor/offcpu.h: context
 * switches, their call stacks) what to ask for. NULL when
 * out of memory. */
struct collector *collector_perf__new(const struct perf_tool *perf,
				      const struct counter_group *group, int stacks, int offcpu);
/* After launch: the group and stacks perf accepted (NULL / 0 when it
 * refused them), and, when launch returned 1, why perf refused to start. */
const struct counter_group *collector_perf__group(const struct collector *c);
int collector_perf__stacks(const struct collector *c);
const char *collector_perf__refusal(const struct collector *c);
/* Whether c is the perf collector. */
bool collector_is_perf(const struct collector *c);

/* libscope_profiler injected with LD_PRELOAD (lib borrowed) before the
 * user's own LD_PRELOAD, at env->freq; its .sps files, written beside the
 * region traces (SCOPE_PROFILER_PREFIX in env->env_set), under
 * collect/regions/ ingested. NULL when out of memory. */
struct collector *collector_preload__new(const char *lib);

/* --multi-pass: a wrapper around perf collectors, one per pass of plan
 * (collect/passes.h, borrowed for the collector's life), each with the
 * pass's counter group and its own collect_pass in collect/pass-<i>/. Its
 * launch runs the passes in order (the application once per pass; a pass
 * that fails or is interrupted ends them: passes-skipped), extracting each
 * for a corpus entry; it returns 1 when pass 0's perf refused to start (the
 * driver falls back to one pass), and fills res with pass 0's outcome. A
 * later pass refused runs bare (cpu-collection-failed). Its ingest reads
 * every sampled pass as its pass_index. NULL when out of memory. */
struct pass_plan;
struct collector *collector_passes__new(const struct pass_plan *plan,
					const struct perf_tool *perf, int stacks, int offcpu);
bool collector_is_passes(const struct collector *c);
/* What one pass did, after launch: outcomes 0 .. collector_passes__nr()-1. */
struct pass_outcome {
	struct collect_pass pass;   /* its files, times, sampled, script_ok */
	struct exec_result res;     /* the application's outcome (out, err NULL) */
	bool skipped;               /* never ran: an earlier pass failed */
	bool counters;              /* perf kept the pass's counter group */
	const struct counter_group *group; /* the group and stacks perf accepted */
	int stacks;
};
int collector_passes__nr(const struct collector *c);
const struct pass_outcome *collector_passes__outcome(const struct collector *c, int i);

/* Why the collector refused to start (launch returned 1): perf's, or the
 * passes' (pass 0's perf). NULL otherwise. */
const char *collector__refusal(const struct collector *c);

/* An MPI launch (launch/split.h): the launcher runs `nunatak rank-shim`
 * (options o, borrowed until this returns) before the application, once;
 * the ranks collect themselves into collect/rank-<N>/, ingested with the MPI
 * calls the interposition recorded (ingest/ranks.h, ingest/mpi.h). prefix
 * and app (the split) and cmd (the whole command) are borrowed for the
 * collector's life. o NULL: no application could be told apart from the
 * launcher's options, and cmd runs uncollected (the rank directories are
 * still read: none). NULL with e filled when the launch cannot be built. */
struct rank_shim_opts;
struct collector *collector_mpi_ranks__new(const struct rank_shim_opts *o, char *const *prefix,
					   char *const *app, char *const *cmd, int world_size,
					   struct err *e);

#endif
