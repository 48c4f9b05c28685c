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
/* The call-stack ladder or --call-graph (collect/stacks.h): s->stacks. */
int stage_stacks(struct run_state *s, struct err *e);
/* The launch itself. */
int stage_collect(struct run_state *s, struct err *e);
/* perf script -> collect/perf-script.txt, perf buildid-list ->
 * collect/perf-buildid-list.txt (sets s->script_ok). */
int collect_extract(struct run_state *s, struct err *e);
/* The collector (collect/collector.h), decided once perf was probed: sets
 * s->collector and announces a stand-in or a missing collector. */
int collector_decide(struct run_state *s, bool perf_can_sample, const char *why_not);
/* perf refused to record before starting the application: under `auto`,
 * the preload sampler stands in (announced). False when it cannot. */
bool collector_fallback_preload(struct run_state *s, const char *why);
/* After perf record refused: whether `perf record -- true` works at all;
 * when not, why (into why[cap]). */
bool perf_records_at_all(struct run_state *s, char *why, size_t cap);
/* perf record around the application (the ladder of rungs inside), with
 * s->group, s->stacks, s->perf_data. */
int collect_record(struct run_state *s, struct exec_result *res, struct err *e);
/* perf refused to start at all (s->rejected): the application runs now,
 * once, under the preload sampler or bare. */
int collect_after_rejection(struct run_state *s, struct exec_result *res, struct err *e);
/* --multi-pass (collect/passes.h): every pass into collect/pass-<i>/.
 * Returns 0 when the passes ran, 1 when multi-pass is unavailable here
 * (announced: the caller runs one pass), or a negative error. */
int collect_passes(struct run_state *s, struct err *e);
/* Points s->perf_data, s->perf_script_path, s->buildid_path at
 * collect/pass-<i>/ (created). 0 or -errno. */
int passes_use_dir(struct run_state *s, int i);
/* After attribution of every pass: witness spread, recompiled modules, a
 * DRAM bound (stage "passes"; nothing for a single pass). */
int stage_passes(struct run_state *s, struct err *e);
/* The launch under the preload sampler (the application runs once). */
int collect_preload(struct run_state *s, char *const *argv, struct exec_result *res,
		    struct err *e);
/* The .sps files under <collect>/regions/ -> the pivot (task-clock, estimated). */
int ingest_preload(struct run_state *s, const struct ingest_opts *o, struct err *e);

/* After launch: each runs even when an earlier one failed. */
int stage_ingest(struct run_state *s, struct err *e);
int stage_attribute(struct run_state *s, struct err *e);
/* Region traces -> pivot.region_stats; samples per region -> region_samples. */
int stage_regions(struct run_state *s, struct err *e);
int stage_store(struct run_state *s, struct err *e);
#define RUN_ABANDONED_MANIFEST ".manifest-abandoned.json"
/* manifest.json before post-processing, status incomplete or abandoned
 * (stage_finish.c; enum run_status of store/manifest.h); with incomplete,
 * the abandoned variant beside it as RUN_ABANDONED_MANIFEST. */
int run_write_provisional(struct run_state *s, int status, struct err *e);
/* The first signal nunatak received while a pass ran, 0: none. */
int run_interrupted_by(const struct run_state *s);
int stage_report(struct run_state *s, struct err *e);

/* After the stages: counts, overhead, summary, degradations again, the
 * --json document into *json_out (NULL without --json). */
int run_finish(struct run_state *s, json_t **json_out);

/* Says on the terminal how the application ended when it did not end by
 * itself: "the application was ended by SIGSEGV", "interrupted by SIGINT"
 * (run_output.c). */
void run_announce_outcome(struct run_state *s);

/* Adds signal, interrupted_by and status to a --json document. */
void run_outcome_json(const struct run_state *s, json_t *doc, const char *status);

/* Sets s->overhead (estimated seconds of nunatak's sampling cost). */
void run_overhead(struct run_state *s);

/* Current UTC time as ISO-8601 ("2026-11-29T14:02:03+00:00"). */
void iso_now(char out[32]);

#endif
