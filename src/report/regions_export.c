// SPDX-License-Identifier: BSD-3-Clause
#include "report/regions_export.h"
#include "report/regions_summary.h"
#include "report/regions_counters_view.h"
#include "regions/region_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "build_config.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/regions_inspect.h"
#include "regions/regions_run.h"
#include "regions/summary.h"
#include "regions/trace_set.h"
#include "report/wbuf.h"

static const char *const format_names[] = {"speedscope", "chrome", "collapsed", "csv", "json",
					   NULL};

int export_parse_format(const char *s, struct err *e)
{
	for (int i = 0; format_names[i]; i++)
		if (strcmp(s, format_names[i]) == 0)
			return i;
	return err_set(e, -EINVAL, ERR_USAGE,
		       "unknown export format '%s': expected speedscope, chrome, collapsed, csv "
		       "or json",
		       s);
}

struct xctx {
	struct wbuf w;
	const struct trace_set *ts;
	const struct path_tree *pt;
	int format;
	int64_t origin;
	char **qname; /* JSON-quoted region names, by id */
	size_t nr_qname;
	bool first; /* no profile/event written yet */
	int32_t *order; /* call ids grouped by lane */
	int32_t *stack;
};

static const char *qname(struct xctx *x, uint32_t id)
{
	if (id >= x->nr_qname) {
		size_t cap = x->nr_qname, old = x->nr_qname;
		if (xgrow((void **)&x->qname, &cap, x->ts->nr_regions, sizeof(*x->qname)))
			return "\"?\"";
		memset(x->qname + old, 0, (cap - old) * sizeof(*x->qname));
		x->nr_qname = cap;
	}
	if (!x->qname[id])
		x->qname[id] = json_quote(x->ts->regions[id].name);
	return x->qname[id] ? x->qname[id] : "\"?\"";
}

static void lane_label(struct wbuf *w, const struct rank_data *rd, int32_t lane)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "rank %" PRId32, rd->rank);
	wbuf__str(w, buf);
	if (rd->nr_lanes <= 1)
		return;
	snprintf(buf, sizeof(buf), " thread %" PRId32, lane);
	wbuf__str(w, buf);
	const struct lane_info *l = &rd->lanes[lane];
	if (l->name && *l->name) {
		char *q = json_quote(l->name);
		if (q) {
			size_t n = strlen(q);
			wbuf__str(w, " (");
			wbuf__mem(w, q + 1, n - 2); /* inside an open string already */
			wbuf__str(w, ")");
			xfree(q);
		}
	}
}

