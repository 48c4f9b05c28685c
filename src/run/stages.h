/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stages of the run pipeline (docs/pipeline.md), each
 * `int stage_<name>(struct run_state *s, struct err *e)`: 0 to continue, a
 * negative value with e filled to stop. Internal to src/run/ (the
 * pipeline and its stage_*.c files); cmd_run.c only calls run_pipeline().
 */
#ifndef NUNATAK_RUN_STAGES_H
#define NUNATAK_RUN_STAGES_H

#include <stdbool.h>
#include <stddef.h>

struct run_state;
struct err;
struct exec_result;
struct ingest_opts;
struct lines_run;
typedef struct json_t json_t;

/* Before launch (a failure exits 125). */
int stage_config(struct run_state *s, struct err *e);
int stage_launch(struct run_state *s, struct err *e);
int stage_detect_perf(struct run_state *s, struct err *e);
int stage_doctor(struct run_state *s, struct err *e);
int stage_machine(struct run_state *s, struct err *e);
/* The Machine's Ceilings: cached, calibrated, or theoretical (stage_calibrate.c). */
int stage_calibrate(struct run_state *s, struct err *e);
int stage_rundir(struct run_state *s, struct err *e);
/* SCOPE_PROFILER_PREFIX=<collect>/regions/<name> for the application. */
int stage_regions_env(struct run_state *s, struct err *e);
/* nunatak's OMPT tool for the application (stage_ompt.c): run_ompt_env adds
 * OMP_TOOL_LIBRARIES and NUNATAK_OMPT_DIR to app_env_set (from
 * stage_regions_env), run_ompt_ingest reads its profiles (from stage_ingest). */
int run_ompt_env(struct run_state *s, struct err *e);
int run_ompt_ingest(struct run_state *s, struct err *e);
/* Names the OMPT region sites (file:line of the fork), from stage_attribute,
 * with what the Run's symbolizer calls share (regions/lines_symbolize.h,
 * or NULL). */
int run_ompt_symbolize(struct run_state *s, const struct lines_run *run, struct err *e);
/* The call-stack ladder or --call-graph (collect/stacks.h): s->collect.stacks. */
int stage_stacks(struct run_state *s, struct err *e);
/* The target as objdump and ldd need it: a path, or the PATH lookup of a
 * bare name (the name itself under replay). Caller frees; NULL without one. */
char *run_target_path(const struct run_state *s);
/* The Run's provenance.dependencies.compiler: what built the target, from
 * its ELF .comment section (not under replay: the file read now need not be
 * the one recorded). Once; nothing when the target is no ELF or says nothing. */
void run_note_compiler(struct run_state *s);
/* The launch itself: the application once, through the Run's collector
 * (s->collect.coll, collect/collector.h). */
int stage_collect(struct run_state *s, struct err *e);
/* One pass through s->coll (set by the caller): when perf refuses to start,
 * the preload sampler (announced) or the bare collector takes over and the
 * application runs once all the same (s->collect.rejected). Syncs s->collect.group,
 * s->collect.stacks and s->launched. Returns collector__launch()'s < 0 or 0. */
struct collect_pass;
int collect_one_pass(struct run_state *s, struct collect_pass *p, struct exec_result *res,
		     struct err *e);
/* The collector (collect/collector.h), decided once perf was probed: sets
 * s->collect.collector and announces a stand-in or a missing collector. */
int collector_decide(struct run_state *s, bool perf_can_sample, const char *why_not);
/* perf refused to record before starting the application: under `auto`,
 * the preload sampler stands in (announced). False when it cannot. */
bool collector_fallback_preload(struct run_state *s, const char *why);
/* --multi-pass (collect/passes.h): the plan, and the passes collector
 * (collect/collector.h) as s->collect.coll. Returns 0 when it is set, 1 when
 * multi-pass is unavailable here (announced: the caller runs one pass), or
 * a negative error. */
int collect_passes(struct run_state *s, struct err *e);
/* After the passes ran: their outcomes into s->collect.passes (pass 0's
 * exit code is the Run's), and the group and stacks perf kept. */
