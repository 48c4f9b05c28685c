// SPDX-License-Identifier: BSD-3-Clause
// `perf buildid-list` text -> module path -> build-id (corpus + variants).
#include "harness.h"
#include "test_perf_util.h"

#include "ingest/buildid.h"

static void t_corpus(void)
{
	size_t len;
	char *buf = slurp(CORPUS_PERF "workload-c/invocations/006.stdout", &len);
	if (!buf)
		FAIL_INPUT("corpus not found");
	struct buildid_list l;
	buildid_list__init(&l);
	CHECK_INT(buildid_list__parse(&l, buf, len, NULL), 0);
	CHECK_INT(l.n, 4);
	CHECK_INT(l.nr_bad_lines, 0);
	CHECK_STR(buildid_list__find(&l, "/tmp/nunatak-capture/workload"),
		  "e2045eed9cc41c1d3347b444a0efaf32b422b4b7");
	CHECK_STR(buildid_list__find(&l, "[kernel.kallsyms]"),
		  "cbdbaa987eee473e1b57f429ee20e2143fea694c");
	CHECK(buildid_list__find(&l, "/tmp/nunatak-capture/other") == NULL);
	buildid_list__release(&l);
	free(buf);
}

static void t_variants(void)
{
	const char txt[] = "ABCDEF0123 /path/with space/lib.so\r\n"
			   "warning: something odd\n"
			   "\n"
			   "zz /bad/hex\n"
			   "0123abcd /path/with space/lib.so\n"; /* later wins */
	struct buildid_list l;
	buildid_list__init(&l);
	CHECK_INT(buildid_list__parse(&l, txt, sizeof(txt) - 1, NULL), 0);
	CHECK_INT(l.nr_bad_lines, 2);
	CHECK_INT(l.n, 1);
	CHECK_STR(buildid_list__find(&l, "/path/with space/lib.so"), "0123abcd");
	buildid_list__release(&l);
}

static const struct test_case cases[] = {
	{"corpus", "perf 6.14 buildid-list from the corpus", t_corpus},
	{"variants", "spaces in paths, CRLF, junk lines, later entry wins", t_variants},
};

TEST_MAIN(cases)
