// SPDX-License-Identifier: BSD-3-Clause
#include "common/argv.h"

#include "common/alloc.h"
#include "harness.h"

static void t_count_join(void)
{
	const char *v[] = {"mpirun", "-n", "8", "./solver", NULL};
	CHECK_INT(argv_count(v), 4);
	CHECK_INT(argv_count(NULL), 0);
	char *s = argv_join(v);
	CHECK_STR(s, "mpirun -n 8 ./solver");
	xfree(s);
	const char *empty[] = {NULL};
	s = argv_join(empty);
	CHECK_STR(s, "");
	xfree(s);
	const char *one[] = {"a b", NULL}; /* shown as is: messages, never execution */
	s = argv_join(one);
	CHECK_STR(s, "a b");
	xfree(s);
}

static const struct test_case cases[] = {
	{"count_join", "argv counted and joined for messages", t_count_join},
};
TEST_MAIN(cases)
