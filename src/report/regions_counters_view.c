// SPDX-License-Identifier: BSD-3-Clause
#include "report/regions_counters_view.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/text.h"
#include "report/csv.h"
#include "ingest/spt_reader.h"
#include "model/model.h"
#include "regions/region_counters.h"
#include "regions/summary.h"
#include "regions/trace_set.h"

/* A value with its Quality and, when downgraded, its reason. */
struct qv {
	double v;
	enum quality q;
	char reason[320];
};

/* One region's sums for one event, with the Quality of the sums. */
struct ev_sum {
	struct qv incl, excl;
	int64_t calls;
};

static void qv_unavailable(struct qv *x, const char *why)
{
	x->v = NAN;
	x->q = QUALITY_UNAVAILABLE;
	snprintf(x->reason, sizeof(x->reason), "%s", why);
}

static void ev_sum(const struct region_counters *rc, uint32_t id, size_t ev, struct ev_sum *out)
{
	int64_t incl, excl;
	size_t missing;
	const struct ctr_event_info *x = &rc->events[ev];
	memset(out, 0, sizeof(*out));
	if (!region_counters__sum(rc, id, ev, &incl, &excl, &out->calls, &missing)) {
		char why[320];
		snprintf(why, sizeof(why), "%s not counted%s%s", x->name,
			 x->reason ? ": " : " on the lanes of this region",
			 x->reason ? x->reason : "");
		qv_unavailable(&out->incl, why);
		qv_unavailable(&out->excl, why);
		return;
	}
	out->incl.v = (double)incl;
	out->excl.v = (double)excl;
	enum quality q = QUALITY_MEASURED;
	char why[320] = "";
	if (missing) {
		q = QUALITY_ESTIMATED;
		snprintf(why, sizeof(why), "%zu lane%s of this region could not count %s: the "
			 "sum covers the others only", missing, missing == 1 ? "" : "s", x->name);
	} else if (rc->dropped || rc->threads_without) {
		q = QUALITY_ESTIMATED;
		snprintf(why, sizeof(why), "the library dropped the counts of %" PRId64 " calls "
			 "and %" PRId64 " threads recorded without counters: sums may be short",
			 rc->dropped, rc->threads_without);
	}
	out->incl.q = out->excl.q = q;
	snprintf(out->incl.reason, sizeof(out->incl.reason), "%s", why);
	snprintf(out->excl.reason, sizeof(out->excl.reason), "%s", why);
}

static enum quality worst(enum quality a, enum quality b)
{
	return a > b ? a : b;
}

/* a / b with the worse Quality of its inputs; unavailable when either is. */
static void qv_div(struct qv *out, const struct qv *a, const struct qv *b, double scale,
		   const char *what)
{
	if (a->q == QUALITY_UNAVAILABLE || b->q == QUALITY_UNAVAILABLE) {
		qv_unavailable(out, a->q == QUALITY_UNAVAILABLE ? a->reason : b->reason);
		return;
	}
	if (!(b->v > 0)) {
		char why[320];
		snprintf(why, sizeof(why), "%s: its divisor is zero", what);
		qv_unavailable(out, why);
		return;
	}
	out->v = a->v / b->v * scale;
	out->q = worst(a->q, b->q);
	snprintf(out->reason, sizeof(out->reason), "%s", a->q != QUALITY_MEASURED ? a->reason
							 : b->reason);
}

/* The region's inclusive time, as the summary measured it. */
static void region_time(const struct summary *s, uint32_t id, struct qv *t)
{
	memset(t, 0, sizeof(*t));
	if (id >= s->nr || !s->r[id].seen) {
		qv_unavailable(t, "the region has no call in the selected ranks");
		return;
	}
	t->v = (double)s->r[id].total_ns;
	t->q = QUALITY_MEASURED;
}

/* The first counted event of @p kind, or -1. */
static int event_of_kind(const struct region_counters *rc, int32_t kind)
{
	for (size_t i = 0; i < rc->nr_events; i++)
		if (rc->events[i].kind == kind)
			return (int)i;
	return -1;
}

enum derived_kind { D_IPC, D_FLOPS, D_BYTES_S, D_INTENSITY, D_NR };
static const char *const derived_keys[D_NR] = {"ipc", "flop_per_second", "bytes_per_second",
					       "intensity"};
static const char *const derived_units[D_NR] = {"instructions/cycle", "flop/s", "B/s",
						"flop/B"};

