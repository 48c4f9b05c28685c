// SPDX-License-Identifier: BSD-3-Clause
#include "regions/region_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/spt_reader.h"
#include "modules/trace_h5.h"
#include "regions/regions_run.h"
#include "regions/trace_set.h"

static void sort_calls(struct region_counters *rc);

const char *region_counters__unit(int32_t kind)
{
	switch (kind) {
	case SP_CTR_KIND_TIME_NS: return "ns";
	case SP_CTR_KIND_CYCLES: return "cycles";
	case SP_CTR_KIND_INSTRUCTIONS: return "instructions";
	case SP_CTR_KIND_FLOP: return "flop";
	case SP_CTR_KIND_BYTES: return "B";
	default: return "events";
	}
}

int region_counters__event(struct region_counters *rc, const char *name, size_t len,
			   int32_t kind)
{
	for (size_t i = 0; i < rc->nr_events; i++)
		if (strlen(rc->events[i].name) == len && memcmp(rc->events[i].name, name, len) == 0)
			return (int)i;
	if (rc->nr_events == CTR_EVENTS_MAX) {
		rc->events_over++;
		return -1;
	}
	struct ctr_event_info *x = &rc->events[rc->nr_events];
	x->name = xstrndup(name, len);
	if (!x->name)
		return -2;
	x->kind = kind;
	x->reason_rank = -1;
	return (int)rc->nr_events++;
}

int region_counters__note(struct region_counters *rc, int g, int32_t rank, bool counted,
			  const char *reason, size_t reason_len)
{
	if (g < 0)
		return 0;
	struct ctr_event_info *x = &rc->events[g];
	if (counted) {
		x->ranks_counted++;
		return 0;
	}
	x->ranks_unavailable++;
	if (!x->reason) {
		x->reason = xstrndup(reason ? reason : "", reason ? reason_len : 0);
		x->reason_rank = rank;
		if (!x->reason)
			return -ENOMEM;
	}
	return 0;
}

int region_counters__add_row(struct region_counters *rc, int32_t rank, int32_t lane,
			     uint32_t region, int64_t calls, const int *map, size_t n,
			     const int64_t *incl, const int64_t *excl)
{
	if (xgrow((void **)&rc->rows, &rc->cap_rows, rc->nr_rows + 1, sizeof(*rc->rows)))
		return -ENOMEM;
	struct ctr_row *row = &rc->rows[rc->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->rank = rank;
	row->lane = lane;
	row->region = region;
	row->calls = calls;
	for (size_t k = 0; k < n; k++) {
		if (map[k] < 0)
			continue;
		row->have[map[k]] = true;
		row->incl[map[k]] = incl[k];
		row->excl[map[k]] = excl[k];
	}
	return 0;
}

static int note_events(struct region_counters *rc, const struct spt_trace *t, int *map,
		       struct err *e)
{
	const struct spt_counters *c = &t->ext.counters;
	int k = 0;
	for (int32_t i = 0; i < c->nr_events; i++) {
		const struct spt_ctr_event *ev = &c->events[i];
		int g = region_counters__event(rc, ev->name, ev->name_len, ev->kind);
		if (g == -2)
			return err_oom(e);
		if (ev->counted)
			map[k++] = g;
		if (region_counters__note(rc, g, t->rank, ev->counted, ev->reason, ev->reason_len))
			return err_oom(e);
	}
	return 0;
}

static int add_rows(struct region_counters *rc, struct trace_set *ts, const struct spt_trace *t,
		    const int *map, const char *path, struct err *e)
{
	const struct spt_counters *c = &t->ext.counters;
	int32_t lanes = t->nr_threads > 0 ? t->nr_threads : 1;
	for (int64_t i = 0; i < c->nr_rows; i++) {
		int32_t region, lane;
		int64_t calls, incl[8] = {0}, excl[8] = {0};
		if (c->nr_counted > 8)
			return err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: counter section: expected at most 8 counted events, "
				       "found %" PRId32, path, c->nr_counted);
		spt_counters__row(c, t->swap, i, &region, &lane, &calls, incl, excl);
		size_t at = c->rows_offset + (size_t)i * SPT_CTR_ROW_LEN(c->nr_counted);
		if (region < 0 || region >= t->nr_regions || lane < 0 || lane >= lanes || calls < 0)
			return err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: byte %zu: expected a counter row of one of the %" PRId64
				       " regions on one of the %" PRId32 " lanes, found region %" PRId32
				       ", lane %" PRId32, path, at, t->nr_regions, lanes, region, lane);
		const struct spt_region *r = &t->regions[region];
		int64_t id = trace_set__intern(ts, r->name, r->name_len, r->file, r->file_len, r->line);
		if (id < 0 || region_counters__add_row(rc, t->rank, lane, (uint32_t)id, calls, map,
						       (size_t)c->nr_counted, incl, excl))
			return err_oom(e);
	}
	return 0;
}

