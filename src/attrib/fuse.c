// SPDX-License-Identifier: BSD-3-Clause
/* Rewriting the pivot once addresses have names: fusion by physical identity. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "attrib/internal.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/hashtab.h"

/* A string -> id map over the common string table: fusion keys are built as
 * strings so every identity rule is spelled out in one place. The table
 * interns keys to dense indices; ids[] holds the id each key was given. */
struct keymap {
	struct strtab t;
	int64_t *ids;
	size_t cap;
};

/* Looks key up; when absent stores (key, id). Frees key. Returns the id, or -ENOMEM. */
static int64_t keymap__intern_take(struct keymap *m, char *key, int64_t id, bool *added)
{
	*added = false;
	if (!key)
		return -ENOMEM;
	bool add = false;
	int64_t k = strtab__intern(&m->t, key, strlen(key), &add);
	xfree(key);
	if (k < 0)
		return -ENOMEM;
	if (add) {
		if (xgrow((void **)&m->ids, &m->cap, (size_t)k + 1, sizeof(*m->ids)))
			return -ENOMEM;
		m->ids[k] = id;
		*added = true;
	}
	return m->ids[k];
}

static void keymap__release(struct keymap *m)
{
	strtab__release(&m->t);
	xfree(m->ids);
	memset(m, 0, sizeof(*m));
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* Physical identity: module + function start; without a start, the logical
 * identity (module, name, file) is all there is. */
static char *hotspot_key(const struct hotspot *hs, const struct hotspot_attr *a, size_t h)
{
	const struct attrib_chain *ch = a->chain;
	if (a->fold && (!ch || !ch->nr_frames))
		return xasprintf("f\x1f%s", hs->module);
	if (!ch || !ch->nr_frames)
		return xasprintf("u\x1f%zu", h);
	const struct attrib_frame *ph = &ch->frames[ch->nr_frames - 1];
	if (ph->has_start)
		return xasprintf("s\x1f%s\x1f%" PRIx64, hs->module, ph->start);
	return xasprintf("n\x1f%s\x1f%s\x1f%s", hs->module, ph->function, nz(ph->file));
}

static int64_t add_named(struct pivot *np, const struct hotspot *hs, const struct hotspot_attr *a)
{
	const struct attrib_frame *ph = &a->chain->frames[a->chain->nr_frames - 1];
	struct hotspot n = *hs;
	n.name = ph->function;
	n.source_file = ph->file;
	n.level = a->level;
	n.build_id = hs->build_id ? hs->build_id : (char *)a->build_id;
	n.offset = ph->has_start ? ph->start : hs->offset;
	n.has_offset = ph->has_start;
	return pivot__add_hotspot(np, &n);
}

static int fuse_hotspots(struct pivot *p, struct pivot *np, const struct hotspot_attr *attr,
			 int64_t *map)
{
	struct keymap km = {0};
	int rc = 0;
	for (size_t h = 0; !rc && h < p->nr_hotspots; h++) {
		const struct hotspot_attr *a = &attr[h];
		bool named = a->chain && a->chain->nr_frames, added;
		int64_t id = keymap__intern_take(&km, hotspot_key(&p->hotspots[h], a, h),
						 (int64_t)np->nr_hotspots, &added);
		if (id < 0) {
			rc = (int)id;
			break;
		}
		if (added) {
			struct hotspot copy = p->hotspots[h];
			if (!copy.build_id && a->build_id)
				copy.build_id = (char *)a->build_id;
			if (a->fold) {
				copy.offset = 0;
				copy.has_offset = false;
			}
			int64_t got = named ? add_named(np, &p->hotspots[h], a)
					    : pivot__add_hotspot(np, &copy);
			if (got < 0)
				rc = (int)got;
		}
		map[h] = id;
	}
	keymap__release(&km);
	return rc;
}

static int64_t remap(const int64_t *map, size_t n, int64_t id)
{
	return id >= 0 && (size_t)id < n ? map[id] : id;
}

/* Measurements onto the fused Hotspots, equal keys summed (the totals stay). */
static int fuse_measurements(struct pivot *p, struct pivot *np, const int64_t *map)
{
	struct keymap km = {0};
	int rc = 0;
	for (size_t i = 0; !rc && i < p->nr_measurements; i++) {
		struct measurement m = p->measurements[i];
		m.hotspot = remap(map, p->nr_hotspots, m.hotspot);
		bool added;
		char *key = m.hotspot < 0 ? xasprintf("i\x1f%zu", i)
			: xasprintf("%" PRId64 "\x1f%" PRId64 "\x1f%d\x1f%s\x1f%s\x1f%d\x1f%s", m.hotspot,
				    m.locus, m.pass_index, nz(m.counter), nz(m.unit), (int)m.quality,
				    nz(m.reason));
		int64_t id = keymap__intern_take(&km, key, (int64_t)np->nr_measurements, &added);
		if (id < 0) {
			rc = (int)id;
		} else if (added) {
			if (pivot__add_measurement(np, &m) < 0)
				rc = -ENOMEM;
		} else {
			struct measurement *t = &np->measurements[id];
			t->value += m.value;
			if (t->sample_count >= 0 && m.sample_count >= 0)
				t->sample_count += m.sample_count;
		}
	}
	keymap__release(&km);
	return rc;
}

/* Per-address detail of named Hotspots, aggregated over Loci, plus chains. */
static int derive_addresses(struct pivot *p, struct pivot *np, const struct hotspot_attr *attr,
			    const int64_t *map)
{
	struct keymap km = {0};
	int rc = 0;
	for (size_t i = 0; !rc && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || (size_t)m->hotspot >= p->nr_hotspots ||
		    !attr[m->hotspot].chain || !attr[m->hotspot].chain->nr_frames ||
		    m->quality == QUALITY_UNAVAILABLE)
			continue;
		const struct hotspot *hs = &p->hotspots[m->hotspot];
		struct address a = {.hotspot = map[m->hotspot], .offset = hs->offset,
				    .pass_index = m->pass_index, .counter = m->counter,
				    .value = m->value, .sample_count = m->sample_count};
		bool added;
		int64_t id = keymap__intern_take(
			&km, xasprintf("%" PRId64 "\x1f%" PRIx64 "\x1f%d\x1f%s", a.hotspot, a.offset,
				       a.pass_index, nz(a.counter)),
			(int64_t)np->nr_addresses, &added);
		if (id < 0) {
			rc = (int)id;
		} else if (added) {
			if (pivot__add_address(np, &a) < 0)
				rc = -ENOMEM;
		} else {
			np->addresses[id].value += a.value;
			if (np->addresses[id].sample_count >= 0 && a.sample_count >= 0)
				np->addresses[id].sample_count += a.sample_count;
		}
	}
	keymap__release(&km);
	for (size_t h = 0; !rc && h < p->nr_hotspots; h++) {
		const struct attrib_chain *ch = attr[h].chain;
		for (size_t k = 0; !rc && ch && k < ch->nr_frames; k++) {
			struct frame f = {.hotspot = map[h], .offset = p->hotspots[h].offset,
					  .depth = (int)k, .function = ch->frames[k].function,
					  .file = ch->frames[k].file, .line = ch->frames[k].line,
					  .declaration_line = ch->frames[k].decl_line};
			if (pivot__add_frame(np, &f) < 0)
				rc = -ENOMEM;
		}
	}
	return rc;
}

