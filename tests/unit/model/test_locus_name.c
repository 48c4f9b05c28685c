// SPDX-License-Identifier: BSD-3-Clause
/* A thread Locus's name (model/model.h locus__set_name): the comm as the
 * kernel reports it becomes one line of valid UTF-8 every output carries;
 * markup stays as it is (each renderer escapes it), a rename replaces, a
 * copied Locus keeps its name, an interned one has none. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/model.h"

static void t_name(void)
{
	struct pivot p;
	pivot__init(&p);
	CHECK_INT(pivot__intern_locus(&p, "n", -1, 42), 0);
	CHECK(p.loci[0].name == NULL); /* none recorded: none invented */
	struct locus *l = &p.loci[0];
	CHECK_INT(locus__set_name(l, "xz", 2), 0);
	CHECK_STR(l->name, "xz");
	CHECK_INT(locus__set_name(l, "<b>&\"x", 6), 0); /* a prctl rename replaces */
	CHECK_STR(l->name, "<b>&\"x");
	/* stray bytes, a line break, a tab, an escape, a bidi override */
	CHECK_INT(locus__set_name(l, "a\xff\n\t\x1b\xe2\x80\xae" "b", 10), 0);
	CHECK_STR(l->name, "a\\xff\\x0a\\x09\\x1b\\u202eb");
	/* UTF-8 passes; the length is the caller's, a NUL ends the comm early */
	CHECK_INT(locus__set_name(l, "w\xc3\xa9rk\0junk", 10), 0);
	CHECK_STR(l->name, "w\xc3\xa9rk");
	/* a comm is at most 16 bytes with its NUL: nothing past that is read */
	CHECK_INT(locus__set_name(l, "0123456789abcdefOVERFLOW", 24), 0);
	CHECK_STR(l->name, "0123456789abcdef");
	CHECK_INT(pivot__add_locus(&p, l), 1); /* a copy owns its own name */
	CHECK_INT(locus__set_name(&p.loci[0], "other", 5), 0);
	CHECK_STR(p.loci[1].name, "0123456789abcdef");
	pivot__release(&p);
}

static const struct test_case cases[] = {
	{"name", "a comm becomes a one-line UTF-8 name; copies own theirs", t_name},
};
TEST_MAIN(cases)
