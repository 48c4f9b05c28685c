// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/compare_gather.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/imbalance.h"
#include "common/alloc.h"

const char *compare_time_base(const struct pivot *p, int *lowest_pass)
{
	static const char *const order[] = {"task-clock", "cpu-clock", "cycles"};
	for (size_t k = 0; k < 3; k++) {
		bool found = false;
		int low = 0;
		for (size_t i = 0; i < p->nr_measurements; i++) {
			const struct measurement *m = &p->measurements[i];
			if (m->hotspot == PIVOT_NONE || !m->counter || strcmp(m->counter, order[k]))
				continue;
			if (!found || m->pass_index < low)
				low = m->pass_index;
			found = true;
		}
		if (found) {
			if (lowest_pass)
				*lowest_pass = low;
			return order[k];
		}
	}
	return NULL;
}

bool compare_is_clock(const char *c)
{
	return c && (strcmp(c, "task-clock") == 0 || strcmp(c, "cpu-clock") == 0);
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "[unknown]";
}

/* Takes key, name and module (freed on failure). */
static int push(struct compare_obs_set *s, struct compare_obs o)
{
	if (!o.key || xgrow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0) {
		xfree(o.key);
		xfree(o.name);
		xfree(o.module);
		return -ENOMEM;
	}
	s->v[s->n++] = o;
	return 0;
}

/* An unresolved address carries its build-id in its key: the same offset
 * in another build is another instruction. */
static int push_hotspot(struct compare_obs_set *s, const struct hotspot *h, size_t run,
			double value, int64_t samples, enum quality q)
{
	const char *mod = base_name(h->module);
	char *name = h->name ? hotspot__display_name(h) /* shown: no control characters */
		     : h->has_offset ? xasprintf("%s+0x%" PRIx64, mod, h->offset)
				     : xasprintf("%s", mod);
	char *key = !name ? NULL
		    : h->name ? xasprintf("%s\x1f%s", mod, h->name)
			      : xasprintf("%s\x1f%s@%s", mod, name, h->build_id ? h->build_id : "");
	struct compare_obs o = {COMPARE_HOTSPOT, key, name, xstrdup(mod), -1, run, value,
				samples, q, h->build_id, h->source_file, h->name};
	if (!o.module) {
		xfree(o.key);
		o.key = NULL;
	}
	return push(s, o);
}

static int gather_hotspots(struct compare_obs_set *s, const struct compare_run *r, size_t run,
			   const char *time_base, double scale)
{
	const struct pivot *p = r->pivot;
	int pass = 0;
	compare_time_base(p, &pass);
	double *val = xcalloc(p->nr_hotspots + 1, sizeof(*val));
	int64_t *cnt = xcalloc(p->nr_hotspots + 1, sizeof(*cnt));
	enum quality *q = xcalloc(p->nr_hotspots + 1, sizeof(*q)); /* 0: measured */
	bool *gone = xcalloc(p->nr_hotspots + 1, sizeof(*gone));
	int rc = val && cnt && q && gone ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || (size_t)m->hotspot >= p->nr_hotspots || !m->counter ||
		    strcmp(m->counter, time_base) || m->pass_index != pass)
			continue;
		/* an unavailable value makes the Hotspot's time unknown: never 0,
		 * never "vanished" (issue 16) */
		if (m->quality == QUALITY_UNAVAILABLE || !isfinite(m->value)) {
			gone[m->hotspot] = true;
			continue;
		}
		val[m->hotspot] += m->value * scale;
		cnt[m->hotspot] += m->sample_count > 0 ? m->sample_count : 0;
		q[m->hotspot] = quality__worst(q[m->hotspot], m->quality);
	}
	double total = 0;
	int64_t total_n = 0;
	enum quality total_q = QUALITY_MEASURED;
	for (size_t h = 0; rc == 0 && h < p->nr_hotspots; h++) {
		if (gone[h]) {
			val[h] = NAN;
			q[h] = QUALITY_UNAVAILABLE;
		} else if (cnt[h] <= 0 && val[h] <= 0) {
			continue;
		}
		total += val[h];
		total_n += cnt[h];
		total_q = quality__worst(total_q, q[h]);
		rc = push_hotspot(s, &p->hotspots[h], run, val[h], cnt[h], q[h]);
	}
	if (rc == 0)
		rc = push(s, (struct compare_obs){COMPARE_TOTAL, xstrdup(""), NULL, NULL, -1, run,
						  total, total_n, total_q, NULL, NULL, NULL});
	xfree(val);
	xfree(cnt);
	xfree(q);
	xfree(gone);
	return rc;
}

