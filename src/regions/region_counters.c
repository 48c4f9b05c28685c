// SPDX-License-Identifier: BSD-3-Clause
#include "regions/region_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "sp_format.h"

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

void region_counters__sort_calls(struct region_counters *rc)
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