/* Rows ingestion or an earlier step wrote: kept, Hotspot ids remapped; the
 * addresses and frames of Hotspots named now are re-derived instead. */
static int carry_rows(struct pivot *p, struct pivot *np, const struct hotspot_attr *attr,
		      const int64_t *map)
{
	size_t nh = p->nr_hotspots;
#define FRESH(id) ((id) >= 0 && (size_t)(id) < nh && attr[id].chain && attr[id].chain->nr_frames)
	for (size_t i = 0; i < p->nr_addresses; i++) {
		struct address a = p->addresses[i];
		if (FRESH(a.hotspot))
			continue;
		a.hotspot = remap(map, nh, a.hotspot);
		if (pivot__add_address(np, &a) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr_frames; i++) {
		struct frame f = p->frames[i];
		if (FRESH(f.hotspot))
			continue;
		f.hotspot = remap(map, nh, f.hotspot);
		if (pivot__add_frame(np, &f) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr_extracts; i++) {
		struct extract x = p->extracts[i];
		x.hotspot = remap(map, nh, x.hotspot);
		if (pivot__add_extract(np, &x) < 0)
			return -ENOMEM;
	}
#undef FRESH
	return 0;
}

#define SWAP_ARRAY(a, b, field)                                                  \
	do {                                                                     \
		struct pivot tmp_;                                               \
		tmp_.field = (a)->field;                                         \
		tmp_.nr_##field = (a)->nr_##field;                               \
		tmp_.cap_##field = (a)->cap_##field;                             \
		(a)->field = (b)->field;                                         \
		(a)->nr_##field = (b)->nr_##field;                               \
		(a)->cap_##field = (b)->cap_##field;                             \
		(b)->field = tmp_.field;                                         \
		(b)->nr_##field = tmp_.nr_##field;                               \
		(b)->cap_##field = tmp_.cap_##field;                             \
	} while (0)

int attrib_fuse(struct pivot *p, const struct hotspot_attr *attr, struct err *e)
{
	struct pivot np;
	pivot__init(&np);
	int64_t *map = xcalloc(p->nr_hotspots ? p->nr_hotspots : 1, sizeof(*map));
	int rc = map ? 0 : -ENOMEM;
	if (!rc)
		rc = fuse_hotspots(p, &np, attr, map);
	if (!rc)
		rc = fuse_measurements(p, &np, map);
	if (!rc)
		rc = carry_rows(p, &np, attr, map);
	if (!rc)
		rc = derive_addresses(p, &np, attr, map);
	if (!rc) {
		SWAP_ARRAY(p, &np, hotspots);
		SWAP_ARRAY(p, &np, measurements);
		SWAP_ARRAY(p, &np, addresses);
		SWAP_ARRAY(p, &np, frames);
		SWAP_ARRAY(p, &np, extracts);
	}
	pivot__release(&np);
	xfree(map);
	if (rc)
		err_set(e, rc, ERR_OOM, "attribution: out of memory while fusing Hotspots");
	return rc;
}
