// SPDX-License-Identifier: BSD-3-Clause
// The pivot's SQL tables: one descriptor per pivot array. Column names follow
// the reference's Parquet tables (REFERENCE.md §2) so queries port over.
// Absent values are NULL, never 0 (see pivot_db.h); every reference is
// checked on read, so a hand-edited file cannot make an id dangle.
#include "store/pivot_tables.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/model.h"

/* ---- binding ---- */

static void b_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC); /* the pivot outlives the step */
	else
		sqlite3_bind_null(st, i);
}

static void b_int(sqlite3_stmt *st, int i, int64_t v, bool present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static void b_real(sqlite3_stmt *st, int i, double v, bool present)
{
	if (present && isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* ---- loading ---- */

static bool c_null(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL;
}

static const char *c_text(sqlite3_stmt *st, int c)
{
	return c_null(st, c) ? NULL : (const char *)sqlite3_column_text(st, c);
}

static int64_t c_int(sqlite3_stmt *st, int c, int64_t absent)
{
	return c_null(st, c) ? absent : sqlite3_column_int64(st, c);
}

static double c_real(sqlite3_stmt *st, int c)
{
	return c_null(st, c) ? NAN : sqlite3_column_double(st, c);
}

static int c_ref(sqlite3_stmt *st, int c, size_t n, const char *col, bool nullable,
		 int64_t *out, struct err *e)
{
	if (c_null(st, c) && nullable) {
		*out = PIVOT_NONE;
		return 0;
	}
	int64_t v = sqlite3_column_int64(st, c);
	if (c_null(st, c) || v < 0 || (uint64_t)v >= n)
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s %lld refers to no row", col,
			       c_null(st, c) ? -1LL : (long long)v);
	*out = v;
	return 0;
}

static int c_int32(sqlite3_stmt *st, int c, int absent)
{
	int64_t v = c_int(st, c, absent);
	return v < INT32_MIN || v > INT32_MAX ? absent : (int)v;
}

static int added(int64_t id, struct err *e)
{
	return id < 0 ? err_oom(e) : 0;
}

/* ---- hotspots ---- */

static size_t n_hotspots(const struct pivot *p) { return p->nr_hotspots; }
static void bind_hotspot(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct hotspot *h = &p->hotspots[i];
	b_text(st, 2, h->module);
	b_text(st, 3, h->build_id);
	b_text(st, 4, h->name);
	b_text(st, 5, h->source_file);
	b_text(st, 6, resolution__name(h->level));
	b_int(st, 7, (int64_t)h->offset, h->has_offset);
}
static int load_hotspot(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct hotspot h = {0};
	h.module = (char *)c_text(st, 1);
	h.build_id = (char *)c_text(st, 2);
	h.name = (char *)c_text(st, 3);
	h.source_file = (char *)c_text(st, 4);
	if (resolution__parse(c_text(st, 5), &h.level))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "resolution_level \"%s\" is unknown",
			       c_text(st, 5) ? c_text(st, 5) : "NULL");
	h.has_offset = !c_null(st, 6);
	h.offset = (uint64_t)c_int(st, 6, 0);
	return added(pivot__add_hotspot(p, &h), e);
}

/* ---- loci ---- */

static size_t n_loci(const struct pivot *p) { return p->nr_loci; }
static void bind_locus(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct locus *l = &p->loci[i];
	b_text(st, 2, l->node);
	b_int(st, 3, l->rank, l->rank >= 0);
	b_int(st, 4, l->thread, l->thread >= 0);
	b_int(st, 5, l->pid, l->pid > 0);
}
static int load_locus(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct locus l = {.node = (char *)c_text(st, 1), .rank = c_int32(st, 2, -1),
			  .thread = c_int(st, 3, -1), .pid = c_int(st, 4, 0)};
	return added(pivot__add_locus(p, &l), e);
}

/* ---- measurements ---- */

static size_t n_measurements(const struct pivot *p) { return p->nr_measurements; }
static void bind_measurement(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct measurement *m = &p->measurements[i];
	b_int(st, 2, m->hotspot, m->hotspot >= 0);
	b_int(st, 3, m->locus, true);
	b_int(st, 4, m->pass_index, true);
	b_text(st, 5, m->counter);
	b_real(st, 6, m->value, m->quality != QUALITY_UNAVAILABLE);
	b_text(st, 7, m->unit);
	b_text(st, 8, quality__name(m->quality));
	b_text(st, 9, m->reason);
	b_int(st, 10, m->sample_count, m->sample_count >= 0);
	b_real(st, 11, m->coverage, m->coverage >= 0);
}
static int load_measurement(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct measurement m = {0};
	int rc = c_ref(st, 1, p->nr_hotspots, "hotspot", true, &m.hotspot, e);
	if (!rc)
		rc = c_ref(st, 2, p->nr_loci, "locus", false, &m.locus, e);
	if (rc)
		return rc;
	m.pass_index = c_int32(st, 3, 0);
	m.counter = (char *)c_text(st, 4);
	m.value = c_real(st, 5);
	m.unit = (char *)c_text(st, 6);
	if (quality__parse(c_text(st, 7), &m.quality))
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "quality \"%s\" is unknown",
			       c_text(st, 7) ? c_text(st, 7) : "NULL");
	m.reason = (char *)c_text(st, 8);
	if (isnan(m.value) && m.quality != QUALITY_UNAVAILABLE) {
		/* A value without a number is unavailable, whatever the row claims. */
		m.quality = QUALITY_UNAVAILABLE;
		if (!m.reason)
			m.reason = (char *)"no value recorded";
	}
	m.sample_count = c_int(st, 9, -1);
	m.coverage = c_null(st, 10) ? -1 : c_real(st, 10);
	return added(pivot__add_measurement(p, &m), e);
}

