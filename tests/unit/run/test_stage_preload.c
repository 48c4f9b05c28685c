// SPDX-License-Identifier: BSD-3-Clause
/* Which collector a Run uses, and the degradation it records when it has
 * none (collector_decide, run/stage_preload.c). Under replay only what was
 * recorded is served, so the preload library is never looked for: these
 * cases start no process and read no file. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#include "collect/collector.h"
#include "common/console.h"
#include "run/pipeline.h"
#include "run/stages.h"

static struct console con;

static void state_for(struct run_state *s, struct run_request *req, enum collector_request c,
		      bool perf_present)
{
	memset(s, 0, sizeof(*s));
	console__init(&con, stderr, CONSOLE_QUIET);
	s->con = &con;
	s->req = req;
	req->collector = c;
	s->replay = true;
	s->freq = 997;
	s->collect.caps.perf.present = perf_present;
}

static void t_perf_samples(void)
{
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, COLLECTOR_AUTO, true);
	CHECK_INT(collector_decide(&s, true, NULL), 0);
	CHECK_INT(s.collect.collector, COLLECTOR_USE_PERF);
	CHECK(!s.collect.sampling_blocked);
	CHECK_INT(s.degradations.n, 0);
	run_state__release(&s);
}

static void t_perf_forced_blocked(void)
{
	/* --collector perf where perf cannot sample: no samples, said with the
	 * reason and the permission remedy (perf is there). */
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, COLLECTOR_PERF, true);
	CHECK_INT(collector_decide(&s, false, "perf_event_paranoid is 3"), 0);
	CHECK_INT(s.collect.collector, COLLECTOR_NONE);
	CHECK(s.collect.sampling_blocked);
	CHECK_INT(s.degradations.n, 1);
	CHECK_STR(s.degradations.v[0].name, "cpu-collection-unavailable");
	CHECK(strstr(s.degradations.v[0].message, "perf_event_paranoid is 3") != NULL);
	CHECK(strstr(s.degradations.v[0].message, "(--collector perf)") != NULL);
	CHECK(strstr(s.degradations.v[0].remedy, "perf_event_paranoid") != NULL);
	run_state__release(&s);
}

static void t_no_perf_remedy(void)
{
	/* No perf and (under replay) no preload library: the remedy is to
	 * install perf, never a sysctl. */
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, COLLECTOR_AUTO, false);
	CHECK_INT(collector_decide(&s, false, NULL), 0);
	CHECK_INT(s.collect.collector, COLLECTOR_NONE);
	CHECK_INT(s.degradations.n, 1);
	CHECK(strstr(s.degradations.v[0].message, "perf cannot sample") != NULL);
	CHECK(strstr(s.degradations.v[0].remedy, "install perf") != NULL);
	run_state__release(&s);
}

static const struct test_case cases[] = {
	{"perf_samples", "perf that can sample is the collector, nothing degraded", t_perf_samples},
	{"perf_forced_blocked", "--collector perf that cannot sample: degradation with the reason", t_perf_forced_blocked},
	{"no_perf_remedy", "no collector at all: the remedy installs perf", t_no_perf_remedy},
};

TEST_MAIN(cases)
