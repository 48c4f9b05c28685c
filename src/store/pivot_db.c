// SPDX-License-Identifier: BSD-3-Clause
// pivot.sqlite writer and reader. The table layout lives in pivot_tables.c
// (one descriptor per pivot array); this file owns the file-level protocol:
// temp file, single transaction, sync, rename; meta checks on read.
#include "store/pivot_db.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/model.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "store/manifest.h"
#include "store/pivot_schema.h"
#include "store/pivot_tables.h"

static int sql_err(struct err *e, sqlite3 *db, const char *path, const char *what)
{
	int code = db ? sqlite3_errcode(db) : SQLITE_NOMEM;
	int rc = code == SQLITE_NOMEM ? -ENOMEM : code == SQLITE_FULL ? -ENOSPC : -EIO;
	return err_set(e, rc, code == SQLITE_NOMEM ? ERR_OOM : ERR_STORE_SQLITE,
		       "%s: %s%s (at: %.48s%s)", path, db ? sqlite3_errmsg(db) : "out of memory",
		       code == SQLITE_FULL ? ": the file system is full" : "", what,
		       strlen(what) > 48 ? "..." : "");
}

static int exec_sql(sqlite3 *db, const char *sql, const char *path, struct err *e)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(e, db, path, sql);
	return 0;
}

