/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A careful parser for the TOML subset nunatak's configuration uses, into a
 * jansson object tree (tables -> objects, integers -> json_integer, floats ->
 * json_real, booleans, strings, arrays).
 *
 * Supported (TOML 1.0 semantics): comments; `[table]` and `[a.b]` headers;
 * bare, "basic" and 'literal' keys, dotted keys (`sampling.frequency = 1`);
 * basic strings with every TOML escape (\b \t \n \f \r \" \\ \uXXXX
 * \UXXXXXXXX) and literal strings; decimal/hex/octal/binary integers with `_`
 * separators (range-checked to int64); floats with fraction/exponent; true /
 * false; arrays (also multi-line, with comments and a trailing comma).
 *
 * Refused with a clear message rather than misread: arrays of tables
 * (`[[x]]`), inline tables, multi-line strings, dates/times, inf/nan (JSON
 * cannot hold them), a key or table defined twice, a NUL byte, invalid UTF-8.
 *
 * Errors: code "toml.syntax" (or "toml.duplicate" for a redefinition, "oom"),
 * message "<file>:<line>:<col>: expected <what>, found <what>" with 1-based
 * line and column (columns count bytes). Pure: no I/O except toml_parse_file.
 * Nesting is limited to 32 levels so hostile input cannot exhaust the stack.
 */
#ifndef NUNATAK_COMMON_TOML_H
#define NUNATAK_COMMON_TOML_H

#include <stddef.h>

struct err;
typedef struct json_t json_t;

/* Parses len bytes of text (need not be NUL-terminated); `filename` is used in
 * messages only. Returns a new object (caller json_decref()s) or NULL with e
 * filled. Thread-safe (no shared state). */
json_t *toml_parse(const char *text, size_t len, const char *filename, struct err *e);

/* Reads and parses a file. A missing or unreadable file is an error with code
 * "toml.io" (callers that treat absence as "empty" check existence first). */
json_t *toml_parse_file(const char *path, struct err *e);

#endif
