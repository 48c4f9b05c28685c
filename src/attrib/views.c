// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/views.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "common/alloc.h"
#include "model/model.h"

static bool streq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

const char *attrib_time_base(const struct pivot *p)
{
	return pivot__time_base(p);
}

static int lowest_pass(const struct pivot *p, const char *counter)
{
	int lo = -1;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot >= 0 && streq(m->counter, counter) && (lo < 0 || m->pass_index < lo))
			lo = m->pass_index;
	}
	return lo < 0 ? 0 : lo;
}

/* Depth-0 frames sorted by (hotspot, offset): the innermost frame of each
 * sampled address by binary search. */
struct inner_index {
	const struct frame **v;
	size_t n;
};

static int frame_key_cmp(const void *x, const void *y)
{
	const struct frame *a = *(const struct frame *const *)x, *b = *(const struct frame *const *)y;
	if (a->hotspot != b->hotspot)
		return a->hotspot < b->hotspot ? -1 : 1;
	return (a->offset > b->offset) - (a->offset < b->offset);
}

static int inner_index__build(struct inner_index *ix, const struct pivot *p)
{
	ix->n = 0;
	ix->v = xcalloc(p->nr_frames ? p->nr_frames : 1, sizeof(*ix->v));
	if (!ix->v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_frames; i++)
		if (p->frames[i].depth == 0)
			ix->v[ix->n++] = &p->frames[i];
	qsort(ix->v, ix->n, sizeof(*ix->v), frame_key_cmp);
	return 0;
}

static const struct frame *innermost(const struct inner_index *ix, int64_t hotspot, uint64_t offset)
{
	struct frame key = {.hotspot = hotspot, .offset = offset};
	const struct frame *kp = &key;
	const struct frame **hit = bsearch(&kp, ix->v, ix->n, sizeof(*ix->v), frame_key_cmp);
	return hit ? *hit : NULL;
}

struct acc {
	struct attrib_share *v;
	size_t n, cap;
	int64_t *last_site; /* per entry: last Hotspot counted in sites */
};

static int acc__add(struct acc *a, const struct attrib_share *key, double value, int64_t site)
{
	for (size_t i = 0; i < a->n; i++) {
		struct attrib_share *s = &a->v[i];
		if (s->line == key->line && streq(s->file, key->file) && streq(s->function, key->function)) {
			s->value += value;
			if (a->last_site[i] != site) {
				a->last_site[i] = site;
				s->sites++;
			}
			return 0;
		}
	}
	size_t cap = a->cap;
	if (xgrow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)) ||
	    xgrow((void **)&a->last_site, &cap, a->n + 1, sizeof(*a->last_site)))
		return -ENOMEM;
	a->v[a->n] = *key;
	a->v[a->n].value = value;
	a->v[a->n].sites = 1;
	a->last_site[a->n++] = site;
	return 0;
}

enum view { VIEW_LINES, VIEW_INLINE };

/* Weight per key over the address rows of one Hotspot (or all, hotspot < 0). */
static int accumulate(const struct pivot *p, int64_t hotspot, const char *counter, enum view v,
		      struct acc *a, double *total)
{
	int pass = lowest_pass(p, counter);
	struct inner_index ix;
	*total = 0;
	if (inner_index__build(&ix, p))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_addresses; i++) {
		const struct address *ad = &p->addresses[i];
		if ((hotspot >= 0 && ad->hotspot != hotspot) || !streq(ad->counter, counter) ||
		    ad->pass_index != pass)
			continue;
		*total += ad->value;
		const struct frame *f = innermost(&ix, ad->hotspot, ad->offset);
		if (!f)
			continue;
		struct attrib_share key = {.file = f->file};
		if (v == VIEW_LINES) {
			if (!f->file || f->line <= 0)
				continue;
			key.line = f->line;
		} else {
			key.function = f->function;
			key.line = f->declaration_line;
		}
		if (acc__add(a, &key, ad->value, ad->hotspot)) {
			xfree(ix.v);
			return -ENOMEM;
		}
	}
	xfree(ix.v);
	return 0;
}

static int by_value(const void *x, const void *y)
{
	const struct attrib_share *a = x, *b = y;
	return (a->value < b->value) - (a->value > b->value);
}

static int by_line(const void *x, const void *y)
{
	const struct attrib_share *a = x, *b = y;
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

static int finish(struct acc *a, double total, int (*cmp)(const void *, const void *),
		  struct attrib_share **out, size_t *nr)
{
	for (size_t i = 0; i < a->n; i++)
		a->v[i].share = total > 0 ? a->v[i].value / total : NAN;
	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), cmp);
	xfree(a->last_site);
	*out = a->v;
	*nr = a->n;
	return 0;
}

static int view(const struct pivot *p, int64_t hotspot, const char *counter, enum view v,
		int (*cmp)(const void *, const void *), struct attrib_share **out, size_t *nr)
{
	struct acc a = {0};
	double total = 0;
	*out = NULL;
	*nr = 0;
	if (!counter && !(counter = attrib_time_base(p)))
		return 0;
	if (accumulate(p, hotspot, counter, v, &a, &total)) {
		xfree(a.v);
		xfree(a.last_site);
		return -ENOMEM;
	}
	return finish(&a, total, cmp, out, nr);
}

int attrib_lines(const struct pivot *p, int64_t hotspot, const char *counter,
		 struct attrib_share **out, size_t *nr)
{
	return view(p, hotspot, counter, VIEW_LINES, by_line, out, nr);
}

int attrib_inline_frames(const struct pivot *p, int64_t hotspot, const char *counter,
			 struct attrib_share **out, size_t *nr)
{
	return view(p, hotspot, counter, VIEW_INLINE, by_value, out, nr);
}

int attrib_inline_view(const struct pivot *p, const char *counter, struct attrib_share **out,
		       size_t *nr)
{
	int rc = view(p, -1, counter, VIEW_INLINE, by_value, out, nr);
	if (rc || !*nr)
		return rc;
	/* the denominator is every sampled weight, unresolved Hotspots included */
	if (!counter)
		counter = attrib_time_base(p);
	int pass = lowest_pass(p, counter);
	double total = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot >= 0 && streq(m->counter, counter) && m->pass_index == pass &&
		    m->quality != QUALITY_UNAVAILABLE)
			total += m->value;
	}
	for (size_t i = 0; i < *nr; i++)
		(*out)[i].share = total > 0 ? (*out)[i].value / total : NAN;
	return 0;
}

int attrib_hottest_line(const struct pivot *p, int64_t hotspot, const char *counter,
			struct attrib_share *out)
{
	struct attrib_share *v;
	size_t n;
	int rc = attrib_lines(p, hotspot, counter, &v, &n);
	if (rc)
		return rc;
	size_t best = 0;
	for (size_t i = 1; i < n; i++)
		if (v[i].value > v[best].value)
			best = i;
	if (n)
		*out = v[best];
	xfree(v);
	return n ? 0 : -ENOENT;
}