static int write_meta(sqlite3 *db, const char *path, const char *generated_by, struct err *e)
{
	char schema[16];
	snprintf(schema, sizeof(schema), "%d", RUN_SCHEMA);
	const char *rows[][2] = {{"format", PIVOT_DB_FORMAT},
				 {"schema", schema},
				 {"generated_by", generated_by ? generated_by : "nunatak"}};
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "INSERT INTO meta(key, value) VALUES (?, ?)", -1, &st, NULL))
		return sql_err(e, db, path, "preparing meta");
	int rc = 0;
	for (size_t i = 0; i < 3 && !rc; i++) {
		sqlite3_bind_text(st, 1, rows[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rows[i][1], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = sql_err(e, db, path, "writing meta");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_table(sqlite3 *db, const struct pivot_table *t, const struct pivot *p,
		       const char *path, struct err *e)
{
	char *ddl = pivot_table__ddl(t);
	char *sql = ddl ? xasprintf("CREATE TABLE %s (id INTEGER PRIMARY KEY, %s)", t->name, ddl)
			: NULL;
	xfree(ddl);
	if (!sql)
		return err_oom(e);
	int rc = exec_sql(db, sql, path, e);
	xfree(sql);
	if (rc)
		return rc;
	sql = pivot_table__insert_sql(t);
	sqlite3_stmt *st = NULL;
	if (!sql)
		return err_oom(e);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = sql_err(e, db, path, sql);
	xfree(sql);
	size_t n = pivot_table__count(t, p);
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		pivot_table__bind(t, st, p, i);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = sql_err(e, db, path, t->name);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* The database's page size. Every table takes one page at least, so with
 * 64 kB pages a small pivot is mostly empty pages: a warm LAMMPS Run's
 * 0.8 MB of rows in ~30 tables made a 1.9 MB file, whose extra megabyte
 * the kernel copies into the page cache (~5 ms of the finish on this VM).
 * SQLite's default 4 kB for such pivots, 64 kB from PIVOT_DB_BIG_ROWS rows
 * on, where the larger pages write 5-10% faster (bench/store, 1 M rows). */
#define PIVOT_DB_BIG_ROWS 100000

static int page_size(const struct pivot *p)
{
	size_t rows = 0;
	for (size_t i = 0; i < nr_pivot_tables; i++)
		rows += pivot_table__count(&pivot_tables[i], p);
	return rows >= PIVOT_DB_BIG_ROWS ? 65536 : 4096;
}

static int build_db(const struct pivot *p, const char *tmp, const char *generated_by,
		    struct err *e)
{
	sqlite3 *db = NULL;
	int rc = 0;
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		rc = sql_err(e, db, tmp, "cannot create");
		goto out;
	}
	/* The file is private until renamed and is synced once at the end, so
	 * SQLite's own journal and per-commit syncs would only cost time. */
	char pragmas[256];
	snprintf(pragmas, sizeof(pragmas),
		 "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		 "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; "
		 "PRAGMA application_id=%d; PRAGMA user_version=%d; BEGIN",
		 page_size(p), PIVOT_DB_APPLICATION_ID, RUN_SCHEMA);
	rc = exec_sql(db, pragmas, tmp, e);
	if (!rc)
		rc = exec_sql(db, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
			      tmp, e);
	if (!rc)
		rc = write_meta(db, tmp, generated_by, e);
	for (size_t i = 0; i < nr_pivot_tables && !rc; i++)
		rc = write_table(db, &pivot_tables[i], p, tmp, e);
	if (!rc)
		rc = exec_sql(db, "COMMIT", tmp, e);
out:
	if (db && sqlite3_close(db) != SQLITE_OK && !rc)
		rc = sql_err(e, db, tmp, "closing");
	return rc;
}

int pivot_db_write(const struct pivot *p, const char *path, const char *generated_by,
		   struct err *e)
{
	errno = ENOMEM;
	char *tmp = fs_tmp_name(path); /* reserved: an empty file is a new database */
	if (!tmp)
		return err_set(e, -errno, ERR_STORE_WRITE,
			       "cannot create a temporary file beside %s: %s", path,
			       strerror(errno));
	int rc = build_db(p, tmp, generated_by, e);
	if (!rc && (rc = fsync_path(tmp)))
		err_set(e, rc, ERR_STORE_WRITE, "cannot sync %s: %s", tmp, strerror(-rc));
	if (!rc)
		rc = fs_rename_durable(tmp, path, e);
	if (rc)
		unlink(tmp);
	xfree(tmp);
	return rc;
}

/* ---- reading ---- */

static int table_exists(sqlite3 *db, const char *name, const char *path, struct err *e)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
			       -1, &st, NULL) != SQLITE_OK) {
		int rc = sqlite3_errcode(db) == SQLITE_NOTADB
				 ? err_set(e, -EINVAL, ERR_RUN_FOREIGN,
					   "%s: not an SQLite database, so not a nunatak pivot", path)
				 : sql_err(e, db, path, "reading the table list");
		return rc;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int step = sqlite3_step(st), rc;
	if (step == SQLITE_ROW)
		rc = 1;
	else if (step == SQLITE_DONE)
		rc = 0;
	else if (sqlite3_errcode(db) == SQLITE_NOTADB)
		rc = err_set(e, -EINVAL, ERR_RUN_FOREIGN,
			     "%s: not an SQLite database, so not a nunatak pivot", path);
	else
		rc = sql_err(e, db, path, "reading the table list");
	sqlite3_finalize(st);
	return rc;
}

static int check_meta(sqlite3 *db, const char *path, struct err *e)
{
	int rc = table_exists(db, "meta", path, e);
	if (rc <= 0)
		return rc < 0 ? rc
			      : err_set(e, -EINVAL, ERR_RUN_FOREIGN,
					"%s: not a nunatak pivot (no meta table)", path);
	sqlite3_stmt *st = NULL;
	char *format = NULL;
	long long schema = -1;
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM meta", -1, &st, NULL) != SQLITE_OK)
		return sql_err(e, db, path, "reading meta");
	bool oom = false;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (k && v && strcmp(k, "format") == 0 && !format)
			oom |= !(format = xstrdup(v)); /* not "meta.format is absent" */
		else if (k && v && strcmp(k, "schema") == 0)
			schema = strtoll(v, NULL, 10);
	}
	rc = oom ? err_oom(e) : rc == SQLITE_DONE ? 0 : sql_err(e, db, path, "reading meta");
	sqlite3_finalize(st);
	if (!rc && (!format || strcmp(format, PIVOT_DB_FORMAT) != 0))
		rc = err_set(e, -EINVAL, ERR_RUN_FOREIGN,
			     "%s: not a nunatak pivot (meta.format is %s)", path,
			     format ? format : "absent");
	else if (!rc && schema < 1)
		rc = err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s: meta.schema is missing or invalid",
			     path);
	else if (!rc && schema > RUN_SCHEMA)
		rc = err_set(e, -EPROTONOSUPPORT, ERR_RUN_NEWER_SCHEMA,
			     "Run written with schema %lld, newer than the supported %d; upgrade "
			     "nunatak to read it",
			     schema, RUN_SCHEMA);
	xfree(format);
	return rc;
}

