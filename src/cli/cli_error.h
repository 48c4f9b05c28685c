/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How every verb ends on a failure (STYLE.md §8): the message on stderr
 * through the console and, under --json, the document
 * {<the verb's fields>, "error": {"code", "message"}} on stdout, so a script
 * reading stdout gets JSON whatever happened. Codes are those of
 * common/err_codes.h; the exit code follows the code's class.
 */
#ifndef NUNATAK_CLI_CLI_ERROR_H
#define NUNATAK_CLI_CLI_ERROR_H

#include <stdbool.h>
#include <stdio.h>

typedef struct json_t json_t;
struct console;
struct err;

/* Writes doc (taken; NULL writes nothing) to stdout, indented, keys in
 * insertion order, then a newline. Returns 0, or -1 when stdout refused. */
int cli_print_json(json_t *doc_take);
/* The same to out (`run --json` keeps its document's stream aside). */
int cli_print_json_to(FILE *out, json_t *doc_take);

/* Adds "error": {"code", "message"} to doc (the shape every verb's error
 * document has). 0, or -1 when out of memory. */
int cli_add_error(json_t *doc, const char *code, const char *msg);

/* The one --json error document: extra_take (taken, may be NULL: {}) with
 * "error": {"code", "message"} added, written to out. Prints nothing on the
 * console (for a caller that already reported the message). 0 or -1. */
int cli_error_json(FILE *out, const char *code, const char *msg, json_t *extra_take);

/* Reports e (an empty message reads "out of memory") and returns
 * err_exit_code(e->code, otherwise): EXIT_USAGE for a usage error, else
 * `otherwise`, the verb's documented failure code. extra_take (taken, may be
 * NULL) holds the verb's other fields of the JSON document. */
int cli_fail(struct console *con, bool json, const struct err *e, int otherwise,
	     json_t *extra_take);
/* The same with the JSON document going to json_out (NULL: no --json). */
int cli_fail_to(struct console *con, FILE *json_out, const struct err *e, int otherwise,
		json_t *extra_take);

/* The console level of -v (count) and -q: -q wins. */
int cli_console_level(int verbose, int quiet);

#endif