static int frame_cmp(const void *x, const void *y)
{
	const struct frame *a = *(const struct frame *const *)x, *b = *(const struct frame *const *)y;
	if (a->hotspot != b->hotspot)
		return a->hotspot < b->hotspot ? -1 : 1;
	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Lines: each sampled address of a named Hotspot under the line of its
 * innermost inline frame (as the report's line view), keyed by function,
 * file basename and line. Whether its build may be compared is decided later. */
static int gather_lines(struct compare_obs_set *s, const struct pivot *p, size_t run,
			const char *time_base, double scale)
{
	int pass = 0;
	compare_time_base(p, &pass);
	const struct frame **idx = xcalloc(p->nr_frames + 1, sizeof(*idx));
	size_t n = 0;
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_frames; i++)
		if (p->frames[i].depth == 0 && p->frames[i].line > 0)
			idx[n++] = &p->frames[i];
	qsort(idx, n, sizeof(*idx), frame_cmp);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nr_addresses; i++) {
		const struct address *a = &p->addresses[i];
		if (a->hotspot < 0 || (size_t)a->hotspot >= p->nr_hotspots || !a->counter ||
		    strcmp(a->counter, time_base) || a->pass_index != pass)
			continue;
		const struct hotspot *h = &p->hotspots[a->hotspot];
		struct frame key = {.hotspot = a->hotspot, .offset = a->offset};
		const struct frame *kp = &key, **f = n ? bsearch(&kp, idx, n, sizeof(*idx), frame_cmp) : NULL;
		if (!f || !h->name || !h->build_id)
			continue;
		const char *mod = base_name(h->module), *file = base_name((*f)->file);
		char *shown = hotspot__display_name(h);
		char *name = shown ? xasprintf("%s at %s:%d", shown, file, (*f)->line) : NULL;
		xfree(shown);
		struct compare_obs o = {COMPARE_LINE, name ? xasprintf("%s\x1f%s", mod, name) : NULL,
					name, xstrdup(mod), -1, run, a->value * scale,
					a->sample_count > 0 ? a->sample_count : 0, QUALITY_MEASURED,
					h->build_id, NULL, NULL};
		if (!o.module) {
			xfree(o.key);
			o.key = NULL;
		}
		rc = push(s, o);
	}
	xfree(idx);
	return rc;
}

/* Regions: inclusive time of each call path, summed over Loci (ns, traced). */
static int gather_regions(struct compare_obs_set *s, const struct pivot *p, size_t run)
{
	for (size_t i = 0; i < p->nr_region_stats; i++) {
		const struct region_stat *rs = &p->region_stats[i];
		if (!rs->path)
			continue;
		struct compare_obs o = {COMPARE_REGION, xstrdup(rs->path), xstrdup(rs->path), NULL,
					-1, run, (double)rs->inclusive_ns * 1e-9, -1,
					QUALITY_MEASURED, NULL, NULL, NULL};
		if (!o.name) {
			xfree(o.key);
			o.key = NULL;
		}
		if (push(s, o) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Ranks by number: counted task-clock (no sampling error), else samples. */
static int gather_ranks(struct compare_obs_set *s, const struct compare_run *r, size_t run,
			double scale)
{
	struct rank_imbalance ri;
	memset(&ri, 0, sizeof(ri));
	if (imbalance_ranks(r->pivot, r->world_size, &ri) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < ri.nr_rows; i++) {
		const struct rank_row *row = &ri.rows[i];
		if (!row->present || !isfinite(row->time_ns))
			continue;
		bool sampled = row->time_source && strcmp(row->time_source, "samples") == 0;
		struct compare_obs o = {COMPARE_RANK, xasprintf("%08d", row->rank),
					xasprintf("rank %d", row->rank), NULL, row->rank, run,
					row->time_ns * (sampled ? scale : 1e-9),
					sampled ? row->samples : -1, QUALITY_MEASURED, NULL, NULL,
					NULL};
		if (!o.name) {
			xfree(o.key);
			o.key = NULL;
		}
		rc = push(s, o);
	}
	rank_imbalance__release(&ri);
	return rc;
}

int compare_gather_run(struct compare_obs_set *s, const struct compare_run *r, size_t run,
		       const char *time_base, double scale)
{
	int rc = gather_hotspots(s, r, run, time_base, scale);
	if (rc == 0)
		rc = gather_regions(s, r->pivot, run);
	if (rc == 0)
		rc = gather_ranks(s, r, run, scale);
	if (rc == 0)
		rc = gather_lines(s, r->pivot, run, time_base, scale);
	return rc;
}

static int obs_cmp(const void *x, const void *y)
{
	const struct compare_obs *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return (a->run > b->run) - (a->run < b->run);
}

void compare_obs_set__sort(struct compare_obs_set *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), obs_cmp);
}

void compare_obs_set__release(struct compare_obs_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		xfree(s->v[i].key);
		xfree(s->v[i].name);
		xfree(s->v[i].module);
	}
	xfree(s->v);
	memset(s, 0, sizeof(*s));
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

char *compare_counter_set(const struct pivot *p)
{
	const char **v = xcalloc(p->nr_measurements + 1, sizeof(*v));
	size_t n = 0, len = 1;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const char *c = p->measurements[i].counter;
		if (p->measurements[i].hotspot == PIVOT_NONE || !c)
			continue;
		size_t k = 0;
		while (k < n && strcmp(v[k], c))
			k++;
		if (k == n) {
			v[n++] = c;
			len += strlen(c) + 1;
		}
	}
	qsort(v, n, sizeof(*v), str_cmp);
	char *out = xmalloc(len);
	if (out) {
		out[0] = '\0';
		for (size_t k = 0; k < n; k++) {
			if (k)
				strcat(out, ",");
			strcat(out, v[k]);
		}
	}
	xfree(v);
	return out;
}
