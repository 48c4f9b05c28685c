/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to pivot_db.c: the pivot's SQL schema, written once. Each pivot
 * array is a table whose column 0 is `id` (the row's index in the array),
 * then one column per member, each described by a row of its column table
 * (name, SQL type, the member it holds, its kind): the CREATE TABLE, the
 * INSERT's binds and the SELECT's loads are all generated from it, so a new
 * column is one line. Tables are listed in dependency order (hotspots and
 * loci before the rows that reference them), which the reader relies on to
 * check references.
 */
#ifndef NUNATAK_STORE_PIVOT_TABLES_H
#define NUNATAK_STORE_PIVOT_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct pivot;
struct sqlite3_stmt;

/* PRAGMA application_id: "NUNA", so `file` and sqlite tools can tell. */
#define PIVOT_DB_APPLICATION_ID 0x4E554E41

/* The member's C type and how it is spelled in SQL. */
enum pivot_col_kind {
	PCOL_TEXT,       /* char *, NULL is NULL */
	PCOL_INT,        /* int */
	PCOL_I64,        /* int64_t */
	PCOL_U64,        /* uint64_t (offsets, addresses) */
	PCOL_BOOL,       /* bool as 0/1 */
	PCOL_REAL,       /* double; a non-finite value is NULL */
	PCOL_REF,        /* int64_t id of a row of table `refers` */
	PCOL_QUALITY,    /* enum quality as its name */
	PCOL_RESOLUTION, /* enum resolution as its name */
};

/* When a number is written as NULL, and what a NULL reads back as. Absent
 * is never 0 where 0 is a value (pivot_db.h). */
enum pivot_col_present {
	PRESENT_ALWAYS,   /* always written; NULL reads as 0 (NaN for REAL) */
	PRESENT_NONNEG,   /* written when >= 0; NULL reads as -1 (PIVOT_NONE for REF) */
	PRESENT_POSITIVE, /* written when > 0; NULL reads as 0 */
	PRESENT_FLAG,     /* written when the bool at `flag` is true; NULL clears it */
	PRESENT_MEASURED, /* written unless the enum quality at `flag` is unavailable;
			     NULL reads as NaN */
};

struct pivot_column {
	const char *name;
	bool not_null;
	const char *refers; /* PCOL_REF: the referenced table */
	size_t member;      /* offsetof() in the row struct */
	enum pivot_col_kind kind;
	enum pivot_col_present present;
	size_t flag;        /* PRESENT_FLAG / PRESENT_MEASURED: offsetof() the deciding member */
};

struct pivot_table {
	const char *name;
	const struct pivot_column *cols;
	int nr_cols;
	size_t rows, nr, row_size; /* offsetof() the array and its count in struct pivot */
	/* Appends a row (strings copied); its id or -ENOMEM. */
	int64_t (*add)(struct pivot *p, const void *row);
	/* After a row was read, before it is added; 0 or -EINVAL with e filled. */
	int (*check)(void *row, struct err *e);
};

extern const struct pivot_table pivot_tables[];
extern const size_t nr_pivot_tables;

/* "module TEXT, ..., hotspot INTEGER NOT NULL REFERENCES hotspots(id)": the
 * column definitions after "id INTEGER PRIMARY KEY, ". Caller frees; NULL
 * on ENOMEM. */
char *pivot_table__ddl(const struct pivot_table *t);
/* "INSERT INTO t (id, cols) VALUES (?, ...)". Caller frees; NULL on ENOMEM. */
char *pivot_table__insert_sql(const struct pivot_table *t);
size_t pivot_table__count(const struct pivot_table *t, const struct pivot *p);
/* Binds parameters 2..nr_cols+1 from row i (parameter 1 is id). */
void pivot_table__bind(const struct pivot_table *t, struct sqlite3_stmt *st, const struct pivot *p,
		       size_t i);
/* Appends the current row (column 0 id, then cols) to p; 0, -ENOMEM, or
 * -EINVAL with e saying which column is wrong. */
int pivot_table__load(const struct pivot_table *t, struct sqlite3_stmt *st, struct pivot *p,
		      struct err *e);

#endif