/* ---- addresses ---- */

static size_t n_addresses(const struct pivot *p) { return p->nr_addresses; }
static void bind_address(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct address *a = &p->addresses[i];
	b_int(st, 2, a->hotspot, true);
	b_int(st, 3, (int64_t)a->offset, true);
	b_int(st, 4, a->pass_index, true);
	b_text(st, 5, a->counter);
	b_real(st, 6, a->value, true);
	b_int(st, 7, a->sample_count, a->sample_count >= 0);
}
static int load_address(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct address a = {0};
	int rc = c_ref(st, 1, p->nr_hotspots, "hotspot", false, &a.hotspot, e);
	if (rc)
		return rc;
	a.offset = (uint64_t)c_int(st, 2, 0);
	a.pass_index = c_int32(st, 3, 0);
	a.counter = (char *)c_text(st, 4);
	a.value = c_real(st, 5);
	a.sample_count = c_int(st, 6, -1);
	return added(pivot__add_address(p, &a), e);
}

/* ---- frames ---- */

static size_t n_frames(const struct pivot *p) { return p->nr_frames; }
static void bind_frame(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct frame *f = &p->frames[i];
	b_int(st, 2, f->hotspot, true);
	b_int(st, 3, (int64_t)f->offset, true);
	b_int(st, 4, f->depth, true);
	b_text(st, 5, f->function);
	b_text(st, 6, f->file);
	b_int(st, 7, f->line, f->line > 0);
	b_int(st, 8, f->declaration_line, f->declaration_line > 0);
}
static int load_frame(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct frame f = {0};
	int rc = c_ref(st, 1, p->nr_hotspots, "hotspot", false, &f.hotspot, e);
	if (rc)
		return rc;
	f.offset = (uint64_t)c_int(st, 2, 0);
	f.depth = c_int32(st, 3, 0);
	f.function = (char *)c_text(st, 4);
	f.file = (char *)c_text(st, 5);
	f.line = c_int32(st, 6, 0);
	f.declaration_line = c_int32(st, 7, 0);
	return added(pivot__add_frame(p, &f), e);
}

/* ---- extracts ---- */

static size_t n_extracts(const struct pivot *p) { return p->nr_extracts; }
static void bind_extract(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct extract *x = &p->extracts[i];
	b_int(st, 2, x->hotspot, true);
	b_text(st, 3, x->file);
	b_text(st, 4, x->resolved_path);
	b_int(st, 5, x->start_line, x->start_line > 0);
	b_int(st, 6, x->end_line, x->end_line > 0);
	b_text(st, 7, x->text);
	b_int(st, 8, x->truncated, true);
	b_text(st, 9, x->reason);
}
static int load_extract(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct extract x = {0};
	int rc = c_ref(st, 1, p->nr_hotspots, "hotspot", false, &x.hotspot, e);
	if (rc)
		return rc;
	x.file = (char *)c_text(st, 2);
	x.resolved_path = (char *)c_text(st, 3);
	x.start_line = c_int32(st, 4, 0);
	x.end_line = c_int32(st, 5, 0);
	x.text = (char *)c_text(st, 6);
	x.truncated = c_int(st, 7, 0) != 0;
	x.reason = (char *)c_text(st, 8);
	return added(pivot__add_extract(p, &x), e);
}

