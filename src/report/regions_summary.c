// SPDX-License-Identifier: BSD-3-Clause
/* Rendering of a struct summary: terminal table, JSON document, CSV rows
 * (report/regions_summary.h). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/regions_inspect.h"
#include "report/rank_notes_view.h"
#include "report/csv.h"
#include "report/regions_summary.h"
#include "regions/region_counters.h"
#include "regions/summary.h"
#include "report/regions_counters_view.h"
#include "regions/trace_set.h"

struct derived {
	double percent, parent_percent, avg_ns, std_ns, imbalance;
	int32_t busiest_rank;
	bool has_parent, has_imbalance;
};

static struct derived derive(const struct summary *s, const struct region_summary *r,
			     enum pct_mode pct)
{
	struct derived d = {0};
	int64_t session = summary__session_total(s);
	int64_t num = pct == PCT_EXCLUSIVE ? r->exclusive_ns : r->coverage_ns;
	d.percent = session > 0 ? 100.0 * (double)num / (double)session : 0;
	d.has_parent = r->parent_ns > 0;
	d.parent_percent = d.has_parent ? 100.0 * (double)r->total_ns / (double)r->parent_ns : 0;
	d.avg_ns = r->calls ? (double)r->total_ns / (double)r->calls : 0;
	d.std_ns = region_summary__std(r);
	int64_t max = -1, sum = 0;
	for (size_t i = 0; i < s->nr_ranks; i++) {
		sum += r->rank_cov[i];
		if (r->rank_cov[i] > max) {
			max = r->rank_cov[i];
			d.busiest_rank = s->rank_ids[i];
		}
	}
	double mean = s->nr_ranks ? (double)sum / (double)s->nr_ranks : 0;
	/* Over one rank max/mean is 1 by construction: it says nothing, so it is
	 * not shown rather than shown as a confident 1.00x. */
	d.has_imbalance = mean > 0 && s->nr_ranks > 1;
	d.imbalance = d.has_imbalance ? (double)max / mean : 0;
	return d;
}

static const char *const headers[NR_COLS] = {"Region", "Calls", "% session", "% parent",
					     "Total",  "Avg",   "Min",       "Max",
					     "Std",    "Imbalance", "Exclusive"};

static void cell(char *buf, size_t n, int col, const struct trace_set *ts, uint32_t id,
		 const struct region_summary *r, const struct derived *d)
{
	switch (col) {
	case COL_REGION: snprintf(buf, n, "%s", ts->regions[id].name); break;
	case COL_CALLS: snprintf(buf, n, "%" PRId64, r->calls); break;
	case COL_PERCENT: snprintf(buf, n, "%.1f", d->percent); break;
	case COL_PARENT:
		if (d->has_parent)
			snprintf(buf, n, "%.1f", d->parent_percent);
		else
			snprintf(buf, n, "-");
		break;
	case COL_TOTAL: fmt_duration(buf, n, (double)r->total_ns); break;
	case COL_AVG: fmt_duration(buf, n, d->avg_ns); break;
	case COL_MIN: fmt_duration(buf, n, (double)r->min_ns); break;
	case COL_MAX: fmt_duration(buf, n, (double)r->max_ns); break;
	case COL_STD: fmt_duration(buf, n, d->std_ns); break;
	case COL_EXCLUSIVE: fmt_duration(buf, n, (double)r->exclusive_ns); break;
	case COL_IMBALANCE:
		if (d->has_imbalance)
			snprintf(buf, n, "%.2fx (rank %" PRId32 ")", d->imbalance, d->busiest_rank);
		else
			snprintf(buf, n, "-");
		break;
	}
}

#define CELL 96

