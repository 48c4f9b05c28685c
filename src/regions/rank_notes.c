// SPDX-License-Identifier: BSD-3-Clause
#include "regions/rank_notes.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"

int64_t rank_notes_diff_ns(int64_t a, int64_t b)
{
	int64_t d;
	if (__builtin_sub_overflow(a, b, &d))
		return a > b ? INT64_MAX : INT64_MIN;
	return d;
}

static int copy_misuse(struct rank_note *r, const struct spt_misuse *m)
{
	if (m->kind < 0 || m->kind >= SP_MISUSE_KIND_NR)
		return 0; /* a newer kind: not ours to name */
	struct misuse_note *k = &r->misuse[m->kind];
	k->count += m->count;
	if (!m->nr_names || k->names)
		return 0;
	k->names = xcalloc((size_t)m->nr_names + 1, sizeof(*k->names));
	k->counts = xcalloc((size_t)m->nr_names + 1, sizeof(*k->counts));
	if (!k->names || !k->counts)
		return -ENOMEM;
	for (int32_t i = 0; i < m->nr_names; i++) {
		k->names[i] = xstrndup(m->names[i].name, m->names[i].name_len);
		if (!k->names[i])
			return -ENOMEM;
		k->counts[i] = m->names[i].count;
		k->nr_names = (size_t)i + 1;
	}
	return 0;
}

static int copy_timing(struct rank_note *r, const struct spt_trace *t)
{
	const struct spt_ext *x = &t->ext;
	r->has_timing = x->has_timing;
	r->init_ns = x->init_ns;
	r->finalize_ns = x->finalize_ns;
	r->init_real_ns = x->init_real_ns;
	r->start_ns = x->start_ns;
	r->nr_lanes = x->nr_lanes;
	r->lanes = xcalloc((size_t)x->nr_lanes + 1, sizeof(*r->lanes));
	if (!r->lanes)
		return -ENOMEM;
	for (int32_t l = 0; l < x->nr_lanes; l++) {
		const unsigned char *p = x->lanes + (size_t)l * 24;
		r->lanes[l] = (struct lane_time){spt_load_i64(p, t->swap),
						 spt_load_i64(p + 8, t->swap),
						 spt_load_i64(p + 16, t->swap), ""};
		if (l < t->nr_threads) {
			uint32_t k = t->threads[l].name_len;
			k = k < sizeof(r->lanes[l].name) - 1 ? k : sizeof(r->lanes[l].name) - 1;
			memcpy(r->lanes[l].name, t->threads[l].name, k);
			r->lanes[l].name[k] = 0;
		}
	}
	return 0;
}

int rank_notes__add(struct rank_notes *n, const struct spt_trace *t, int32_t rank)
{
	if (!t->cut.cut && !t->ext.present)
		return 0;
	if (xgrow((void **)&n->v, &n->cap, n->nr + 1, sizeof(*n->v)))
		return -ENOMEM;
	struct rank_note *r = &n->v[n->nr++];
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->cut = t->cut;
	int rc = copy_timing(r, t);
	for (int32_t i = 0; rc == 0 && i < t->ext.nr_misuse; i++)
		rc = copy_misuse(r, &t->ext.misuse[i]);
	return rc;
}

void rank_notes__release(struct rank_notes *n)
{
	for (size_t i = 0; i < n->nr; i++) {
		struct rank_note *r = &n->v[i];
		for (int k = 0; k < SP_MISUSE_KIND_NR; k++) {
			for (size_t j = 0; j < r->misuse[k].nr_names; j++)
				xfree(r->misuse[k].names[j]);
			xfree(r->misuse[k].names);
			xfree(r->misuse[k].counts);
		}
		xfree(r->lanes);
	}
	xfree(n->v);
	memset(n, 0, sizeof(*n));
}

/* The start of the run: the process start when the trace knows it, else
 * sp_init (the seed's setup() moment). */
static int64_t run_start(const struct rank_note *r)
{
	return r->start_ns >= 0 ? r->start_ns : r->init_ns;
}

int64_t rank_note__startup_ns(const struct rank_note *r)
{
	int64_t first = -1;
	for (int32_t l = 0; l < r->nr_lanes; l++)
		if (r->lanes[l].first_ns > 0 && (first < 0 || r->lanes[l].first_ns < first))
			first = r->lanes[l].first_ns;
	return first >= 0 ? rank_notes_diff_ns(first, run_start(r)) : -1;
}