static void derive(const struct region_counters *rc, const struct summary *s, uint32_t id,
		   struct qv out[D_NR])
{
	struct qv t;
	struct ev_sum ins, cyc, flop, bytes;
	region_time(s, id, &t);
	int e_ins = event_of_kind(rc, SP_CTR_KIND_INSTRUCTIONS),
	    e_cyc = event_of_kind(rc, SP_CTR_KIND_CYCLES), e_flop = event_of_kind(rc, SP_CTR_KIND_FLOP),
	    e_bytes = event_of_kind(rc, SP_CTR_KIND_BYTES);
	const struct { int ev; struct ev_sum *sum; const char *why; } need[] = {
		{e_ins, &ins, "no instructions event was asked (SCOPE_PROFILER_EVENTS)"},
		{e_cyc, &cyc, "no cycles event was asked (SCOPE_PROFILER_EVENTS)"},
		{e_flop, &flop, "no floating-point operation event was asked"},
		{e_bytes, &bytes, "no memory-traffic (bytes) event was asked"},
	};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (need[i].ev >= 0) {
			ev_sum(rc, id, (size_t)need[i].ev, need[i].sum);
		} else {
			qv_unavailable(&need[i].sum->incl, need[i].why);
		}
	}
	qv_div(&out[D_IPC], &ins.incl, &cyc.incl, 1.0, "IPC");
	qv_div(&out[D_FLOPS], &flop.incl, &t, 1e9, "FLOP/s");
	qv_div(&out[D_BYTES_S], &bytes.incl, &t, 1e9, "bytes/s");
	qv_div(&out[D_INTENSITY], &flop.incl, &bytes.incl, 1.0, "intensity");
}

/* Per second of the region's time; a time event (task-clock) per second of
 * time is the CPUs the region kept busy. */
static void rate(const struct region_counters *rc, size_t ev, const struct ev_sum *sum,
		 const struct qv *t, struct qv *out, char *unit, size_t n)
{
	bool time = rc->events[ev].kind == SP_CTR_KIND_TIME_NS;
	qv_div(out, &sum->incl, t, time ? 1.0 : 1e9, "per second");
	if (time)
		snprintf(unit, n, "CPUs");
	else
		snprintf(unit, n, "%s/s", region_counters__unit(rc->events[ev].kind));
}

static json_t *qv_json(const struct qv *x, const char *unit)
{
	return quality__json(x->v, unit, x->q, x->reason[0] ? x->reason : NULL);
}

/* Each call's inclusive count, spread over the region's calls (the trace's
 * 'CCAL' section); null when no trace of the region keeps them. */
static json_t *spread_json(const struct region_counters *rc, uint32_t id, size_t ev,
			   const char *unit)
{
	struct ctr_call_stats st;
	if (!region_counters__call_stats(rc, id, ev, &st))
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I, s:f, s:s}", "calls", (json_int_t)st.calls, "min",
			 (json_int_t)st.min, "median", (json_int_t)st.median, "max",
			 (json_int_t)st.max, "mean", st.mean, "unit", unit);
}

static json_t *event_json(const struct region_counters *rc, const struct summary *s,
			  uint32_t id, size_t ev)
{
	struct ev_sum sum;
	struct qv t, per_call, per_s, calls = {0};
	const char *unit = region_counters__unit(rc->events[ev].kind);
	char rate_unit[48], call_unit[48];
	ev_sum(rc, id, ev, &sum);
	region_time(s, id, &t);
	calls.v = (double)sum.calls;
	calls.q = QUALITY_MEASURED;
	qv_div(&per_call, &sum.incl, &calls, 1.0, "per call");
	rate(rc, ev, &sum, &t, &per_s, rate_unit, sizeof(rate_unit));
	snprintf(call_unit, sizeof(call_unit), "%s/call", unit);
	return json_pack("{s:o, s:o, s:o, s:o, s:I, s:o}", "inclusive", qv_json(&sum.incl, unit),
			 "exclusive", qv_json(&sum.excl, unit), "per_call",
			 qv_json(&per_call, call_unit), "per_second", qv_json(&per_s, rate_unit),
			 "calls", (json_int_t)sum.calls, "call_spread",
			 spread_json(rc, id, ev, call_unit));
}