int summary__print_table(const struct summary *s, const struct trace_set *ts,
			 const struct summary_view *v, FILE *out, struct err *e)
{
	uint32_t *ids = NULL;
	size_t nr = 0;
	int rc = summary__rows(s, ts, v, &ids, &nr, e);
	if (rc)
		return rc;
	size_t ncol = 0, width[NR_COLS];
	while (ncol < NR_COLS && v->cols[ncol] >= 0)
		ncol++;
	char(*cells)[CELL] = xcalloc(nr * ncol + 1, CELL);
	if (!cells) {
		xfree(ids);
		return err_oom(e);
	}
	for (size_t c = 0; c < ncol; c++)
		width[c] = strlen(headers[v->cols[c]]);
	for (size_t i = 0; i < nr; i++) {
		struct derived d = derive(s, &s->r[ids[i]], v->pct);
		for (size_t c = 0; c < ncol; c++) {
			cell(cells[i * ncol + c], CELL, v->cols[c], ts, ids[i], &s->r[ids[i]], &d);
			size_t w = strlen(cells[i * ncol + c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	char wall[32];
	fprintf(out, "%s: %zu rank%s, total time %s, %" PRId64 " calls\n", ts->label,
		s->nr_loaded, s->nr_loaded == 1 ? "" : "s",
		fmt_duration(wall, sizeof(wall), (double)summary__wall_ns(s)), s->nr_calls);
	for (size_t c = 0; c < ncol; c++)
		fprintf(out, c ? "  %*s" : "%-*s", (int)width[c], headers[v->cols[c]]);
	fputc('\n', out);
	for (size_t i = 0; i < nr; i++) {
		for (size_t c = 0; c < ncol; c++)
			fprintf(out, v->cols[c] == COL_REGION ? (c ? "  %-*s" : "%-*s") : "  %*s",
				(int)width[c], cells[i * ncol + c]);
		fputc('\n', out);
	}
	if (nr == 0)
		fprintf(out, "(no region matches)\n");
	rank_notes_print(&ts->notes, out);
	xfree(cells);
	xfree(ids);
	return 0;
}

static json_t *region_json(const struct summary *s, const struct trace_set *ts, uint32_t id,
			   const struct summary_view *v)
{
	const struct region_summary *r = &s->r[id];
	struct derived d = derive(s, r, v->pct);
	json_t *per_rank = json_object();
	for (size_t i = 0; i < s->nr_ranks; i++) {
		char k[24];
		snprintf(k, sizeof(k), "%" PRId32, s->rank_ids[i]);
		json_object_set_new(per_rank, k, json_integer(r->rank_cov[i]));
	}
	const struct region_info *ri = &ts->regions[id];
	json_t *o = json_pack(
		"{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:I, s:I, s:f, s:f, s:I, s:o, s:o}",
		"name", ri->name, "source",
		ri->file ? json_pack("{s:s, s:i}", "file", ri->file, "line", (int)ri->line)
			 : json_null(),
		"calls", (json_int_t)r->calls, "inclusive_ns", (json_int_t)r->total_ns,
		"exclusive_ns", (json_int_t)r->exclusive_ns, "coverage_ns",
		(json_int_t)r->coverage_ns, "parent_ns", (json_int_t)r->parent_ns, "percent",
		d.percent, "parent_percent", d.has_parent ? json_real(d.parent_percent) : json_null(),
		"min_ns", (json_int_t)r->min_ns, "max_ns", (json_int_t)r->max_ns, "avg_ns", d.avg_ns,
		"std_ns", d.std_ns, "first_start_ns", (json_int_t)r->first_start_ns, "imbalance",
		d.has_imbalance ? json_pack("{s:f, s:i}", "ratio", d.imbalance, "busiest_rank",
					    (int)d.busiest_rank)
				: json_null(),
		"per_rank_coverage_ns", per_rank);
	return o;
}

/* The JSON document of `regions inspect` (NULL on ENOMEM). */
static json_t *summary_doc(const struct summary *s, const struct trace_set *ts,
			   const struct summary_view *v, struct err *e)
{
	uint32_t *ids = NULL;
	size_t nr = 0;
	if (summary__rows(s, ts, v, &ids, &nr, e))
		return NULL;
	json_t *ranks = json_array(), *rows = json_array();
	for (size_t i = 0; i < s->nr_ranks; i++)
		json_array_append_new(ranks, json_pack("{s:i, s:I, s:I}", "rank",
						       (int)s->rank_ids[i], "session_ns",
						       (json_int_t)s->session_ns[i], "span_ns",
						       (json_int_t)s->span_ns[i]));
	for (size_t i = 0; i < nr; i++)
		json_array_append_new(rows, region_json(s, ts, ids[i], v));
	json_t *doc = json_pack("{s:s, s:i, s:s, s:i, s:I, s:I, s:I, s:s, s:o, s:o, s:o}", "schema",
				"nunatak.regions.summary", "schema_version", 1, "run", ts->label,
				"nr_ranks", (int)s->nr_loaded, "calls", (json_int_t)s->nr_calls,
				"total_time_ns", (json_int_t)summary__wall_ns(s),
				"session_total_ns", (json_int_t)summary__session_total(s),
				"percentage", v->pct == PCT_EXCLUSIVE ? "exclusive" : "coverage",
				"ranks", ranks, "regions", rows, "rank_notes",
				rank_notes_json(&ts->notes));
	xfree(ids);
	if (!doc)
		err_set(e, -ENOMEM, ERR_OUTPUT_WRITE, "cannot write the JSON summary");
	return doc;
}

static int dump_doc(json_t *doc, FILE *out, struct err *e)
{
	if (!doc || json_dumpf(doc, out, JSON_INDENT(2)) != 0) {
		json_decref(doc);
		return err_set(e, -ENOMEM, ERR_OUTPUT_WRITE, "cannot write the JSON summary");
	}
	fputc('\n', out);
	json_decref(doc);
	return 0;
}

int summary__print_json(const struct summary *s, const struct trace_set *ts,
			const struct summary_view *v, FILE *out, struct err *e)
{
	json_t *doc = summary_doc(s, ts, v, e);
	return doc ? dump_doc(doc, out, e) : -ENOMEM;
}

int summary__print_csv(const struct summary *s, const struct trace_set *ts,
		       const struct summary_view *v, FILE *out, struct err *e)
{
	uint32_t *ids = NULL;
	size_t nr = 0;
	int rc = summary__rows(s, ts, v, &ids, &nr, e);
	if (rc)
		return rc;
	fputs("name,calls,inclusive,exclusive,coverage,percent,parent_percent,avg,min,max,std,"
	      "imbalance,busiest_rank\n",
	      out);
	for (size_t i = 0; i < nr; i++) {
		const struct region_summary *r = &s->r[ids[i]];
		struct derived d = derive(s, r, v->pct);
		csv_put_field(out, ts->regions[ids[i]].name);
		fprintf(out,
			",%" PRId64 ",%" PRId64 ".%09" PRId64 ",%" PRId64 ".%09" PRId64 ",%" PRId64
			".%09" PRId64 ",%.6f,",
			r->calls, r->total_ns / 1000000000, r->total_ns % 1000000000,
			r->exclusive_ns / 1000000000, r->exclusive_ns % 1000000000,
			r->coverage_ns / 1000000000, r->coverage_ns % 1000000000, d.percent);
		if (d.has_parent)
			fprintf(out, "%.6f", d.parent_percent);
		fprintf(out, ",%.9f,%.9f,%.9f,%.9f,", d.avg_ns / 1e9, (double)r->min_ns / 1e9,
			(double)r->max_ns / 1e9, d.std_ns / 1e9);
		if (d.has_imbalance)
			fprintf(out, "%.6f,%" PRId32, d.imbalance, d.busiest_rank);
		else
			fputc(',', out);
		fputc('\n', out);
	}
	xfree(ids);
	return 0;
}

int regions_inspect(struct trace_set *ts, const struct rank_filter *rf,
		    const struct summary_view *v, bool json, FILE *out, struct console *con,
		    struct err *e)
{
	struct summary s;
	struct region_counters ctr;
	memset(&ctr, 0, sizeof(ctr));
	int rc = regions_summarize(ts, rf, &s, con, e);
	/* Counters are read after the summary: interning their region names
	 * then adds none the summary did not size for. */
	if (rc == 0)
		rc = region_counters__read(&ctr, ts, rf, true, e);
	/* The counters of the regions the summary shows (--include, --exclude). */
	uint32_t *ids = NULL;
	size_t nr = 0;
	bool *shown = NULL;
	if (rc == 0 && ctr.ranks_with && (rc = summary__rows(&s, ts, v, &ids, &nr, e)) == 0) {
		shown = xcalloc(ts->nr_regions + 1, sizeof(*shown));
		if (!shown)
			rc = err_oom(e);
		for (size_t i = 0; shown && i < nr; i++)
			shown[ids[i]] = true;
		ctr.selected = shown;
		ctr.nr_selected = ts->nr_regions;
	}
	if (rc == 0 && json) {
		json_t *doc = summary_doc(&s, ts, v, e);
		if (doc)
			json_object_set_new(doc, "counters", regions_counters_json(&ctr, &s, ts));
		rc = doc ? dump_doc(doc, out, e) : -ENOMEM;
	} else if (rc == 0) {
		rc = summary__print_table(&s, ts, v, out, e);
		if (rc == 0)
			regions_counters_print(&ctr, &s, ts, out);
	}
	region_counters__release(&ctr);
	xfree(shown);
	xfree(ids);
	summary__release(&s);
	return rc;
}
