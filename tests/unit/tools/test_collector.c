// SPDX-License-Identifier: BSD-3-Clause
/* --collector: the decision table and the LD_PRELOAD composition. */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>

#include "collect/collector.h"

static void t_choose(void)
{
	static const struct {
		enum collector_request req;
		bool perf, lib;
		enum collector_kind want;
	} t[] = {
		{COLLECTOR_AUTO, true, true, COLLECTOR_USE_PERF},
		{COLLECTOR_AUTO, false, true, COLLECTOR_USE_PRELOAD},
		{COLLECTOR_AUTO, false, false, COLLECTOR_NONE},
		{COLLECTOR_PERF, false, true, COLLECTOR_NONE},
		{COLLECTOR_PERF, true, false, COLLECTOR_USE_PERF},
		{COLLECTOR_PRELOAD, true, true, COLLECTOR_USE_PRELOAD},
		{COLLECTOR_PRELOAD, true, false, COLLECTOR_NONE},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_INT(collector_choose(t[i].req, t[i].perf, t[i].lib), t[i].want);
	enum collector_request r;
	CHECK_INT(collector_request__parse("preload", &r), 0);
	CHECK_INT(r, COLLECTOR_PRELOAD);
	CHECK_INT(collector_request__parse("Perf", &r), -EINVAL);
	CHECK_STR(collector_kind__name(COLLECTOR_USE_PRELOAD), "preload");
}

static void t_ld_preload(void)
{
	char *s = collector_ld_preload("/x/libscope_profiler.so", "/u/libmine.so");
	CHECK_STR(s, "LD_PRELOAD=/x/libscope_profiler.so:/u/libmine.so");
	free(s);
	s = collector_ld_preload("/x/libscope_profiler.so", "");
	CHECK_STR(s, "LD_PRELOAD=/x/libscope_profiler.so");
	free(s);
}

static const struct test_case cases[] = {
	{"choose", "auto/perf/preload against what the machine allows", t_choose},
	{"ld_preload", "ours first, the user's kept", t_ld_preload},
};
TEST_MAIN(cases)