/* "SELECT id, a, NULL, c FROM t ORDER BY id": a column missing from an older
 * file (columns are added without a schema bump) reads as NULL. */
static char *select_sql(sqlite3 *db, const struct pivot_table *t)
{
	char *sql = xasprintf("SELECT id");
	for (int i = 0; sql && i < t->nr_cols; i++) {
		const char *c = t->cols[i].name;
		int present = sqlite3_table_column_metadata(db, NULL, t->name, c, NULL, NULL,
							    NULL, NULL, NULL) == SQLITE_OK;
		char *next = xasprintf("%s, %s", sql, present ? c : "NULL");
		xfree(sql);
		sql = next;
	}
	char *full = sql ? xasprintf("%s FROM %s ORDER BY id", sql, t->name) : NULL;
	xfree(sql);
	return full;
}

static int read_table(sqlite3 *db, const struct pivot_table *t, struct pivot *p,
		      const char *path, struct err *e)
{
	int rc = table_exists(db, t->name, path, e);
	if (rc <= 0)
		return rc; /* absent table: reads back empty */
	rc = 0;
	char *sql = select_sql(db, t);
	sqlite3_stmt *st = NULL;
	if (!sql)
		return err_oom(e);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = sql_err(e, db, path, sql);
		xfree(sql);
		return rc;
	}
	xfree(sql);
	char kinds[PIVOT_SCHEMA_MAX_COLS];
	pivot_schema_kinds(t, kinds);
	int step = SQLITE_DONE;
	for (size_t expect = 0; !rc && (step = sqlite3_step(st)) == SQLITE_ROW; expect++) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);
		if ((rc = pivot_schema_check_row(st, t, kinds, e))) {
			err_prefix(e, "%s: table %s, id %lld", path, t->name, (long long)id);
			break;
		}
		if (id != (sqlite3_int64)expect) {
			rc = err_set(e, -EINVAL, ERR_RUN_CORRUPT,
				     "%s: table %s: id %lld out of sequence (expected %zu)", path,
				     t->name, (long long)id, expect);
			break;
		}
		if ((rc = pivot_table__load(t, st, p, e)))
			err_prefix(e, "%s: table %s, id %lld", path, t->name, (long long)id);
	}
	if (!rc && step != SQLITE_DONE)
		rc = sql_err(e, db, path, t->name);
	sqlite3_finalize(st);
	return rc;
}

int pivot_db_read(struct pivot *p, const char *path, struct err *e)
{
	if (!fs_exists(path))
		return err_set(e, -ENOENT, ERR_RUN_NOT_A_RUN, "not a nunatak Run: %s does not exist",
			       path);
	int rc = safefs_check_regular(path);
	if (rc) /* a FIFO would hang SQLite; a symlink may point anywhere */
		return err_set(e, rc, ERR_RUN_UNREADABLE,
			       "cannot read %s: %s; a Run's files are read only when they are "
			       "regular files", path, safefs_strerror(rc));
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		rc = sql_err(e, db, path, "cannot open");
		goto out;
	}
	pivot_schema_harden(db); /* the file may come from anyone (docs/security.md) */
	rc = table_exists(db, "meta", path, e);
	if (rc == 1) /* without meta, check_meta names the file foreign */
		rc = pivot_schema_check(db, path, e);
	if (!rc)
		rc = check_meta(db, path, e);
	for (size_t i = 0; i < nr_pivot_tables && !rc; i++)
		rc = read_table(db, &pivot_tables[i], p, path, e);
	/* a thread's name as nunatak writes it: one line of UTF-8, whatever a
	 * hand-made file holds (what nunatak wrote reads back the same) */
	for (size_t i = 0; i < p->nr_loci && !rc; i++)
		if (p->loci[i].name &&
		    locus__set_name(&p->loci[i], p->loci[i].name, strlen(p->loci[i].name)))
			rc = err_oom(e);
out:
	sqlite3_close(db);
	return rc;
}
