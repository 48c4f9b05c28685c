/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to pivot_db.c: reading a pivot.sqlite nunatak may not have
 * written (a Run passed on, or tampered with; docs/security.md). SQLite runs
 * whatever the schema says while reading (a generated column that builds a
 * 900 MB string, a view, a trigger), so the connection is hardened and the
 * schema checked against the one nunatak writes before any row is read;
 * each row's values are then type-checked against their columns.
 */
#ifndef NUNATAK_STORE_PIVOT_SCHEMA_H
#define NUNATAK_STORE_PIVOT_SCHEMA_H

#include <stddef.h>

struct err;
struct pivot_table;
struct sqlite3;
struct sqlite3_stmt;

#define PIVOT_SCHEMA_MAX_COLS 32

/* Defensive mode, untrusted schema, no views or triggers, strings and blobs
 * of at most 64 MiB. */
void pivot_schema_harden(struct sqlite3 *db);

/* 0 when every object of the file is a table nunatak writes (meta and the
 * pivot tables; older files may lack some columns) or the index SQLite makes
 * for a primary key, and every column is a plain column of the declared
 * type; else -EINVAL with e (run.corrupt) naming the object. */
int pivot_schema_check(struct sqlite3 *db, const char *path, struct err *e);

/* The storage class each selected column of t must hold ('T' text, 'I'
 * integer, 'R' real), id first; kinds has PIVOT_SCHEMA_MAX_COLS room. */
void pivot_schema_kinds(const struct pivot_table *t, char *kinds);

/* The current row: each value NULL or of its column's kind, a real finite
 * and within +-1e30, coverage and sample counts not negative. 0, or -EINVAL
 * with e naming the column. */
int pivot_schema_check_row(struct sqlite3_stmt *st, const struct pivot_table *t,
			   const char *kinds, struct err *e);

#endif