/* Each call's counts (the 'CCAL' sections): regions interned once. */
static int add_calls(struct region_counters *rc, struct trace_set *ts, const struct spt_trace *t,
		     const int *map, const char *path, struct err *e)
{
	const struct spt_call_counts *cc = &t->ext.call_counts;
	int32_t nc = t->ext.counters.nr_counted, lanes = t->nr_threads > 0 ? t->nr_threads : 1;
	if (cc->newer_version > rc->calls_newer_version)
		rc->calls_newer_version = cc->newer_version;
	if (!cc->nr_sections)
		return 0;
	int64_t *ids = xcalloc((size_t)t->nr_regions + 1, sizeof(*ids));
	if (!ids)
		return err_oom(e);
	for (int64_t r = 0; r < t->nr_regions; r++)
		ids[r] = -1;
	int rc_ = 0;
	rc->ranks_with_calls++;
	for (int32_t k = 0; k < cc->nr_sections && rc_ == 0; k++) {
		const struct spt_ccal_section *sec = &cc->sections[k];
		if (sec->nr_counted != nc) {
			rc_ = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
				      "%s: byte %zu: expected call counts of the %" PRId32 " counted "
				      "events, found %" PRId32, path, sec->offset - 16, nc,
				      sec->nr_counted);
			break;
		}
		for (int64_t i = 0; i < sec->nr_calls && rc_ == 0; i++) {
			int32_t region, lane;
			int64_t start, v[8];
			spt_ccal__entry(sec, t->swap, i, &region, &lane, &start, v);
			if (region == -1)
				continue; /* padding: a call the file no longer held */
			if (region < 0 || region >= t->nr_regions || lane < 0 || lane >= lanes) {
				rc_ = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
					      "%s: byte %zu: expected a call of one of the %" PRId64
					      " regions on one of the %" PRId32 " lanes, found region "
					      "%" PRId32 ", lane %" PRId32, path,
					      sec->offset + (size_t)i * SPT_CCAL_ENTRY_LEN(nc),
					      t->nr_regions, lanes, region, lane);
				break;
			}
			const struct spt_region *r = &t->regions[region];
			if (ids[region] < 0)
				ids[region] = trace_set__intern(ts, r->name, r->name_len, r->file,
								r->file_len, r->line);
			for (int32_t q = 0; q < nc && rc_ == 0 && ids[region] >= 0; q++) {
				if (map[q] < 0)
					continue;
				if (v[q] < 0) {
					rc->calls_not_kept++;
					continue;
				}
				if (xgrow((void **)&rc->calls, &rc->cap_calls, rc->nr_calls + 1,
					  sizeof(*rc->calls))) {
					rc_ = err_oom(e);
					break;
				}
				rc->calls[rc->nr_calls++] = (struct ctr_call){
					(uint32_t)ids[region], t->rank, lane, (uint16_t)map[q], start, v[q]};
				rc->calls_sorted = false;
			}
			if (ids[region] < 0 && rc_ == 0)
				rc_ = err_oom(e);
		}
	}
	xfree(ids);
	return rc_;
}