static json_t *lanes_json(const struct region_counters *rc, uint32_t id)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < rc->nr_rows; i++) {
		const struct ctr_row *r = &rc->rows[i];
		if (r->region != id)
			continue;
		json_t *incl = json_object(), *excl = json_object();
		for (size_t e = 0; e < rc->nr_events; e++) {
			json_object_set_new(incl, rc->events[e].name,
					    r->have[e] ? json_integer(r->incl[e]) : json_null());
			json_object_set_new(excl, rc->events[e].name,
					    r->have[e] ? json_integer(r->excl[e]) : json_null());
		}
		json_array_append_new(arr, json_pack("{s:i, s:i, s:I, s:o, s:o}", "rank", r->rank,
						     "lane", r->lane, "calls", (json_int_t)r->calls,
						     "inclusive", incl, "exclusive", excl));
	}
	return arr;
}

/* Regions with at least one row, in region id order. */
static bool has_rows(const struct region_counters *rc, uint32_t id)
{
	if (rc->selected && (id >= rc->nr_selected || !rc->selected[id]))
		return false;
	for (size_t i = 0; i < rc->nr_rows; i++)
		if (rc->rows[i].region == id)
			return true;
	return false;
}

static json_t *events_json(const struct region_counters *rc)
{
	json_t *arr = json_array();
	for (size_t e = 0; arr && e < rc->nr_events; e++) {
		const struct ctr_event_info *x = &rc->events[e];
		const char *q = !x->ranks_counted ? "unavailable"
				: x->ranks_unavailable ? "estimated" : "measured";
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s?, s:I, s:I}", "name",
						     x->name, "unit", region_counters__unit(x->kind),
						     "quality", q, "reason", x->reason,
						     "ranks_counted", (json_int_t)x->ranks_counted,
						     "ranks_unavailable",
						     (json_int_t)x->ranks_unavailable));
	}
	return arr;
}

json_t *regions_counters_json(const struct region_counters *rc, const struct summary *s,
			      const struct trace_set *ts)
{
	if (!rc->ranks_with)
		return json_null();
	json_t *regions = json_array();
	for (uint32_t id = 0; regions && id < ts->nr_regions; id++) {
		if (!has_rows(rc, id))
			continue;
		json_t *evs = json_object(), *der = json_object();
		for (size_t e = 0; e < rc->nr_events; e++)
			json_object_set_new(evs, rc->events[e].name, event_json(rc, s, id, e));
		struct qv d[D_NR];
		derive(rc, s, id, d);
		for (int k = 0; k < D_NR; k++)
			json_object_set_new(der, derived_keys[k], qv_json(&d[k], derived_units[k]));
		struct qv t;
		region_time(s, id, &t);
		json_array_append_new(regions, json_pack("{s:s, s:o, s:o, s:o, s:o}", "name",
							 ts->regions[id].name, "time", qv_json(&t, "ns"),
							 "events", evs, "derived", der, "lanes",
							 lanes_json(rc, id)));
	}
	return json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "backend",
			 rc->backend ? rc->backend : "", "test_backend", rc->test_backend,
			 "ranks_with_counters", (json_int_t)rc->ranks_with,
			 "ranks_without_counters", (json_int_t)rc->ranks_without,
			 "threads_without_counters", (json_int_t)rc->threads_without,
			 "dropped_calls", (json_int_t)rc->dropped, "ranks_with_call_counts",
			 (json_int_t)rc->ranks_with_calls, "call_counts_not_kept",
			 (json_int_t)rc->calls_not_kept, "events", events_json(rc), "regions",
			 regions);
}

static const char *qv_text(char *buf, size_t n, const struct qv *x, const char *unit)
{
	if (x->q == QUALITY_UNAVAILABLE)
		return "unavailable";
	format_si(buf, n, x->v, unit);
	if (x->q == QUALITY_ESTIMATED)
		strncat(buf, " ~", n - strlen(buf) - 1);
	return buf;
}

/* Per call in the event's unit: a time event as a duration. */
static const char *call_text(char *buf, size_t n, const struct qv *x, int32_t kind)
{
	if (kind != SP_CTR_KIND_TIME_NS || x->q == QUALITY_UNAVAILABLE)
		return qv_text(buf, n, x, kind == SP_CTR_KIND_COUNT ? "" :
					  region_counters__unit(kind));
	struct qv s = *x;
	s.v /= 1e9;
	return qv_text(buf, n, &s, "s");
}

