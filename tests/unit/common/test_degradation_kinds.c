// SPDX-License-Identifier: BSD-3-Clause
#include "common/degradation_kinds.h"

#include <ctype.h>
#include <string.h>

#include "harness.h"

/* The macros are the stable names users and scripts match, each with a
 * default remedy that says what to do next. */
static void t_names_and_remedies(void)
{
	CHECK_STR(DEG_LLVM_MISSING, "llvm-missing");
	CHECK_STR(DEG_CPU_COLLECTION_PRELOAD, "cpu-collection-preload");
	CHECK(degradation_kind_known("ranks-missing"));
	CHECK(!degradation_kind_known("made-up"));
	CHECK(!degradation_kind_known(NULL));
	CHECK_STR(degradation_kind_remedy(DEG_RANKS_MISSING), DEG_RANKS_MISSING_REMEDY);
	CHECK(degradation_kind_remedy("made-up") == NULL);
	CHECK(strstr(DEG_CPU_COLLECTION_UNAVAILABLE_REMEDY, "install perf") != NULL);
}

/* --strict trips on every listed kind today, and on a kind this nunatak does
 * not know (a lost measurement all the same). */
static void t_strict(void)
{
	CHECK(degradation_kind_strict(DEG_PASSES_SKIPPED));
	CHECK(degradation_kind_strict(DEG_CPU_COLLECTION_PRELOAD));
	CHECK(degradation_kind_strict("from-a-newer-nunatak"));
}

/* Every row: a kebab-case name and a remedy that is not empty. */
#define ROW_CHECK(m, name, strict, remedy)                                        \
	do {                                                                      \
		CHECK(strlen(name) > 2 && strlen(remedy) > 10);                   \
		for (const char *c = name; *c; c++)                               \
			CHECK(islower((unsigned char)*c) || isdigit((unsigned char)*c) || \
			      *c == '-');                                         \
		CHECK(degradation_kind_known(m));                                 \
		CHECK_STR(degradation_kind_remedy(m), m##_REMEDY);                \
	} while (0);

static void t_rows(void)
{
	DEGRADATION_KINDS(ROW_CHECK)
}

static const struct test_case cases[] = {
	{"names_and_remedies", "listed names and their default remedies", t_names_and_remedies},
	{"strict", "--strict trips on listed and unknown kinds", t_strict},
	{"rows", "every row is a kebab-case name with a remedy", t_rows},
};

TEST_MAIN(cases)