/* ---- stacks and their frames ---- */

static size_t n_stacks(const struct pivot *p) { return p->nr_stacks; }
static void bind_stack(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct stack *s = &p->stacks[i];
	b_int(st, 2, s->locus, true);
	b_int(st, 3, s->pass_index, true);
	b_text(st, 4, s->counter);
	b_real(st, 5, s->value, true);
	b_text(st, 6, s->unit);
	b_int(st, 7, s->sample_count, s->sample_count >= 0);
}
static int load_stack(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct stack s = {0};
	int rc = c_ref(st, 1, p->nr_loci, "locus", false, &s.locus, e);
	if (rc)
		return rc;
	s.pass_index = c_int32(st, 2, 0);
	s.counter = (char *)c_text(st, 3);
	s.value = c_real(st, 4);
	s.unit = (char *)c_text(st, 5);
	s.sample_count = c_int(st, 6, -1);
	return added(pivot__add_stack(p, &s), e);
}

static size_t n_stack_frames(const struct pivot *p) { return p->nr_stack_frames; }
static void bind_stack_frame(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct stack_frame *f = &p->stack_frames[i];
	b_int(st, 2, f->stack, true);
	b_int(st, 3, f->depth, true);
	b_text(st, 4, f->module);
	b_int(st, 5, (int64_t)f->offset, true);
	b_text(st, 6, f->function);
}
static int load_stack_frame(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct stack_frame f = {0};
	int rc = c_ref(st, 1, p->nr_stacks, "stack", false, &f.stack, e);
	if (rc)
		return rc;
	f.depth = c_int32(st, 2, 0);
	f.module = (char *)c_text(st, 3);
	f.offset = (uint64_t)c_int(st, 4, 0);
	f.function = (char *)c_text(st, 5);
	return added(pivot__add_stack_frame(p, &f), e);
}

/* ---- region statistics ---- */

static size_t n_region_stats(const struct pivot *p) { return p->nr_region_stats; }
static void bind_region_stat(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct region_stat *r = &p->region_stats[i];
	b_int(st, 2, r->locus, true);
	b_text(st, 3, r->path);
	b_text(st, 4, r->name);
	b_int(st, 5, r->calls, true);
	b_int(st, 6, r->inclusive_ns, true);
	b_int(st, 7, r->exclusive_ns, true);
}
static int load_region_stat(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct region_stat r = {0};
	int rc = c_ref(st, 1, p->nr_loci, "locus", false, &r.locus, e);
	if (rc)
		return rc;
	r.path = (char *)c_text(st, 2);
	r.name = (char *)c_text(st, 3);
	r.calls = c_int(st, 4, 0);
	r.inclusive_ns = c_int(st, 5, 0);
	r.exclusive_ns = c_int(st, 6, 0);
	return added(pivot__add_region_stat(p, &r), e);
}

/* ---- samples per region (additive table) ---- */

static size_t n_region_samples(const struct pivot *p) { return p->nr_region_samples; }
static void bind_region_sample(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct region_sample *r = &p->region_samples[i];
	b_text(st, 2, r->region_path);
	b_int(st, 3, r->locus, true);
	b_int(st, 4, r->hotspot, true);
	b_text(st, 5, r->counter);
	b_real(st, 6, r->value, true);
	b_int(st, 7, r->sample_count, true);
}
static int load_region_sample(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct region_sample r = {0};
	int rc = c_ref(st, 2, p->nr_loci, "locus", false, &r.locus, e);
	if (!rc)
		rc = c_ref(st, 3, p->nr_hotspots, "hotspot", false, &r.hotspot, e);
	if (rc)
		return rc;
	r.region_path = (char *)c_text(st, 1);
	r.counter = (char *)c_text(st, 4);
	r.value = c_real(st, 5);
	r.sample_count = c_int(st, 6, 0);
	return added(pivot__add_region_sample(p, &r), e);
}

/* ---- MPI calls, call sites and events (additive tables) ---- */

