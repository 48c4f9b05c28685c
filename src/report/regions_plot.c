// SPDX-License-Identifier: BSD-3-Clause
#include "report/regions_plot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/regions_run.h"
#include "regions/trace_set.h"
#include "report/html.h"
#include "report/wbuf.h"

struct pctx {
	struct wbuf w;
	const struct trace_set *ts;
	int64_t origin;
	size_t budget; /* calls per rank */
	size_t nr_dropped, nr_kept;
	bool first;
};

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x < y) - (x > y);
}

/* Marks the calls to draw: the `budget` longest. Ties at the cut are taken
 * in start order, so parents (never shorter than their children) come first. */
static uint8_t *choose(const struct calls *c, size_t budget)
{
	uint8_t *keep = xmalloc(c->n + 1);
	if (!keep)
		return NULL;
	if (c->n <= budget) {
		memset(keep, 1, c->n);
		return keep;
	}
	int64_t *d = xmalloc(c->n * sizeof(*d));
	if (!d) {
		xfree(keep);
		return NULL;
	}
	for (size_t i = 0; i < c->n; i++)
		d[i] = c->end[i] - c->start[i];
	qsort(d, c->n, sizeof(*d), cmp_desc);
	int64_t t = d[budget - 1];
	size_t greater = 0;
	while (greater < budget && d[greater] > t)
		greater++;
	size_t equal = budget - greater;
	xfree(d);
	for (size_t i = 0; i < c->n; i++) {
		int64_t di = c->end[i] - c->start[i];
		keep[i] = di > t || (di == t && equal > 0);
		if (di == t && equal > 0)
			equal--;
	}
	return keep;
}

/* Text that ends up inside <script>: no "</" may appear in it. */
static void script_str(struct wbuf *w, const char *s)
{
	char *q = json_quote(s);
	if (!q) {
		w->failed = true;
		return;
	}
	/* Every '<' as \u003c (the same character inside a JSON string): no
	 * name can end the script element ("</script") or enter the parser's
	 * escaped states ("<!--"). */
	for (const char *p = q; *p; p++) {
		if (*p == '<')
			wbuf__str(w, "\\u003c");
		else
			wbuf__mem(w, p, 1);
	}
	xfree(q);
}

static void lane_arrays(struct pctx *x, const struct calls *c, int32_t lane, const uint8_t *keep)
{
	static const char *const keys[] = {"s", "d", "z", "r"};
	for (int k = 0; k < 4; k++) {
		wbuf__str(&x->w, k ? "],\"" : "\"");
		wbuf__str(&x->w, keys[k]);
		wbuf__str(&x->w, "\":[");
		bool first = true;
		for (size_t i = 0; i < c->n; i++) {
			int64_t d = c->end[i] - c->start[i];
			if (c->lane[i] != lane || !keep[i])
				continue;
			wbuf__reserve(&x->w, 32);
			if (!first)
				wbuf__mem(&x->w, ",", 1);
			first = false;
			int64_t v = k == 0 ? c->start[i] - x->origin
				    : k == 1 ? d
				    : k == 2 ? c->depth[i] : (int64_t)c->region[i];
			wbuf__i64(&x->w, v);
		}
	}
	wbuf__str(&x->w, "]");
}

static int visit(void *ctx, size_t slot, const struct rank_data *rd, const struct calls *c,
		 struct err *e)
{
	struct pctx *x = ctx;
	(void)slot;
	uint8_t *keep = choose(c, x->budget);
	if (!keep)
		return err_oom(e);
	for (size_t i = 0; i < c->n; i++)
		if (keep[i])
			x->nr_kept++;
		else
			x->nr_dropped++;
	for (int32_t l = 0; l < c->nr_lanes; l++) {
		char label[96];
		int n = snprintf(label, sizeof(label), "rank %" PRId32, rd->rank);
		/* The thread's name and id when the trace has them (v3). */
		const struct lane_info *li = l < rd->nr_lanes ? &rd->lanes[l] : NULL;
		if (li && li->name && li->tid >= 0)
			snprintf(label + n, sizeof(label) - (size_t)n, " %.40s (tid %" PRId64 ")",
				 li->name, li->tid);
		else if (c->nr_lanes > 1)
			snprintf(label + n, sizeof(label) - (size_t)n, " thread %" PRId32, l);
		wbuf__str(&x->w, x->first ? "\n{\"label\":" : ",\n{\"label\":");
		x->first = false;
		script_str(&x->w, label);
		wbuf__str(&x->w, ",");
		lane_arrays(x, c, l, keep);
		wbuf__str(&x->w, "}");
	}
	xfree(keep);
	return x->w.failed ? err_set(e, -EIO, ERR_OUTPUT_WRITE, "write failed") : 0;
}

int regions_plot(struct trace_set *ts, const struct plot_opts *o, FILE *out,
		 struct console *con, struct err *e)
{
	struct pctx x = {.ts = ts, .first = true};
	struct path_tree pt;
	size_t nr = 0;
	path_tree__init(&pt);
	int rc = wbuf__init(&x.w, out);
	if (rc)
		return err_set(e, rc, ERR_OOM, "out of memory");
	if ((rc = rank_filter__count(o->ranks, ts, &nr, e)) ||
	    (rc = regions_min_start(ts, o->ranks, &x.origin, e)))
		goto out;
	x.budget = o->max_calls / (nr ? nr : 1);
	if (x.budget == 0)
		x.budget = 1;
	wbuf__str(&x.w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			"<meta http-equiv=\"Content-Security-Policy\" content=\"" REPORT_HTML_CSP
			"\"><title>");
	wbuf__str(&x.w, "timeline</title>\n<style>");
	wbuf__str(&x.w, regions_plot_css);
	wbuf__str(&x.w, "</style></head><body>\n<header><h1 id=\"title\"></h1><p id=\"note\">"
			"</p></header>\n<div id=\"wrap\"><canvas id=\"chart\"></canvas>"
			"<div id=\"tip\"></div></div>\n<script>const DATA={\"run\":");
	script_str(&x.w, ts->label);
	wbuf__str(&x.w, ",\"lanes\":[");
	if ((rc = regions_for_each_rank(ts, o->ranks, &pt, visit, &x, con, e)))
		goto out;
	wbuf__str(&x.w, "],\"names\":[");
	for (uint32_t i = 0; i < ts->nr_regions; i++) {
		if (i)
			wbuf__str(&x.w, ",");
		script_str(&x.w, ts->regions[i].name);
	}
	wbuf__str(&x.w, "],\"kept\":");
	wbuf__u64(&x.w, x.nr_kept);
	wbuf__str(&x.w, ",\"dropped\":");
	wbuf__u64(&x.w, x.nr_dropped);
	wbuf__str(&x.w, "};\n");
	wbuf__str(&x.w, regions_plot_js);
	wbuf__str(&x.w, "</script></body></html>\n");
	if (wbuf__flush(&x.w))
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "writing the page failed");
out:
	wbuf__release(&x.w);
	path_tree__release(&pt);
	return rc;
}
