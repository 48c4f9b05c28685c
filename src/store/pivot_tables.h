/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to pivot_db.c: one descriptor per pivot array, giving its SQL
 * table (column 0 is always `id`, the row's index in the array), how to bind
 * row i of the pivot to an INSERT, and how to append a SELECTed row back.
 * Tables are listed in dependency order (hotspots and loci before the rows
 * that reference them), which the reader relies on to check references.
 */
#ifndef NUNATAK_STORE_PIVOT_TABLES_H
#define NUNATAK_STORE_PIVOT_TABLES_H

#include <stddef.h>

struct err;
struct pivot;
struct sqlite3_stmt;

/* PRAGMA application_id: "NUNA", so `file` and sqlite tools can tell. */
#define PIVOT_DB_APPLICATION_ID 0x4E554E41

struct pivot_table {
	const char *name;
	const char *ddl;  /* column definitions after "id INTEGER PRIMARY KEY, " */
	const char *cols; /* column names in bind/select order, after id */
	int nr_cols;
	size_t (*count)(const struct pivot *p);
	/* Binds parameters 2..nr_cols+1 from row i (parameter 1 is id). */
	void (*bind)(struct sqlite3_stmt *st, const struct pivot *p, size_t i);
	/* Appends the current row (column 0 id, then cols) to p; 0, -ENOMEM, or
	 * -EINVAL with e saying which column is wrong. */
	int (*load)(struct sqlite3_stmt *st, struct pivot *p, struct err *e);
};

extern const struct pivot_table pivot_tables[];
extern const size_t nr_pivot_tables;

/* "INSERT INTO t (id, cols) VALUES (?, ...)". Caller frees; NULL on ENOMEM. */
char *pivot_table__insert_sql(const struct pivot_table *t);

#endif
