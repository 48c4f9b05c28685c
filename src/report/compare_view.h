/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nunatak compare`'s worker and renderings: reads the Runs of both sides
 * (manifest.json + pivot.sqlite), runs the statistics (analysis/compare.h)
 * and renders them as terminal lines, as the --json document (schema
 * docs/schemas/compare.json) and as the self-contained report-compare.html.
 */
#ifndef NUNATAK_REPORT_COMPARE_VIEW_H
#define NUNATAK_REPORT_COMPARE_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"
#include "model/machine_identity.h"
#include "common/text.h"
#include "store/manifest.h"

struct err;
typedef struct json_t json_t;

#define COMPARE_HTML_FILE "report-compare.html"
#define COMPARE_FORMAT_NAME "nunatak-compare"
#define COMPARE_SCHEMA 1

struct compare_side_run {
	char *dir;
	char label[24];                  /* "A", "B", or "A1", "B2" ... */
	char identity[MACHINE_ID_SIZE];  /* recomputed from the snapshot */
	struct manifest m;
	struct pivot p;
};

/* Every Run of both sides, A first; runs[i] matches cr[i]. */
struct compare_input {
	struct compare_side_run *runs;
	struct compare_run *cr;
	size_t na, nb;
};

/* Reads the Run directories a[0..na) and b[0..nb) (paths, already looked up).
 * Returns 0 or a negative errno with e filled (the store's codes, the
 * message prefixed with the directory). Release with compare_input__release()
 * whatever the outcome. */
int compare_input__load(struct compare_input *in, const char *const *a, size_t na,
			const char *const *b, size_t nb, struct err *e);
void compare_input__release(struct compare_input *in);

/* The sentence of a note ("Runs from two Machines: ..."), caller frees. */
char *compare_note_text(const struct compare_note *n, const struct compare_input *in);

/* The terminal table: header, the sections sorted by significance, notes,
 * the interval's basis. color: ANSI red for significantly slower, green for
 * faster (the caller decides: a terminal and no NO_COLOR). fail_pct: the
 * --fail-on-regression threshold, NaN when not given. Returns 0 or -ENOMEM. */
int compare_render_table(const struct compare_result *r, const struct compare_input *in,
			 bool color, double fail_pct, struct text_lines *out);

/* The --json document (new reference), NULL on ENOMEM. exit_code: what the
 * verb exits with, recorded in regression.exit_code. */
json_t *compare_to_json(const struct compare_result *r, const struct compare_input *in,
			double fail_pct, int exit_code);

/* Writes the page for doc at path atomically. Returns 0 or a negative errno
 * with e filled. */
int compare_html_write(const json_t *doc, const char *path, struct err *e);

/* The embedded assets of the page (generated compare_app_assets.c). */
extern const char compare_app_js[];
extern const size_t compare_app_js_len;
extern const char compare_app_css[];
extern const size_t compare_app_css_len;

#endif
