// SPDX-License-Identifier: BSD-3-Clause
// The pivot's SQL tables: one column table per pivot array. Column names follow
// the reference's Parquet tables (REFERENCE.md §2) so queries port over.
// Absent values are NULL, never 0 (see pivot_db.h); every reference is
// checked on read, so a hand-edited file cannot make an id dangle.
#include "store/pivot_tables.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
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

/* ---- the column tables ---- */

#define COL(type, member_, name_, kind_, present_) \
	{.name = name_, .member = offsetof(struct type, member_), .kind = kind_, \
	 .present = present_}
#define COL_NN(type, member_, name_, kind_, present_) \
	{.name = name_, .not_null = true, .member = offsetof(struct type, member_), \
	 .kind = kind_, .present = present_}
#define REF(type, member_, table_) \
	{.name = #member_, .not_null = true, .refers = table_, \
	 .member = offsetof(struct type, member_), .kind = PCOL_REF}
#define TEXT(type, member_) COL(type, member_, #member_, PCOL_TEXT, PRESENT_ALWAYS)
#define TEXT_NN(type, member_) COL_NN(type, member_, #member_, PCOL_TEXT, PRESENT_ALWAYS)

static const struct pivot_column hotspot_cols[] = {
	TEXT(hotspot, module),
	TEXT(hotspot, build_id),
	TEXT(hotspot, name),
	TEXT(hotspot, source_file),
	COL_NN(hotspot, level, "resolution_level", PCOL_RESOLUTION, PRESENT_ALWAYS),
	{.name = "offset", .member = offsetof(struct hotspot, offset), .kind = PCOL_U64,
	 .present = PRESENT_FLAG, .flag = offsetof(struct hotspot, has_offset)},
};

static const struct pivot_column locus_cols[] = {
	TEXT(locus, node),
	COL(locus, rank, "rank", PCOL_INT, PRESENT_NONNEG),
	COL(locus, thread, "thread", PCOL_I64, PRESENT_NONNEG),
	COL(locus, pid, "pid", PCOL_I64, PRESENT_POSITIVE),
	TEXT(locus, name),
};

static const struct pivot_column measurement_cols[] = {
	{.name = "hotspot", .refers = "hotspots", .member = offsetof(struct measurement, hotspot),
	 .kind = PCOL_REF, .present = PRESENT_NONNEG},
	REF(measurement, locus, "loci"),
	COL_NN(measurement, pass_index, "pass_index", PCOL_INT, PRESENT_ALWAYS),
	TEXT_NN(measurement, counter),
	{.name = "value", .member = offsetof(struct measurement, value), .kind = PCOL_REAL,
	 .present = PRESENT_MEASURED, .flag = offsetof(struct measurement, quality)},
	TEXT(measurement, unit),
	COL_NN(measurement, quality, "quality", PCOL_QUALITY, PRESENT_ALWAYS),
	TEXT(measurement, reason),
	COL(measurement, sample_count, "sample_count", PCOL_I64, PRESENT_NONNEG),
	COL(measurement, coverage, "coverage", PCOL_REAL, PRESENT_NONNEG),
};

static const struct pivot_column address_cols[] = {
	REF(address, hotspot, "hotspots"),
	COL_NN(address, offset, "offset", PCOL_U64, PRESENT_ALWAYS),
	COL_NN(address, pass_index, "pass_index", PCOL_INT, PRESENT_ALWAYS),
	TEXT_NN(address, counter),
	COL(address, value, "value", PCOL_REAL, PRESENT_ALWAYS),
	COL(address, sample_count, "sample_count", PCOL_I64, PRESENT_NONNEG),
};

static const struct pivot_column frame_cols[] = {
	REF(frame, hotspot, "hotspots"),
	COL_NN(frame, offset, "offset", PCOL_U64, PRESENT_ALWAYS),
	COL_NN(frame, depth, "depth", PCOL_INT, PRESENT_ALWAYS),
	TEXT(frame, function),
	TEXT(frame, file),
	COL(frame, line, "line", PCOL_INT, PRESENT_POSITIVE),
	COL(frame, declaration_line, "declaration_line", PCOL_INT, PRESENT_POSITIVE),
};