int region_counters__read_path(struct region_counters *rc, struct trace_set *ts,
			       const char *path, struct err *e)
{
	void *map = NULL;
	size_t len = 0;
	struct spt_trace t;
	memset(&t, 0, sizeof(t));
	int rc_ = trace_map_file(path, &map, &len, e);
	if (rc_ || (rc_ = spt_parse(map, len, path, &t, e))) {
		trace_unmap_file(map, len);
		return rc_;
	}
	const struct spt_counters *c = &t.ext.counters;
	if (!c->present) {
		rc->ranks_without++;
	} else {
		int emap[8];
		for (int k = 0; k < 8; k++)
			emap[k] = -1;
		rc->ranks_with++;
		rc->threads_without += c->threads_without;
		rc->dropped += c->dropped;
		if (!rc->backend && !(rc->backend = xstrndup(c->backend, c->backend_len)))
			rc_ = err_oom(e);
		if (c->backend_len == 4 && memcmp(c->backend, "test", 4) == 0)
			rc->test_backend = true;
		if (rc_ == 0)
			rc_ = note_events(rc, &t, emap, e);
		if (rc_ == 0)
			rc_ = add_rows(rc, ts, &t, emap, path, e);
		if (rc_ == 0 && rc->want_calls)
			rc_ = add_calls(rc, ts, &t, emap, path, e);
		if (rc_ == 0)
			sort_calls(rc);
	}
	spt_trace__release(&t);
	trace_unmap_file(map, len);
	return rc_;
}

int region_counters__read(struct region_counters *rc, struct trace_set *ts,
			  const struct rank_filter *rf, bool want_calls, struct err *e)
{
	memset(rc, 0, sizeof(*rc));
	rc->want_calls = want_calls;
	for (size_t i = 0; i < ts->nr_src; i++) {
		if (rf && !rank_filter__has(rf, ts->src[i].rank))
			continue;
		const struct trace_source *s = &ts->src[i];
		int r = s->kind == TRACE_SPT
				? region_counters__read_path(rc, ts, s->path, e)
				: trace_h5_counters(rc, ts, s->path, s->rank, e);
		if (r) {
			region_counters__release(rc);
			return r;
		}
	}
	return 0;
}

void region_counters__release(struct region_counters *rc)
{
	for (size_t i = 0; i < rc->nr_events; i++) {
		xfree(rc->events[i].name);
		xfree(rc->events[i].reason);
	}
	xfree(rc->backend);
	xfree(rc->rows);
	xfree(rc->calls);
	memset(rc, 0, sizeof(*rc));
}

bool region_counters__sum(const struct region_counters *rc, uint32_t id, size_t ev,
			  int64_t *incl, int64_t *excl, int64_t *calls, size_t *rows_missing)
{
	bool any = false;
	*incl = *excl = *calls = 0;
	*rows_missing = 0;
	for (size_t i = 0; i < rc->nr_rows; i++) {
		const struct ctr_row *r = &rc->rows[i];
		if (r->region != id)
			continue;
		if (!r->have[ev]) {
			(*rows_missing)++;
			continue;
		}
		any = true;
		*incl += r->incl[ev];
		*excl += r->excl[ev];
		*calls += r->calls;
	}
	return any;
}

int region_counters__event_of_kind(const struct region_counters *rc, int32_t kind)
{
	for (size_t i = 0; i < rc->nr_events; i++)
		if (rc->events[i].kind == kind && rc->events[i].ranks_counted)
			return (int)i;
	return -1;
}

static int cmp_call(const void *a, const void *b)
{
	const struct ctr_call *x = a, *y = b;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static void sort_calls(struct region_counters *rc)
{
	if (!rc->calls_sorted && rc->nr_calls)
		qsort(rc->calls, rc->nr_calls, sizeof(*rc->calls), cmp_call);
	rc->calls_sorted = true;
}

const struct ctr_call *region_counters__calls(const struct region_counters *rc, size_t *n)
{
	*n = rc->calls_sorted ? rc->nr_calls : 0;
	return rc->calls;
}

bool region_counters__call_stats(const struct region_counters *rc, uint32_t id, size_t ev,
				 struct ctr_call_stats *out)
{
	size_t n;
	const struct ctr_call *c = region_counters__calls(rc, &n);
	memset(out, 0, sizeof(*out));
	/* the first call of (id, ev): calls are sorted by region, then event */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].region < id || (c[mid].region == id && c[mid].ev < ev))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	double sum = 0;
	while (end < n && c[end].region == id && c[end].ev == ev)
		sum += (double)c[end++].value;
	if (end == lo)
		return false;
	out->calls = end - lo;
	out->min = c[lo].value;
	out->max = c[end - 1].value;
	out->median = c[lo + (out->calls - 1) / 2].value;
	out->mean = sum / (double)out->calls;
	return true;
}
