// SPDX-License-Identifier: BSD-3-Clause
/* `regions lines`' table and JSON document (report/regions_lines.h), over the
 * profile regions/lines.h computes. */
#include "report/regions_lines.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "regions/lines.h"
#include "regions/trace_set.h"

/* Source text of file:line (trimmed), or NULL; caller frees. */
static char *source_line(const char *file, int line)
{
	FILE *f = file && line > 0 ? fopen(file, "re") : NULL;
	if (!f)
		return NULL;
	char buf[512];
	char *text = NULL;
	for (int n = 1; fgets(buf, sizeof(buf), f); n += strchr(buf, '\n') != NULL) {
		if (n == line) {
			buf[strcspn(buf, "\n")] = 0;
			char *p = buf;
			while (*p == ' ' || *p == '\t')
				p++;
			text = xstrdup(p);
			break;
		}
	}
	fclose(f);
	return text;
}

/* The sampling rate the files achieved (the .sps hz field is the effective
 * rate, never the requested one). */
static void rate_range(const struct lines_result *x, int32_t *lo, int32_t *hi)
{
	*lo = *hi = 0;
	for (size_t i = 0; i < x->nr_files; i++) {
		if (i == 0 || x->files[i].hz < *lo)
			*lo = x->files[i].hz;
		if (i == 0 || x->files[i].hz > *hi)
			*hi = x->files[i].hz;
	}
}

static void print_text(const struct lines_result *x, const struct lines_row *r, size_t n,
		       const int64_t *tot, int top, bool source, FILE *out)
{
	int32_t lo, hi;
	rate_range(x, &lo, &hi);
	fprintf(out, "%zu sample file%s, %zu samples, %" PRId64 " timer ticks", x->nr_files,
		x->nr_files == 1 ? "" : "s", x->nr_samples, x->ticks);
	if (lo == hi)
		fprintf(out, ", effective sampling rate %" PRId32 " Hz\n", lo);
	else
		fprintf(out, ", effective sampling rate %" PRId32 "-%" PRId32 " Hz over the files\n",
			lo, hi);
	for (size_t i = 0; i < n;) {
		uint32_t reg = r[i].region;
		fprintf(out, "\nregion %s: %" PRId64 " samples, %" PRId64 " ticks (%.1f%% of ticks)\n",
			x->names->regions[reg].name, x->region_samples[reg], tot[reg],
			x->sample_ticks ? 100.0 * (double)tot[reg] / (double)x->sample_ticks : 0.0);
		fprintf(out, "%7s  %8s  %s\n", "share", "ticks", "line  function");
		int shown = 0;
		for (; i < n && r[i].region == reg; i++, shown++) {
			if (top > 0 && shown >= top)
				continue;
			char loc[320];
			if (r[i].file)
				snprintf(loc, sizeof(loc), "%s:%d", r[i].file, r[i].line);
			else
				snprintf(loc, sizeof(loc), "??:0");
			fprintf(out, "%6.1f%%  %8" PRId64 "  %s  %s%s\n",
				100.0 * (double)r[i].ticks / (double)tot[reg], r[i].ticks, loc,
				r[i].func ? r[i].func : r[i].file ? "??" : "(no line information)",
				r[i].func && !r[i].file ? " (no line information: build with -g)" : "");
			char *text = source ? source_line(r[i].file, r[i].line) : NULL;
			if (text)
				fprintf(out, "%19s| %s\n", "", text);
			xfree(text);
		}
	}
}

static int print_json(const struct lines_result *x, const struct lines_row *r, size_t n,
		      const int64_t *tot, int top, bool source, FILE *out)
{
	json_t *regions = json_array();
	for (size_t i = 0; i < n;) {
		uint32_t reg = r[i].region;
		json_t *lines = json_array();
		int shown = 0;
		for (; i < n && r[i].region == reg; i++, shown++) {
			if (top > 0 && shown >= top)
				continue;
			char *text = source ? source_line(r[i].file, r[i].line) : NULL;
			json_array_append_new(
				lines, json_pack("{s:s, s:i, s:o, s:I, s:I, s:f, s:o}", "file",
						 r[i].file ? r[i].file : "??", "line", r[i].line,
						 "function",
						 r[i].func ? json_string(r[i].func) : json_null(),
						 "samples", (json_int_t)r[i].count, "ticks",
						 (json_int_t)r[i].ticks, "share",
						 (double)r[i].ticks / (double)tot[reg], "source",
						 text ? json_string(text) : json_null()));
			xfree(text);
		}
		json_array_append_new(regions, json_pack("{s:s, s:I, s:I, s:o}", "region",
							 x->names->regions[reg].name, "samples",
							 (json_int_t)x->region_samples[reg], "ticks",
							 (json_int_t)tot[reg], "lines", lines));
	}
	json_t *files = json_array();
	for (size_t i = 0; i < x->nr_files; i++)
		json_array_append_new(files, json_pack("{s:i, s:i, s:I, s:I}", "rank",
						       (int)x->files[i].rank, "effective_hz",
						       (int)x->files[i].hz, "ticks",
						       (json_int_t)x->files[i].ticks, "samples",
						       (json_int_t)x->files[i].samples));
	json_t *doc = json_pack("{s:s, s:i, s:i, s:I, s:I, s:o, s:o}", "schema",
				"nunatak.regions.lines", "schema_version", 1, "files",
				(int)x->nr_files, "samples", (json_int_t)x->nr_samples, "ticks",
				(json_int_t)x->ticks, "per_file", files, "regions", regions);
	int rc = doc && json_dumpf(doc, out, JSON_INDENT(2)) == 0 ? 0 : -EIO;
	fputc('\n', out);
	json_decref(doc);
	return rc;
}

int regions_lines(const char *const *inputs, size_t nr_inputs, const struct lines_opts *o,
		  FILE *out, struct console *con, struct err *e)
{
	struct lines_result r;
	int rc = lines_compute(inputs, nr_inputs, o, &r, con, e);
	if (rc == 0 && o->json)
		rc = print_json(&r, r.rows, r.nr_rows, r.region_total, o->top, o->source, out);
	else if (rc == 0)
		print_text(&r, r.rows, r.nr_rows, r.region_total, o->top, o->source, out);
	lines_result__release(&r);
	return rc;
}