static const struct pivot_column extract_cols[] = {
	REF(extract, hotspot, "hotspots"),
	TEXT(extract, file),
	TEXT(extract, resolved_path),
	COL(extract, start_line, "start_line", PCOL_INT, PRESENT_POSITIVE),
	COL(extract, end_line, "end_line", PCOL_INT, PRESENT_POSITIVE),
	TEXT(extract, text),
	COL_NN(extract, truncated, "truncated", PCOL_BOOL, PRESENT_ALWAYS),
	TEXT(extract, reason),
};

static const struct pivot_column stack_cols[] = {
	REF(stack, locus, "loci"),
	COL_NN(stack, pass_index, "pass_index", PCOL_INT, PRESENT_ALWAYS),
	TEXT_NN(stack, counter),
	COL(stack, value, "value", PCOL_REAL, PRESENT_ALWAYS),
	TEXT(stack, unit),
	COL(stack, sample_count, "sample_count", PCOL_I64, PRESENT_NONNEG),
};

static const struct pivot_column stack_frame_cols[] = {
	REF(stack_frame, stack, "stacks"),
	COL_NN(stack_frame, depth, "depth", PCOL_INT, PRESENT_ALWAYS),
	TEXT(stack_frame, module),
	COL_NN(stack_frame, offset, "offset", PCOL_U64, PRESENT_ALWAYS),
	TEXT(stack_frame, function),
};