/* Call ids of each lane, contiguous, in start order: order[off[l]..off[l+1]). */
static int group_lanes(struct xctx *x, const struct calls *c, size_t *off)
{
	xfree(x->order);
	x->order = xmalloc(c->n * sizeof(int32_t) + 4);
	if (!x->order)
		return -ENOMEM;
	memset(off, 0, ((size_t)c->nr_lanes + 1) * sizeof(*off));
	for (size_t i = 0; i < c->n; i++)
		off[c->lane[i] + 1]++;
	for (int32_t l = 0; l < c->nr_lanes; l++)
		off[l + 1] += off[l];
	size_t *fill = xmalloc(((size_t)c->nr_lanes + 1) * sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	memcpy(fill, off, ((size_t)c->nr_lanes + 1) * sizeof(*fill));
	for (size_t i = 0; i < c->n; i++)
		x->order[fill[c->lane[i]]++] = (int32_t)i;
	xfree(fill);
	return 0;
}

/* Digits of v written backwards ending at p; returns the first digit. */
static inline char *put_u64_back(char *p, uint64_t v)
{
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

/* The hottest writer of all (two events per call): formatted in place. */
static void speedscope_event(struct wbuf *w, char type, int64_t at, uint32_t frame, bool *first)
{
	static const char head[] = ",{\"type\":\"O\",\"frame\":";
	char tmp[24], *d;
	wbuf__reserve(w, 80);
	char *o = w->b + w->n;
	size_t hl = sizeof(head) - 1;
	memcpy(o, head, hl);
	if (*first) {
		memmove(o, head + 1, --hl);
		*first = false;
	}
	o[hl - 11] = type;
	o += hl;
	d = put_u64_back(tmp + sizeof(tmp), frame);
	memcpy(o, d, (size_t)(tmp + sizeof(tmp) - d));
	o += tmp + sizeof(tmp) - d;
	memcpy(o, ",\"at\":", 6);
	o += 6;
	d = put_u64_back(tmp + sizeof(tmp), (uint64_t)(at < 0 ? 0 : at));
	memcpy(o, d, (size_t)(tmp + sizeof(tmp) - d));
	o += tmp + sizeof(tmp) - d;
	*o++ = '}';
	w->n = (size_t)(o - w->b);
}

static void speedscope_lane(struct xctx *x, const struct rank_data *rd, const struct calls *c,
			    int32_t lane, const int32_t *ids, size_t n)
{
	struct wbuf *w = &x->w;
	int64_t lo = c->start[ids[0]], hi = c->end[ids[0]];
	for (size_t k = 0; k < n; k++)
		if (c->end[ids[k]] > hi)
			hi = c->end[ids[k]];
	wbuf__str(w, x->first ? "\n{\"type\":\"evented\",\"name\":\"" : ",\n{\"type\":\"evented\",\"name\":\"");
	x->first = false;
	lane_label(w, rd, lane);
	wbuf__str(w, "\",\"unit\":\"nanoseconds\",\"startValue\":");
	wbuf__i64(w, lo - x->origin);
	wbuf__str(w, ",\"endValue\":");
	wbuf__i64(w, hi - x->origin);
	wbuf__str(w, ",\"events\":[");
	size_t top = 0;
	bool first = true;
	for (size_t k = 0; k < n; k++) {
		int32_t i = ids[k];
		/* Close what ended before this call starts: LIFO because calls nest. */
		while (top && c->end[x->stack[top - 1]] <= c->start[i]) {
			int32_t j = x->stack[--top];
			speedscope_event(w, 'C', c->end[j] - x->origin, c->region[j], &first);
		}
		speedscope_event(w, 'O', c->start[i] - x->origin, c->region[i], &first);
		x->stack[top++] = i;
	}
	while (top) {
		int32_t j = x->stack[--top];
		speedscope_event(w, 'C', c->end[j] - x->origin, c->region[j], &first);
	}
	wbuf__str(w, "]}");
}

static void chrome_meta(struct xctx *x, const struct rank_data *rd)
{
	struct wbuf *w = &x->w;
	char buf[160];
	snprintf(buf, sizeof(buf),
		 "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId32 ",\"tid\":0,"
		 "\"args\":{\"name\":\"rank %" PRId32 "\"}},\n{\"ph\":\"M\",\"name\":"
		 "\"process_sort_index\",\"pid\":%" PRId32 ",\"tid\":0,\"args\":{\"sort_index\":%"
		 PRId32 "}}",
		 x->first ? "" : ",", rd->rank, rd->rank, rd->rank, rd->rank);
	x->first = false;
	wbuf__str(w, buf);
	for (int32_t l = 0; l < rd->nr_lanes; l++) {
		snprintf(buf, sizeof(buf),
			 ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
			 ",\"args\":{\"name\":\"",
			 rd->rank, l);
		wbuf__str(w, buf);
		lane_label(w, rd, l);
		wbuf__str(w, "\"}}");
	}
}

static void chrome_rank(struct xctx *x, const struct rank_data *rd, const struct calls *c)
{
	struct wbuf *w = &x->w;
	char pid[40];
	snprintf(pid, sizeof(pid), ",\"pid\":%" PRId32 ",\"tid\":", rd->rank);
	chrome_meta(x, rd);
	for (size_t i = 0; i < c->n; i++) {
		wbuf__reserve(w, 160);
		wbuf__str(w, ",\n{\"ph\":\"X\",\"cat\":\"region\",\"name\":");
		wbuf__str(w, qname(x, c->region[i]));
		wbuf__str(w, pid);
		wbuf__i64(w, c->lane[i]);
		wbuf__str(w, ",\"ts\":");
		wbuf__us(w, c->start[i] - x->origin);
		wbuf__str(w, ",\"dur\":");
		wbuf__us(w, c->end[i] - c->start[i]);
		wbuf__mem(w, "}", 1);
	}
}

/* Frame names of collapsed stacks must not hold ';' or a line break. */
static void collapsed_frame(struct wbuf *w, const char *s)
{
	for (; *s; s++) {
		char ch = *s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s;
		wbuf__mem(w, &ch, 1);
	}
}

/* Iterative: recursion as deep as the deepest call path could overflow the
 * stack on a pathological trace. */
static void collapsed_path(struct xctx *x, int32_t node)
{
	size_t n = (size_t)x->pt->depth[node] + 1;
	int32_t *chain = xmalloc(n * sizeof(*chain));
	if (!chain) {
		x->w.failed = true;
		return;
	}
	for (int32_t k = node; k >= 0 && n > 0; k = x->pt->parent[k])
		chain[--n] = k;
	for (size_t i = n; i < (size_t)x->pt->depth[node] + 1; i++) {
		wbuf__mem(&x->w, ";", 1);
		collapsed_frame(&x->w, x->ts->regions[x->pt->region[chain[i]]].name);
	}
	xfree(chain);
}

static int collapsed_rank(struct xctx *x, const struct rank_data *rd, const struct calls *c)
{
	size_t nn = x->pt->n, nl = (size_t)c->nr_lanes;
	int64_t *self = xcalloc(nn * nl + 1, sizeof(*self));
	if (!self)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		self[(size_t)c->lane[i] * nn + c->node[i]] += c->excl[i];
	char buf[64];
	for (size_t l = 0; l < nl; l++)
		for (size_t k = 0; k < nn; k++) {
			if (self[l * nn + k] <= 0)
				continue;
			snprintf(buf, sizeof(buf), "rank %" PRId32, rd->rank);
			wbuf__str(&x->w, buf);
			if (nl > 1) {
				snprintf(buf, sizeof(buf), ";thread %zu", l);
				wbuf__str(&x->w, buf);
			}
			collapsed_path(x, (int32_t)k);
			wbuf__mem(&x->w, " ", 1);
			wbuf__i64(&x->w, self[l * nn + k]);
			wbuf__mem(&x->w, "\n", 1);
		}
	xfree(self);
	return 0;
}

static void csv_name(struct wbuf *w, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		wbuf__str(w, s);
		return;
	}
	wbuf__mem(w, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			wbuf__mem(w, "\"", 1);
		wbuf__mem(w, s, 1);
	}
	wbuf__mem(w, "\"", 1);
}

static void tidy_rank(struct xctx *x, const struct rank_data *rd, const struct calls *c)
{
	struct wbuf *w = &x->w;
	bool json = x->format == EXPORT_JSON;
	for (size_t i = 0; i < c->n; i++) {
		wbuf__reserve(w, 200);
		if (json) {
			wbuf__str(w, x->first ? "\n{\"name\":" : ",\n{\"name\":");
			x->first = false;
			wbuf__str(w, qname(x, c->region[i]));
			wbuf__str(w, ",\"rank\":");
		} else {
			csv_name(w, x->ts->regions[c->region[i]].name);
			wbuf__mem(w, ",", 1);
		}
		wbuf__i64(w, rd->rank);
		wbuf__str(w, json ? ",\"lane\":" : ",");
		wbuf__i64(w, c->lane[i]);
		wbuf__str(w, json ? ",\"call_index\":" : ",");
		wbuf__u64(w, c->call_index[i]);
		wbuf__str(w, json ? ",\"start\":" : ",");
		wbuf__sec(w, c->start[i] - x->origin);
		wbuf__str(w, json ? ",\"end\":" : ",");
		wbuf__sec(w, c->end[i] - x->origin);
		wbuf__str(w, json ? ",\"duration\":" : ",");
		wbuf__sec(w, c->end[i] - c->start[i]);
		wbuf__str(w, json ? ",\"exclusive\":" : ",");
		wbuf__sec(w, c->excl[i]);
		wbuf__str(w, json ? ",\"depth\":" : ",");
		wbuf__i64(w, c->depth[i]);
		wbuf__str(w, json ? "}" : "\n");
	}
}

static int visit(void *ctx, size_t slot, const struct rank_data *rd, const struct calls *c,
		 struct err *e)
{
	struct xctx *x = ctx;
	(void)slot;
	int rc = 0;
	if (x->format == EXPORT_SPEEDSCOPE && c->n) {
		size_t *off = xcalloc((size_t)c->nr_lanes + 2, sizeof(*off));
		xfree(x->stack);
		x->stack = xmalloc(c->n * sizeof(int32_t));
		rc = !off || !x->stack ? -ENOMEM : group_lanes(x, c, off);
		for (int32_t l = 0; rc == 0 && l < c->nr_lanes; l++)
			if (off[l + 1] > off[l])
				speedscope_lane(x, rd, c, l, x->order + off[l], off[l + 1] - off[l]);
		xfree(off);
	} else if (x->format == EXPORT_CHROME) {
		chrome_rank(x, rd, c);
	} else if (x->format == EXPORT_COLLAPSED) {
		rc = collapsed_rank(x, rd, c);
	} else if (x->format == EXPORT_CSV || x->format == EXPORT_JSON) {
		tidy_rank(x, rd, c);
	}
	if (rc)
		return err_set(e, rc, ERR_OOM, "out of memory");
	return x->w.failed ? err_set(e, -EIO, ERR_OUTPUT_WRITE, "write failed") : 0;
}

static void write_head(struct xctx *x)
{
	struct wbuf *w = &x->w;
	switch (x->format) {
	case EXPORT_SPEEDSCOPE:
		wbuf__str(w, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			     "\"exporter\":\"nunatak@" NUNATAK_VERSION "\",\"name\":");
		wbuf__json_str(w, x->ts->label);
		wbuf__str(w, ",\"activeProfileIndex\":0,\"profiles\":[");
		break;
	case EXPORT_CHROME:
		wbuf__str(w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"nunatak "
			     NUNATAK_VERSION "\",\"run\":");
		wbuf__json_str(w, x->ts->label);
		wbuf__str(w, ",\"origin_ns\":");
		wbuf__i64(w, x->origin);
		wbuf__str(w, "},\"traceEvents\":[");
		break;
	case EXPORT_CSV:
		wbuf__str(w, "name,rank,lane,call_index,start,end,duration,exclusive,depth\n");
		break;
	case EXPORT_JSON:
		wbuf__str(w, "{\"schema\":\"nunatak.regions.events\",\"schema_version\":1,\"run\":");
		wbuf__json_str(w, x->ts->label);
		wbuf__str(w, ",\"unit\":\"s\",\"origin_ns\":");
		wbuf__i64(w, x->origin);
		wbuf__str(w, ",\"events\":[");
		break;
	}
}

static void write_tail(struct xctx *x)
{
	struct wbuf *w = &x->w;
	if (x->format == EXPORT_SPEEDSCOPE) {
		wbuf__str(w, "\n],\"shared\":{\"frames\":[");
		for (uint32_t id = 0; id < x->ts->nr_regions; id++) {
			const struct region_info *r = &x->ts->regions[id];
			wbuf__str(w, id ? ",\n{\"name\":" : "\n{\"name\":");
			wbuf__str(w, qname(x, id));
			if (r->file) {
				wbuf__str(w, ",\"file\":");
				wbuf__json_str(w, r->file);
				if (r->line >= 0) {
					wbuf__str(w, ",\"line\":");
					wbuf__i64(w, r->line);
				}
			}
			wbuf__str(w, "}");
		}
		wbuf__str(w, "]}}\n");
	} else if (x->format == EXPORT_CHROME || x->format == EXPORT_JSON) {
		wbuf__str(w, "\n]}\n");
	}
}

static int export_summary(struct trace_set *ts, const struct export_opts *o, FILE *out,
			  struct console *con, struct err *e);

static int export_counters(struct trace_set *ts, const struct export_opts *o, FILE *out,
			   struct err *e)
{
	struct region_counters rc;
	int r = region_counters__read(&rc, ts, o->ranks, o->counter_calls, e);
	if (r)
		return r;
	if (o->counter_calls)
		r = regions_counter_calls_write(&rc, ts, o->format == EXPORT_JSON, out);
	else
		r = o->format == EXPORT_JSON ? regions_counters_rows_json(&rc, ts, out)
					     : regions_counters_csv(&rc, ts, out);
	region_counters__release(&rc);
	return r ? err_set(e, r, ERR_OUTPUT_WRITE, "writing the counters failed") : 0;
}

int regions_export(struct trace_set *ts, const struct export_opts *o, FILE *out,
		   struct console *con, struct err *e)
{
	if (o->summary)
		return export_summary(ts, o, out, con, e);
	if (o->counters || o->counter_calls)
		return export_counters(ts, o, out, e);
	struct xctx x = {.ts = ts, .format = o->format, .first = true};
	struct path_tree pt;
	path_tree__init(&pt);
	x.pt = &pt;
	int rc = wbuf__init(&x.w, out);
	if (rc)
		return err_set(e, rc, ERR_OOM, "out of memory");
	if ((rc = regions_min_start(ts, o->ranks, &x.origin, e)))
		goto out;
	write_head(&x);
	if ((rc = regions_for_each_rank(ts, o->ranks, &pt, visit, &x, con, e)))
		goto out;
	write_tail(&x);
	if (wbuf__flush(&x.w))
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "writing the export failed");
out:
	wbuf__release(&x.w);
	for (size_t i = 0; i < x.nr_qname; i++)
		xfree(x.qname[i]);
	xfree(x.qname);
	xfree(x.order);
	xfree(x.stack);
	path_tree__release(&pt);
	return rc;
}

static int export_summary(struct trace_set *ts, const struct export_opts *o, FILE *out,
			  struct console *con, struct err *e)
{
	struct summary s;
	int rc = regions_summarize(ts, o->ranks, &s, con, e);
	if (rc == 0 && o->format == EXPORT_JSON)
		rc = summary__print_json(&s, ts, o->view, out, e);
	else if (rc == 0 && o->format == EXPORT_CSV)
		rc = summary__print_csv(&s, ts, o->view, out, e);
	else if (rc == 0)
		rc = err_set(e, -EINVAL, ERR_USAGE, "--table summary needs --format csv or json");
	summary__release(&s);
	return rc;
}
