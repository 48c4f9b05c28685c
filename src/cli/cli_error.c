// SPDX-License-Identifier: BSD-3-Clause
#include "cli/cli_error.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>

#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"

int cli_print_json_to(FILE *out, json_t *doc_take)
{
	if (!doc_take)
		return 0;
	int rc = json_dumpf(doc_take, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (fputc('\n', out) == EOF || fflush(out) == EOF)
		rc = -1;
	json_decref(doc_take);
	return rc < 0 ? -1 : 0;
}

int cli_print_json(json_t *doc_take)
{
	return cli_print_json_to(stdout, doc_take);
}

int cli_add_error(json_t *doc, const char *code, const char *msg)
{
	json_t *err = json_pack("{s:s, s:s}", "code", code, "message", msg);
	return doc && err && json_object_set_new(doc, "error", err) == 0 ? 0 : -1;
}

int cli_error_json(FILE *out, const char *code, const char *msg, json_t *extra_take)
{
	json_t *doc = extra_take ? extra_take : json_object();
	cli_add_error(doc, code, msg);
	return cli_print_json_to(out, doc);
}

int cli_fail_to(struct console *con, FILE *json_out, const struct err *e, int otherwise,
		json_t *extra_take)
{
	const char *msg = e->msg[0] ? e->msg : "out of memory";
	const char *code = e->code[0] ? e->code : ERR_OOM;
	console__error(con, "%s", msg);
	if (json_out)
		cli_error_json(json_out, code, msg, extra_take);
	else
		json_decref(extra_take);
	return err_exit_code(code, otherwise);
}

int cli_fail(struct console *con, bool json, const struct err *e, int otherwise,
	     json_t *extra_take)
{
	return cli_fail_to(con, json ? stdout : NULL, e, otherwise, extra_take);
}

int cli_console_level(int verbose, int quiet)
{
	return quiet ? CONSOLE_QUIET : verbose;
}
