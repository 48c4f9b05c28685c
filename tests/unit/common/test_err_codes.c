// SPDX-License-Identifier: BSD-3-Clause
#include "common/err_codes.h"

#include <errno.h>
#include <string.h>

#include "common/err.h"
#include "harness.h"

/* Out of memory has one spelling, whoever runs out. */
static void t_oom(void)
{
	struct err e = {0};
	CHECK_INT(err_oom(&e), -ENOMEM);
	CHECK_INT(e.errnum, -ENOMEM);
	CHECK_STR(e.code, "oom");
	CHECK_STR(e.msg, "out of memory");
	CHECK_INT(err_oom(NULL), -ENOMEM);
	CHECK_INT(err_class_of(ERR_OOM), ERR_CLASS_SYSTEM);
}

/* The macros are the tokens of the JSON documents, and the class decides the
 * exit code: a usage error is 125 for every verb, the rest the verb's own. */
static void t_tokens_and_exit(void)
{
	CHECK_STR(ERR_TRACE_TRUNCATED, "trace.truncated");
	CHECK_STR(ERR_USAGE, "usage");
	CHECK(err_code_known("toml.syntax"));
	CHECK(!err_code_known("made.up"));
	CHECK(!err_code_known(NULL));
	CHECK_INT(err_exit_code(ERR_USAGE, 1), EXIT_USAGE);
	CHECK_INT(err_exit_code(ERR_CONFIG_KEY, 1), EXIT_USAGE);
	CHECK_INT(err_exit_code(ERR_TRACE_CORRUPT, 1), 1);
	CHECK_INT(err_exit_code(ERR_RUN_NOT_A_RUN, EXIT_FAILURE_BEFORE_LAUNCH),
		  EXIT_FAILURE_BEFORE_LAUNCH);
	CHECK_INT(err_class_of("made.up"), ERR_CLASS_INTERNAL);
}

static const struct test_case cases[] = {
	{"oom", "err_oom() is the one out-of-memory error", t_oom},
	{"tokens_and_exit", "tokens, classes and exit codes from the one list", t_tokens_and_exit},
};
TEST_MAIN(cases)
