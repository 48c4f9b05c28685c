// SPDX-License-Identifier: BSD-3-Clause
#include "store/pivot_schema.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "store/pivot_tables.h"

void pivot_schema_harden(struct sqlite3 *db)
{
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
#endif
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 64 << 20);
}

/* The storage class a column kind is written as: 'T', 'I' or 'R'. */
static char kind_of(enum pivot_col_kind k)
{
	switch (k) {
	case PCOL_TEXT:
	case PCOL_QUALITY:
	case PCOL_RESOLUTION:
		return 'T';
	case PCOL_REAL:
		return 'R';
	default:
		return 'I';
	}
}

/* The kind of column `col` of t (meta when t is NULL): 0 when unknown. */
static char col_kind(const struct pivot_table *t, const char *col)
{
	if (strcmp(col, "id") == 0)
		return t ? 'I' : 0;
	if (!t)
		return strcmp(col, "key") == 0 || strcmp(col, "value") == 0 ? 'T' : 0;
	for (int i = 0; i < t->nr_cols; i++)
		if (strcmp(t->cols[i].name, col) == 0)
			return kind_of(t->cols[i].kind);
	return 0;
}

static const struct pivot_table *table_named(const char *name)
{
	for (size_t i = 0; i < nr_pivot_tables; i++)
		if (strcmp(pivot_tables[i].name, name) == 0)
			return &pivot_tables[i];
	return NULL;
}

static const char *kind_type(char k)
{
	return k == 'T' ? "TEXT" : k == 'I' ? "INTEGER" : "REAL";
}

/* The columns of one table as SQLite sees them (hidden ones included). */
static int check_columns(sqlite3 *db, const char *name, const char *path, struct err *e)
{
	const struct pivot_table *t = table_named(name);
	char *sql = xasprintf("PRAGMA table_xinfo(\"%s\")", name);
	sqlite3_stmt *st = NULL;
	if (!sql)
		return err_oom(e);
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK ? 0 : -EIO;
	xfree(sql);
	if (rc)
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s: cannot list the columns of %s: %s",
			       path, name, sqlite3_errmsg(db));
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 1);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		int hidden = sqlite3_column_int(st, 6);
		char want = col ? col_kind(t, col) : 0;
		if (hidden || !want || !type || strncmp(type, kind_type(want), strlen(kind_type(want))))
			rc = err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				     "%s: table %s: column %s%s%s is not one nunatak writes%s; "
				     "refusing a pivot another program made",
				     path, name, col ? col : "?", type ? " " : "", type ? type : "",
				     hidden ? " (a generated or hidden column)" : "");
	}
	sqlite3_finalize(st);
	return rc;
}

int pivot_schema_check(struct sqlite3 *db, const char *path, struct err *e)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name FROM sqlite_master", -1, &st,
			       NULL) != SQLITE_OK)
		return sqlite3_errcode(db) == SQLITE_NOTADB
			       ? err_set(e, -EINVAL, ERR_RUN_FOREIGN,
					 "%s: not an SQLite database, so not a nunatak pivot", path)
			       : err_set(e, -EIO, ERR_STORE_SQLITE, "%s: %s", path,
					 sqlite3_errmsg(db));
	int rc = 0, step;
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *tbl = (const char *)sqlite3_column_text(st, 2);
		bool known = name && tbl && (strcmp(tbl, "meta") == 0 || table_named(tbl));
		bool ok = type && known &&
			  ((strcmp(type, "table") == 0 && strcmp(name, tbl) == 0) ||
			   (strcmp(type, "index") == 0 && strncmp(name, "sqlite_autoindex_", 17) == 0));
		if (!ok)
			rc = err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				     "%s: holds %s %s, which nunatak never writes; refusing a pivot "
				     "another program made",
				     path, type ? type : "an object", name ? name : "?");
		else if (strcmp(type, "table") == 0)
			rc = check_columns(db, name, path, e);
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = sqlite3_errcode(db) == SQLITE_NOTADB
			     ? err_set(e, -EINVAL, ERR_RUN_FOREIGN,
				       "%s: not an SQLite database, so not a nunatak pivot", path)
			     : err_set(e, -EIO, ERR_STORE_SQLITE, "%s: %s", path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

void pivot_schema_kinds(const struct pivot_table *t, char *kinds)
{
	int n = 0;
	kinds[n++] = 'I';
	for (int i = 0; i < t->nr_cols && n < PIVOT_SCHEMA_MAX_COLS - 1; i++)
		kinds[n++] = kind_of(t->cols[i].kind);
	kinds[n] = '\0';
}

/* The name of selected column i of t (0 is id). */
static const char *col_name(const struct pivot_table *t, int i)
{
	return i == 0 ? "id" : t->cols[i - 1].name;
}

int pivot_schema_check_row(struct sqlite3_stmt *st, const struct pivot_table *t,
			   const char *kinds, struct err *e)
{
	for (int i = 0; kinds[i]; i++) {
		int type = sqlite3_column_type(st, i);
		if (type == SQLITE_NULL)
			continue;
		char k = kinds[i];
		const char *name = col_name(t, i);
		bool ok = k == 'T' ? type == SQLITE_TEXT
			  : k == 'I' ? type == SQLITE_INTEGER
				     : type == SQLITE_FLOAT || type == SQLITE_INTEGER;
		if (ok && k != 'T') {
			double v = sqlite3_column_double(st, i);
			bool counts = strcmp(name, "coverage") == 0 || strcmp(name, "sample_count") == 0;
			ok = isfinite(v) && fabs(v) <= 1e30 && !(counts && v < 0);
		}
		if (!ok)
			return err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				       "column %s holds %s where nunatak writes %s%s",
				       name,
				       type == SQLITE_TEXT ? "text" : type == SQLITE_BLOB ? "a blob"
				       : "a number out of range",
				       k == 'T' ? "text" : k == 'I' ? "an integer" : "a finite number",
				       k == 'T' ? "" : " (NULL when unavailable)");
	}
	return 0;
}