void passes_take(struct run_state *s);
/* After attribution of every pass: witness spread, recompiled modules, a
 * DRAM bound (stage "passes"; nothing for a single pass). */
int stage_passes(struct run_state *s, struct err *e);

/* After launch: each runs even when an earlier one failed. */
int stage_ingest(struct run_state *s, struct err *e);
int stage_attribute(struct run_state *s, struct err *e);
/* Region traces -> pivot.region_stats; samples per region -> region_samples. */
int stage_regions(struct run_state *s, struct err *e);
/* The analysis and the rank view, once (s->out), from the pivot in memory. */
int stage_analyse(struct run_state *s, struct err *e);
/* Under MPI: each node's Machine and Ceilings into s->nodes (run/node_ceilings.c);
 * a node that borrows the launch node's is a degradation. 0 or -ENOMEM. */
int run_node_machines(struct run_state *s, struct err *e);
/* Why calibration may not run in this Run (--no-calibrate, the configuration,
 * NUNATAK_NO_CALIBRATE), or NULL when it may: on the launch node before the
 * application, on a node of another Machine after its ranks' (run/ranks.c). */
const char *run_calibration_skipped(const struct run_state *s);
/* pivot.sqlite, and the manifest built in memory (s->out.manifest). */
int stage_store(struct run_state *s, struct err *e);
#define RUN_ABANDONED_MANIFEST ".manifest-abandoned.json"
/* manifest.json before post-processing, status incomplete or abandoned
 * (stage_finish.c; enum run_status of store/manifest.h); with incomplete,
 * the abandoned variant beside it as RUN_ABANDONED_MANIFEST. */
int run_write_provisional(struct run_state *s, int status, struct err *e);
/* 2 MiB kept in the Run directory (.nunatak-space-reserve) while the
 * application runs, given back when a manifest is refused for want of space
 * (a disk filled during collection), removed once the Run is written. */
void run_reserve_space(struct run_state *s);
void run_reserve_release(struct run_state *s);
/* report.html from the Run in memory (report-unavailable on failure). */
int stage_report(struct run_state *s, struct err *e);
/* pivot.sqlite at db written from p on a thread (run/store_job.c): started
 * by stage_store, joined by stage_report once the page is rendered (or at
 * the Run's release); its outcome, as pivot_db_write's, from the join.
 * NULL when no thread could start. */
struct run_store_job;
struct pivot;
struct run_store_job *run_store_job_start(const struct pivot *p, const char *db);
int run_store_job_join(struct run_store_job *j, struct err *e);
/* manifest.json, once, listing the pivot and the page, every degradation. */
int stage_manifest(struct run_state *s, struct err *e);

/* After the stages: counts, overhead, summary, degradations again, the
 * --json document into *json_out (NULL without --json). */
int run_finish(struct run_state *s, json_t **json_out);

/* Says on the terminal how the application ended when it did not end by
 * itself: "the application was ended by SIGSEGV", "interrupted by SIGINT"
 * (run_output.c). */
void run_announce_outcome(struct run_state *s);

/* The --json document of `nunatak run` (docs/cli/run.md), the one writer
 * for a complete, incomplete, abandoned or failed Run: run, name,
 * exit_code, the pivot's counts, report, degradations; then collector
 * (unless NULL) and, unless status is NULL (a failure before launch),
 * signal, interrupted_by and status. New reference, NULL when out of memory. */
json_t *run_json_document(const struct run_state *s, int exit_code, const char *collector,
			  const char *status);

/* Sets s->overhead (estimated seconds of nunatak's sampling cost). */
void run_overhead(struct run_state *s);
/* Something was sampled: the application (pass 0), or an MPI Run's ranks. */
bool run_sampled(const struct run_state *s);
/* The manifest's "cost": nunatak's own cost by part, each a Value with its
 * Quality, measured up to `now` (just before the manifest is written). */
void run_cost(struct run_state *s, double now);


#endif
