// SPDX-License-Identifier: BSD-3-Clause
/* The readers of counters per region: a .spt's CNTR/CCAL sections, or an
 * .h5's through the bounded child (regions/h5_job.c). The model they fill is
 * regions/region_counters.c, which depends on no reader. */
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
#include "regions/rank_filter.h"
#include "regions/trace_set.h"

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
			region_counters__sort_calls(rc);
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