static size_t n_mpi_calls(const struct pivot *p) { return p->nr_mpi_calls; }
static void bind_mpi_call(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct mpi_call *c = &p->mpi_calls[i];
	b_int(st, 2, c->locus, true);
	b_text(st, 3, c->name);
	b_int(st, 4, c->calls, true);
	b_int(st, 5, c->time_ns, true);
	b_int(st, 6, c->bytes, true);
}
static int load_mpi_call(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct mpi_call c = {0};
	int rc = c_ref(st, 1, p->nr_loci, "locus", false, &c.locus, e);
	if (rc)
		return rc;
	c.name = (char *)c_text(st, 2);
	c.calls = c_int(st, 3, 0);
	c.time_ns = c_int(st, 4, 0);
	c.bytes = c_int(st, 5, 0);
	return added(pivot__add_mpi_call(p, &c), e);
}

static size_t n_mpi_sites(const struct pivot *p) { return p->nr_mpi_sites; }
static void bind_mpi_site(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct mpi_site *c = &p->mpi_sites[i];
	b_int(st, 2, c->locus, true);
	b_text(st, 3, c->name);
	b_text(st, 4, c->module);
	b_int(st, 5, (int64_t)c->address, true);
	b_text(st, 6, c->function);
	b_text(st, 7, c->file);
	b_int(st, 8, c->line, c->line > 0);
	b_int(st, 9, c->calls, true);
	b_int(st, 10, c->time_ns, true);
	b_int(st, 11, c->bytes, true);
}
static int load_mpi_site(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct mpi_site c = {0};
	int rc = c_ref(st, 1, p->nr_loci, "locus", false, &c.locus, e);
	if (rc)
		return rc;
	c.name = (char *)c_text(st, 2);
	c.module = (char *)c_text(st, 3);
	c.address = (uint64_t)c_int(st, 4, 0);
	c.function = (char *)c_text(st, 5);
	c.file = (char *)c_text(st, 6);
	c.line = (int)c_int(st, 7, 0);
	c.calls = c_int(st, 8, 0);
	c.time_ns = c_int(st, 9, 0);
	c.bytes = c_int(st, 10, 0);
	return added(pivot__add_mpi_site(p, &c), e);
}

static size_t n_events(const struct pivot *p) { return p->nr_events; }
static void bind_event(sqlite3_stmt *st, const struct pivot *p, size_t i)
{
	const struct event *v = &p->events[i];
	b_int(st, 2, v->locus, true);
	b_int(st, 3, v->pass_index, true);
	b_text(st, 4, v->kind);
	b_text(st, 5, v->name);
	b_int(st, 6, v->start_ns, true);
	b_int(st, 7, v->duration_ns, true);
	b_text(st, 8, v->attributes);
}
static int load_event(sqlite3_stmt *st, struct pivot *p, struct err *e)
{
	struct event v = {0};
	int rc = c_ref(st, 1, p->nr_loci, "locus", false, &v.locus, e);
	if (rc)
		return rc;
	v.pass_index = (int)c_int(st, 2, 0);
	v.kind = (char *)c_text(st, 3);
	v.name = (char *)c_text(st, 4);
	v.start_ns = c_int(st, 5, 0);
	v.duration_ns = c_int(st, 6, 0);
	v.attributes = (char *)c_text(st, 7);
	return added(pivot__add_event(p, &v), e);
}

#define HOTSPOT_REF "INTEGER NOT NULL REFERENCES hotspots(id)"
#define LOCUS_REF "INTEGER NOT NULL REFERENCES loci(id)"