static const struct pivot_column region_stat_cols[] = {
	REF(region_stat, locus, "loci"),
	TEXT(region_stat, path),
	TEXT(region_stat, name),
	COL_NN(region_stat, calls, "calls", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(region_stat, inclusive_ns, "inclusive_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(region_stat, exclusive_ns, "exclusive_ns", PCOL_I64, PRESENT_ALWAYS),
	{.name = "flop", .member = offsetof(struct region_stat, flop), .kind = PCOL_REAL,
	 .present = PRESENT_FLAG, .flag = offsetof(struct region_stat, has_flop)},
	{.name = "dram_bytes", .member = offsetof(struct region_stat, dram_bytes),
	 .kind = PCOL_REAL, .present = PRESENT_FLAG,
	 .flag = offsetof(struct region_stat, has_dram_bytes)},
	{.name = "offcpu_ns", .member = offsetof(struct region_stat, offcpu_ns),
	 .kind = PCOL_REAL, .present = PRESENT_FLAG,
	 .flag = offsetof(struct region_stat, has_offcpu)},
};

static const struct pivot_column region_sample_cols[] = {
	TEXT(region_sample, region_path),
	REF(region_sample, locus, "loci"),
	REF(region_sample, hotspot, "hotspots"),
	TEXT_NN(region_sample, counter),
	COL(region_sample, value, "value", PCOL_REAL, PRESENT_ALWAYS),
	COL(region_sample, sample_count, "sample_count", PCOL_I64, PRESENT_ALWAYS),
};

static const struct pivot_column mpi_call_cols[] = {
	REF(mpi_call, locus, "loci"),
	TEXT_NN(mpi_call, name),
	COL_NN(mpi_call, calls, "calls", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_call, time_ns, "time_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_call, bytes, "bytes", PCOL_I64, PRESENT_ALWAYS),
};

static const struct pivot_column mpi_site_cols[] = {
	REF(mpi_site, locus, "loci"),
	TEXT_NN(mpi_site, name),
	TEXT(mpi_site, module),
	COL_NN(mpi_site, address, "address", PCOL_U64, PRESENT_ALWAYS),
	TEXT(mpi_site, function),
	TEXT(mpi_site, file),
	COL(mpi_site, line, "line", PCOL_INT, PRESENT_POSITIVE),
	COL_NN(mpi_site, calls, "calls", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_site, time_ns, "time_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_site, bytes, "bytes", PCOL_I64, PRESENT_ALWAYS),
};

static const struct pivot_column event_cols[] = {
	REF(event, locus, "loci"),
	COL_NN(event, pass_index, "pass_index", PCOL_INT, PRESENT_ALWAYS),
	TEXT_NN(event, kind),
	TEXT_NN(event, name),
	COL_NN(event, start_ns, "start_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(event, duration_ns, "duration_ns", PCOL_I64, PRESENT_ALWAYS),
	TEXT(event, attributes),
};

static const struct pivot_column mpi_peer_cols[] = {
	REF(mpi_peer, locus, "loci"),
	COL(mpi_peer, peer, "peer", PCOL_INT, PRESENT_NONNEG),
	TEXT_NN(mpi_peer, direction),
	COL_NN(mpi_peer, calls, "calls", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_peer, time_ns, "time_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_peer, bytes, "bytes", PCOL_I64, PRESENT_ALWAYS),
};

static const struct pivot_column mpi_collective_cols[] = {
	REF(mpi_collective, locus, "loci"),
	TEXT_NN(mpi_collective, name),
	TEXT(mpi_collective, members),
	COL_NN(mpi_collective, size, "size", PCOL_INT, PRESENT_ALWAYS),
	COL(mpi_collective, root, "root", PCOL_INT, PRESENT_NONNEG),
	COL_NN(mpi_collective, calls, "calls", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_collective, time_ns, "time_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(mpi_collective, bytes, "bytes", PCOL_I64, PRESENT_ALWAYS),
};

static const struct pivot_column omp_site_cols[] = {
	REF(omp_site, locus, "loci"),
	TEXT(omp_site, module),
	COL_NN(omp_site, address, "address", PCOL_U64, PRESENT_ALWAYS),
	TEXT(omp_site, function),
	TEXT(omp_site, file),
	COL(omp_site, line, "line", PCOL_INT, PRESENT_POSITIVE),
	COL_NN(omp_site, thread_num, "thread_num", PCOL_INT, PRESENT_ALWAYS),
	COL_NN(omp_site, calls, "calls", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(omp_site, task_ns, "task_ns", PCOL_I64, PRESENT_ALWAYS),
	COL_NN(omp_site, wait_ns, "wait_ns", PCOL_I64, PRESENT_ALWAYS),
};

/* A value without a number is unavailable, whatever the row claims. */
static int check_measurement(void *row, struct err *e)
{
	(void)e;
	struct measurement *m = row;
	if (isnan(m->value) && m->quality != QUALITY_UNAVAILABLE) {
		m->quality = QUALITY_UNAVAILABLE;
		if (!m->reason)
			m->reason = (char *)"no value recorded";
	}
	return 0;
}

#define ADDER(type)                                                   \
	static int64_t add_##type(struct pivot *p, const void *row)   \
	{                                                             \
		return pivot__add_##type(p, (const struct type *)row); \
	}
ADDER(hotspot)
ADDER(locus)
ADDER(measurement)
ADDER(address)
ADDER(frame)
ADDER(extract)
ADDER(stack)
ADDER(stack_frame)
ADDER(region_stat)
ADDER(region_sample)
ADDER(mpi_call)
ADDER(mpi_site)
ADDER(event)
ADDER(mpi_peer)
ADDER(omp_site)
ADDER(mpi_collective)

#define TABLE(name_, type, array, check_)                                           \
	{#name_, type##_cols, (int)(sizeof(type##_cols) / sizeof(type##_cols[0])),   \
	 offsetof(struct pivot, array), offsetof(struct pivot, nr_##array),          \
	 sizeof(struct type), add_##type, check_}

const struct pivot_table pivot_tables[] = {
	TABLE(hotspots, hotspot, hotspots, NULL),
	TABLE(loci, locus, loci, NULL),
	TABLE(measurements, measurement, measurements, check_measurement),
	TABLE(addresses, address, addresses, NULL),
	TABLE(frames, frame, frames, NULL),
	TABLE(extracts, extract, extracts, NULL),
	TABLE(stacks, stack, stacks, NULL),
	TABLE(stack_frames, stack_frame, stack_frames, NULL),
	TABLE(region_stats, region_stat, region_stats, NULL),
	TABLE(region_samples, region_sample, region_samples, NULL),
	TABLE(mpi_calls, mpi_call, mpi_calls, NULL),
	TABLE(mpi_sites, mpi_site, mpi_sites, NULL),
	TABLE(events, event, events, NULL),
	TABLE(mpi_peers, mpi_peer, mpi_peers, NULL),
	TABLE(omp_sites, omp_site, omp_sites, NULL),
	TABLE(mpi_collectives, mpi_collective, mpi_collectives, NULL),
};
const size_t nr_pivot_tables = sizeof(pivot_tables) / sizeof(pivot_tables[0]);

/* ---- generated SQL ---- */

static const char *sql_type(enum pivot_col_kind k)
{
	return k == PCOL_TEXT || k == PCOL_QUALITY || k == PCOL_RESOLUTION ? "TEXT"
	       : k == PCOL_REAL					    ? "REAL"
									    : "INTEGER";
}

/* Joins "<a>" for each column, a = each(c) (a static or caller-freed buffer). */
static char *join_cols(const struct pivot_table *t, bool definitions)
{
	char *out = xstrdup("");
	for (int i = 0; out && i < t->nr_cols; i++) {
		const struct pivot_column *c = &t->cols[i];
		char *next;
		if (!definitions)
			next = xasprintf("%s%s%s", out, i ? ", " : "", c->name);
		else
			next = xasprintf("%s%s%s %s%s%s%s%s", out, i ? ", " : "", c->name,
					 sql_type(c->kind), c->not_null ? " NOT NULL" : "",
					 c->refers ? " REFERENCES " : "", c->refers ? c->refers : "",
					 c->refers ? "(id)" : "");
		xfree(out);
		out = next;
	}
	return out;
}

char *pivot_table__ddl(const struct pivot_table *t)
{
	return join_cols(t, true);
}

char *pivot_table__insert_sql(const struct pivot_table *t)
{
	char marks[128] = "?";
	for (int i = 0; i < t->nr_cols && strlen(marks) + 3 < sizeof(marks); i++)
		strcat(marks, ", ?");
	char *cols = join_cols(t, false);
	char *sql = cols ? xasprintf("INSERT INTO %s (id, %s) VALUES (%s)", t->name, cols, marks)
			 : NULL;
	xfree(cols);
	return sql;
}

size_t pivot_table__count(const struct pivot_table *t, const struct pivot *p)
{
	return *(const size_t *)((const char *)p + t->nr);
}

/* ---- binding a row ---- */

static bool present(const struct pivot_column *c, const char *row, double v)
{
	switch (c->present) {
	case PRESENT_NONNEG:
		return v >= 0;
	case PRESENT_POSITIVE:
		return v > 0;
	case PRESENT_FLAG:
		return *(const bool *)(row + c->flag);
	case PRESENT_MEASURED:
		return *(const enum quality *)(row + c->flag) != QUALITY_UNAVAILABLE;
	case PRESENT_ALWAYS:
	default:
		return true;
	}
}

static void bind_col(sqlite3_stmt *st, int i, const struct pivot_column *c, const char *row)
{
	const void *m = row + c->member;
	switch (c->kind) {
	case PCOL_TEXT:
		b_text(st, i, *(char *const *)m);
		break;
	case PCOL_QUALITY:
		b_text(st, i, quality__name(*(const enum quality *)m));
		break;
	case PCOL_RESOLUTION:
		b_text(st, i, resolution__name(*(const enum resolution *)m));
		break;
	case PCOL_INT:
		b_int(st, i, *(const int *)m, present(c, row, *(const int *)m));
		break;
	case PCOL_BOOL:
		b_int(st, i, *(const bool *)m, true);
		break;
	case PCOL_I64:
	case PCOL_REF:
		b_int(st, i, *(const int64_t *)m, present(c, row, (double)*(const int64_t *)m));
		break;
	case PCOL_U64:
		b_int(st, i, (int64_t) * (const uint64_t *)m, present(c, row, 0));
		break;
	case PCOL_REAL:
		b_real(st, i, *(const double *)m, present(c, row, *(const double *)m));
		break;
	}
}

void pivot_table__bind(const struct pivot_table *t, sqlite3_stmt *st, const struct pivot *p,
		       size_t i)
{
	const char *rows = *(const char *const *)((const char *)p + t->rows);
	const char *row = rows + i * t->row_size;
	for (int k = 0; k < t->nr_cols; k++)
		bind_col(st, k + 2, &t->cols[k], row);
}

/* ---- loading a row ---- */

/* What a NULL reads back as. */
static int64_t absent(const struct pivot_column *c)
{
	return c->present == PRESENT_NONNEG ? -1 : 0;
}

static size_t count_of(const struct pivot *p, const char *table)
{
	for (size_t i = 0; i < nr_pivot_tables; i++)
		if (!strcmp(pivot_tables[i].name, table))
			return pivot_table__count(&pivot_tables[i], p);
	return 0;
}

static int load_col(sqlite3_stmt *st, int k, const struct pivot_column *c, char *row,
		    const struct pivot *p, struct err *e)
{
	void *m = row + c->member;
	switch (c->kind) {
	case PCOL_TEXT:
		*(char **)m = (char *)c_text(st, k);
		return 0;
	case PCOL_QUALITY:
		if (quality__parse(c_text(st, k), m))
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s \"%s\" is unknown", c->name,
				       c_text(st, k) ? c_text(st, k) : "NULL");
		return 0;
	case PCOL_RESOLUTION:
		if (resolution__parse(c_text(st, k), m))
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s \"%s\" is unknown", c->name,
				       c_text(st, k) ? c_text(st, k) : "NULL");
		return 0;
	case PCOL_INT:
		*(int *)m = c_int32(st, k, (int)absent(c));
		return 0;
	case PCOL_BOOL:
		*(bool *)m = c_int(st, k, 0) != 0;
		return 0;
	case PCOL_I64:
		*(int64_t *)m = c_int(st, k, absent(c));
		return 0;
	case PCOL_U64:
		if (c->present == PRESENT_FLAG)
			*(bool *)(row + c->flag) = !c_null(st, k);
		*(uint64_t *)m = (uint64_t)c_int(st, k, 0);
		return 0;
	case PCOL_REAL:
		if (c->present == PRESENT_FLAG)
			*(bool *)(row + c->flag) = !c_null(st, k);
		*(double *)m = c->present == PRESENT_NONNEG && c_null(st, k) ? -1 : c_real(st, k);
		return 0;
	case PCOL_REF:
		return c_ref(st, k, count_of(p, c->refers), c->name, !c->not_null, m, e);
	}
	return 0;
}

int pivot_table__load(const struct pivot_table *t, sqlite3_stmt *st, struct pivot *p,
		      struct err *e)
{
	_Alignas(max_align_t) char row[256];
	if (t->row_size > sizeof(row))
		return err_set(e, -EINVAL, ERR_INTERNAL, "table %s: row too large", t->name);
	memset(row, 0, t->row_size);
	for (int k = 0; k < t->nr_cols; k++) {
		int rc = load_col(st, k + 1, &t->cols[k], row, p, e);
		if (rc)
			return rc;
	}
	int rc = t->check ? t->check(row, e) : 0;
	return rc ? rc : added(t->add(p, row), e);
}
