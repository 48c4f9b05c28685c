/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pivot.sqlite: the measured pivot of a Run (src/model/model.h) as one SQLite
 * file, one table per pivot array, readable with the sqlite3 shell and from
 * any language (docs/run-format.md documents every table and column).
 *
 * Conventions: `id` is the row's index in its pivot array; references
 * (hotspot, locus, stack) are those ids; an absent value is NULL, never 0: a
 * measurement whose Quality is unavailable has value NULL, an unknown line is
 * NULL, a Locus-level measurement has hotspot NULL. Offsets are
 * module-relative (never absolute addresses), stored as 64-bit integers.
 *
 * Versioning: a `meta` table holds format ("nunatak-pivot") and schema
 * (RUN_SCHEMA). Readers refuse a newer schema; tables absent from an older
 * file read back empty (additive tables do not bump the schema).
 */
#ifndef NUNATAK_STORE_PIVOT_DB_H
#define NUNATAK_STORE_PIVOT_DB_H

struct err;
struct pivot;

#define PIVOT_DB_FILE "pivot.sqlite"
#define PIVOT_DB_FORMAT "nunatak-pivot"

/* Writes p to path atomically: the database is built in "<path>.tmp.<pid>"
 * in one transaction with prepared statements, synced, then renamed over
 * path, so a failure leaves any previous file intact. `generated_by` (may be
 * NULL) is recorded in meta. Returns 0 or a negative errno with e filled
 * (code "store.sqlite" with SQLite's message, "store.write", "store.oom"). */
int pivot_db_write(const struct pivot *p, const char *path, const char *generated_by,
		   struct err *e);

/* Reads path into p (initialised by the caller, normally empty; rows are
 * appended). Errors: "run.not_a_run" (no such file), "run.foreign" (not a
 * nunatak pivot), "run.newer_schema", "store.sqlite", "run.corrupt" (a
 * dangling reference or an unknown enum name, with table and id). On error
 * p may hold a partial read: release it. */
int pivot_db_read(struct pivot *p, const char *path, struct err *e);

#endif