const struct pivot_table pivot_tables[] = {
	{"hotspots",
	 "module TEXT, build_id TEXT, name TEXT, source_file TEXT, resolution_level TEXT NOT NULL, "
	 "offset INTEGER",
	 "module, build_id, name, source_file, resolution_level, offset", 6, n_hotspots,
	 bind_hotspot, load_hotspot},
	{"loci", "node TEXT, rank INTEGER, thread INTEGER, pid INTEGER", "node, rank, thread, pid", 4,
	 n_loci,
	 bind_locus, load_locus},
	{"measurements",
	 "hotspot INTEGER REFERENCES hotspots(id), locus " LOCUS_REF ", pass_index INTEGER NOT "
	 "NULL, counter TEXT NOT NULL, value REAL, unit TEXT, quality TEXT NOT NULL, reason TEXT, "
	 "sample_count INTEGER, coverage REAL",
	 "hotspot, locus, pass_index, counter, value, unit, quality, reason, sample_count, "
	 "coverage",
	 10, n_measurements, bind_measurement, load_measurement},
	{"addresses",
	 "hotspot " HOTSPOT_REF ", offset INTEGER NOT NULL, pass_index INTEGER NOT NULL, counter "
	 "TEXT NOT NULL, value REAL, sample_count INTEGER",
	 "hotspot, offset, pass_index, counter, value, sample_count", 6, n_addresses,
	 bind_address, load_address},
	{"frames",
	 "hotspot " HOTSPOT_REF ", offset INTEGER NOT NULL, depth INTEGER NOT NULL, function TEXT, "
	 "file TEXT, line INTEGER, declaration_line INTEGER",
	 "hotspot, offset, depth, function, file, line, declaration_line", 7, n_frames, bind_frame,
	 load_frame},
	{"extracts",
	 "hotspot " HOTSPOT_REF ", file TEXT, resolved_path TEXT, start_line INTEGER, end_line "
	 "INTEGER, text TEXT, truncated INTEGER NOT NULL, reason TEXT",
	 "hotspot, file, resolved_path, start_line, end_line, text, truncated, reason", 8,
	 n_extracts, bind_extract, load_extract},
	{"stacks",
	 "locus " LOCUS_REF ", pass_index INTEGER NOT NULL, counter TEXT NOT NULL, value REAL, "
	 "unit TEXT, sample_count INTEGER",
	 "locus, pass_index, counter, value, unit, sample_count", 6, n_stacks, bind_stack,
	 load_stack},
	{"stack_frames",
	 "stack INTEGER NOT NULL REFERENCES stacks(id), depth INTEGER NOT NULL, module TEXT, "
	 "offset INTEGER NOT NULL, function TEXT",
	 "stack, depth, module, offset, function", 5, n_stack_frames, bind_stack_frame,
	 load_stack_frame},
	{"region_stats",
	 "locus " LOCUS_REF ", path TEXT, name TEXT, calls INTEGER NOT NULL, "
	 "inclusive_ns INTEGER NOT NULL, exclusive_ns INTEGER NOT NULL",
	 "locus, path, name, calls, inclusive_ns, exclusive_ns", 6, n_region_stats,
	 bind_region_stat, load_region_stat},
	{"region_samples",
	 "region_path TEXT, locus " LOCUS_REF ", hotspot " HOTSPOT_REF ", counter TEXT NOT NULL, "
	 "value REAL, sample_count INTEGER",
	 "region_path, locus, hotspot, counter, value, sample_count", 6, n_region_samples,
	 bind_region_sample, load_region_sample},
	{"mpi_calls",
	 "locus " LOCUS_REF ", name TEXT NOT NULL, calls INTEGER NOT NULL, time_ns INTEGER NOT "
	 "NULL, bytes INTEGER NOT NULL",
	 "locus, name, calls, time_ns, bytes", 5, n_mpi_calls, bind_mpi_call, load_mpi_call},
	{"mpi_sites",
	 "locus " LOCUS_REF ", name TEXT NOT NULL, module TEXT, address INTEGER NOT NULL, "
	 "function TEXT, file TEXT, line INTEGER, calls INTEGER NOT NULL, time_ns INTEGER NOT "
	 "NULL, bytes INTEGER NOT NULL",
	 "locus, name, module, address, function, file, line, calls, time_ns, bytes", 10,
	 n_mpi_sites, bind_mpi_site, load_mpi_site},
	{"events",
	 "locus " LOCUS_REF ", pass_index INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT "
	 "NULL, start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, attributes TEXT",
	 "locus, pass_index, kind, name, start_ns, duration_ns, attributes", 7, n_events,
	 bind_event, load_event},
};
const size_t nr_pivot_tables = sizeof(pivot_tables) / sizeof(pivot_tables[0]);

char *pivot_table__insert_sql(const struct pivot_table *t)
{
	char marks[128] = "?";
	for (int i = 0; i < t->nr_cols && strlen(marks) + 3 < sizeof(marks); i++)
		strcat(marks, ", ?");
	return xasprintf("INSERT INTO %s (id, %s) VALUES (%s)", t->name, t->cols, marks);
}
