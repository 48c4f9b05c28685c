/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stages of the run pipeline (docs/pipeline.md), each
 * `int stage_<name>(struct run_state *s, struct err *e)`: 0 to continue, a
 * negative value with e filled to stop. Internal to collect/ and the
 * pipeline; cmd_run.c only calls run_pipeline().
 */
#ifndef NUNATAK_RUN_STAGES_H
#define NUNATAK_RUN_STAGES_H

struct run_state;
struct err;
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
/* The launch itself. */
int stage_collect(struct run_state *s, struct err *e);
/* perf script -> collect/perf-script.txt, perf buildid-list ->
 * collect/perf-buildid-list.txt (sets s->script_ok). */
int collect_extract(struct run_state *s, struct err *e);
/* After launch: each runs even when an earlier one failed. */
int stage_ingest(struct run_state *s, struct err *e);
int stage_attribute(struct run_state *s, struct err *e);
/* Region traces -> pivot.region_stats; samples per region -> region_samples. */
int stage_regions(struct run_state *s, struct err *e);
int stage_store(struct run_state *s, struct err *e);
int stage_report(struct run_state *s, struct err *e);

/* After the stages: counts, overhead, summary, degradations again, the
 * --json document into *json_out (NULL without --json). */
int run_finish(struct run_state *s, json_t **json_out);

/* Sets s->overhead (estimated seconds of nunatak's sampling cost). */
void run_overhead(struct run_state *s);

/* Current UTC time as ISO-8601 ("2026-11-29T14:02:03+00:00"). */
void iso_now(char out[32]);

#endif