static void print_region(const struct region_counters *rc, const struct summary *s,
			 const struct trace_set *ts, uint32_t id, FILE *out)
{
	for (size_t e = 0; e < rc->nr_events; e++) {
		struct ev_sum sum;
		struct qv t, per_call, per_s, calls = {0};
		ev_sum(rc, id, e, &sum);
		if (sum.incl.q == QUALITY_UNAVAILABLE)
			continue;
		region_time(s, id, &t);
		calls.v = (double)sum.calls;
		calls.q = QUALITY_MEASURED;
		qv_div(&per_call, &sum.incl, &calls, 1.0, "per call");
		char a[48], b[48], ru[48];
		rate(rc, e, &sum, &t, &per_s, ru, sizeof(ru));
		fprintf(out, "%-24s  %-18s  %14.0f  %14.0f  %12s  %12s  %s\n", ts->regions[id].name,
			rc->events[e].name, sum.incl.v, sum.excl.v, call_text(a, sizeof(a), &per_call, rc->events[e].kind),
			qv_text(b, sizeof(b), &per_s, ru), quality__name(sum.incl.q));
	}
	struct qv dv[D_NR];
	derive(rc, s, id, dv);
	for (int k = 0; k < D_NR; k++) {
		char a[48];
		if (dv[k].q != QUALITY_UNAVAILABLE)
			fprintf(out, "%-24s  %-18s  %s (%s)\n", ts->regions[id].name, derived_keys[k],
				qv_text(a, sizeof(a), &dv[k], derived_units[k]),
				quality__name(dv[k].q));
	}
}

/* Each call's inclusive count over the region's calls, where the traces
 * keep them (their 'CCAL' section). */
static void print_spread(const struct region_counters *rc, const struct trace_set *ts, FILE *out)
{
	bool head = false;
	for (uint32_t id = 0; id < ts->nr_regions; id++) {
		if (!has_rows(rc, id))
			continue;
		for (size_t e = 0; e < rc->nr_events; e++) {
			struct ctr_call_stats st;
			if (!region_counters__call_stats(rc, id, e, &st))
				continue;
			if (!head)
				fprintf(out, "\nPer call (each call's inclusive count):\n%-24s  %-18s  "
					"%10s  %14s  %14s  %14s  %14s\n", "region", "event", "calls",
					"min", "median", "max", "mean");
			head = true;
			fprintf(out, "%-24s  %-18s  %10zu  %14" PRId64 "  %14" PRId64 "  %14" PRId64
				"  %14.1f\n", ts->regions[id].name, rc->events[e].name, st.calls,
				st.min, st.median, st.max, st.mean);
		}
	}
	if (rc->calls_not_kept)
		fprintf(out, "counts of %" PRId64 " calls not kept per call (see the warning the "
			"library gave)\n", rc->calls_not_kept);
	if (rc->calls_newer_version)
		fprintf(out, "per-call counts of a newer trace format (version %" PRId32 ") were "
			"skipped: update nunatak to read them\n", rc->calls_newer_version);
	if (!head && rc->ranks_with > rc->ranks_with_calls && rc->nr_rows)
		fprintf(out, "no per-call counts: the traces keep sums only (written before "
			"per-call counts, or an .h5 profile)\n");
}

void regions_counters_print(const struct region_counters *rc, const struct summary *s,
			    const struct trace_set *ts, FILE *out)
{
	if (!rc->ranks_with)
		return;
	fprintf(out, "\nCounters per region (%s%s; sums over ranks and lanes):\n",
		rc->backend ? rc->backend : "?",
		rc->test_backend ? ", the TEST backend's made-up counts" : "");
	fprintf(out, "%-24s  %-18s  %14s  %14s  %12s  %12s  %s\n", "region", "event", "inclusive",
		"exclusive", "per call", "per second", "quality");
	for (uint32_t id = 0; id < ts->nr_regions; id++)
		if (has_rows(rc, id))
			print_region(rc, s, ts, id, out);
	for (size_t e = 0; e < rc->nr_events; e++) {
		const struct ctr_event_info *x = &rc->events[e];
		if (x->ranks_unavailable)
			fprintf(out, "%s: unavailable on %zu rank%s (rank %" PRId32 ": %s)\n", x->name,
				x->ranks_unavailable, x->ranks_unavailable == 1 ? "" : "s",
				x->reason_rank, x->reason ? x->reason : "no reason given");
	}
	print_spread(rc, ts, out);
	if (rc->dropped || rc->threads_without)
		fprintf(out, "counts of %" PRId64 " calls dropped, %" PRId64 " threads without "
			"counters: sums marked ~ (estimated)\n", rc->dropped, rc->threads_without);
	if (rc->ranks_without)
		fprintf(out, "%zu rank%s carry no counters (no events asked, an .h5 profile or an "
			"unfinished trace)\n", rc->ranks_without, rc->ranks_without == 1 ? "" : "s");
}

