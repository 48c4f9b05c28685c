/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nunatak report`'s worker: re-reads a Run directory (manifest.json and
 * pivot.sqlite), recomputes the analysis, and renders the terminal summary
 * lines and the report payload. Nothing is re-measured.
 */
#ifndef NUNATAK_REPORT_REPORT_RUN_H
#define NUNATAK_REPORT_REPORT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "report/summary.h"

struct err;
typedef struct json_t json_t;

struct report_out {
	struct text_lines lines; /* the terminal summary, degradations last */
	json_t *payload;         /* the report payload (one reference) */
};

/* Returns 0, or a negative errno with e filled ("run.not_a_run", "run.newer_schema",
 * "run.corrupt" ... from the store). Release out with report_out__release(). */
int report_run(const char *run_dir, bool no_source, struct report_out *out, struct err *e);
void report_out__release(struct report_out *out);

/* `nunatak report --format collapsed|speedscope`: the Run's flame graph
 * (report/flame.h) written to out. *from_stacks says whether the Run had call
 * stacks (false: Hotspots only). Returns 0 or a negative errno with e. */
int report_export_stacks(const char *run_dir, const char *format, FILE *out, bool *from_stacks,
			 struct err *e);

#endif