/* The reason an event has no value on @p r's rank. */
static const char *row_reason(const struct region_counters *rc, size_t ev)
{
	const char *why = rc->events[ev].reason;
	return why ? why : "the rank did not count this event";
}

int regions_counters_csv(const struct region_counters *rc, const struct trace_set *ts,
			 FILE *out)
{
	fputs("rank,lane,region,event,unit,calls,inclusive,exclusive,quality,reason\n", out);
	for (size_t i = 0; i < rc->nr_rows; i++) {
		const struct ctr_row *r = &rc->rows[i];
		for (size_t e = 0; e < rc->nr_events; e++) {
			fprintf(out, "%" PRId32 ",%" PRId32 ",", r->rank, r->lane);
			csv_put_field(out, ts->regions[r->region].name);
			fputc(',', out);
			csv_put_field(out, rc->events[e].name);
			fprintf(out, ",%s,%" PRId64 ",", region_counters__unit(rc->events[e].kind),
				r->calls);
			if (r->have[e]) {
				fprintf(out, "%" PRId64 ",%" PRId64 ",measured,\n", r->incl[e],
					r->excl[e]);
			} else {
				fputs(",,unavailable,", out);
				csv_put_field(out, row_reason(rc, e));
				fputc('\n', out);
			}
		}
	}
	return ferror(out) ? -EIO : 0;
}

int regions_counters_rows_json(const struct region_counters *rc, const struct trace_set *ts,
			       FILE *out)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < rc->nr_rows; i++) {
		const struct ctr_row *r = &rc->rows[i];
		for (size_t e = 0; e < rc->nr_events; e++)
			json_array_append_new(arr, json_pack(
				"{s:i, s:i, s:s, s:s, s:s, s:I, s:o, s:o, s:s, s:o}", "rank", r->rank,
				"lane", r->lane, "region", ts->regions[r->region].name, "event",
				rc->events[e].name, "unit", region_counters__unit(rc->events[e].kind),
				"calls", (json_int_t)r->calls, "inclusive",
				r->have[e] ? json_integer(r->incl[e]) : json_null(), "exclusive",
				r->have[e] ? json_integer(r->excl[e]) : json_null(), "quality",
				r->have[e] ? "measured" : "unavailable", "reason",
				r->have[e] ? json_null() : json_string(row_reason(rc, e))));
	}
	int rc_ = !arr || json_dumpf(arr, out, JSON_INDENT(2)) != 0 ? -EIO : 0;
	fputc('\n', out);
	json_decref(arr);
	return rc_ || ferror(out) ? -EIO : 0;
}

static int cmp_call_time(const void *a, const void *b)
{
	const struct ctr_call *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

int regions_counter_calls_write(const struct region_counters *rc, const struct trace_set *ts,
				bool json, FILE *out)
{
	size_t n;
	const struct ctr_call *src = region_counters__calls(rc, &n);
	struct ctr_call *c = xcalloc(n + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (n)
		memcpy(c, src, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_call_time);
	json_t *arr = json ? json_array() : NULL;
	if (!json)
		fputs("rank,lane,region,start_ns,event,unit,value\n", out);
	for (size_t i = 0; i < n; i++) {
		const char *unit = region_counters__unit(rc->events[c[i].ev].kind);
		if (json) {
			json_array_append_new(arr, json_pack(
				"{s:i, s:i, s:s, s:I, s:s, s:s, s:I}", "rank", c[i].rank, "lane",
				c[i].lane, "region", ts->regions[c[i].region].name, "start_ns",
				(json_int_t)c[i].start_ns, "event", rc->events[c[i].ev].name, "unit",
				unit, "value", (json_int_t)c[i].value));
			continue;
		}
		fprintf(out, "%" PRId32 ",%" PRId32 ",", c[i].rank, c[i].lane);
		csv_put_field(out, ts->regions[c[i].region].name);
		fprintf(out, ",%" PRId64 ",", c[i].start_ns);
		csv_put_field(out, rc->events[c[i].ev].name);
		fprintf(out, ",%s,%" PRId64 "\n", unit, c[i].value);
	}
	xfree(c);
	int r = 0;
	if (json) {
		r = !arr || json_dumpf(arr, out, JSON_INDENT(2)) != 0 ? -EIO : 0;
		fputc('\n', out);
		json_decref(arr);
	}
	return r || ferror(out) ? -EIO : 0;
}
