// SPDX-License-Identifier: BSD-3-Clause
/* The Run state's degradation bookkeeping (run/run_state.c): each
 * degradation recorded and announced once, however many stages name it, and
 * a partly filled state released whole. No process is started. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "model/model.h"
#include "run/pipeline.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A Run state whose console writes into memory (*buf after fflush(*f)). */
static char *buf;
static size_t len;
static FILE *f;
static struct console con;

static void state_on_memory(struct run_state *s, int level)
{
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	console__init(&con, f, level);
	memset(s, 0, sizeof(*s));
	s->con = &con;
}

static void t_degrade_once(void)
{
	struct run_state s;
	state_on_memory(&s, CONSOLE_INFO);
	CHECK_INT(run_state__degrade(&s, "no-counters", "perf cannot count", "fix A"), 0);
	CHECK_INT(run_state__degrade(&s, "no-counters", "perf cannot count", "fix A"), 0);
	CHECK_INT(run_state__degrade(&s, "no-counters", "another reason", "fix B"), 0);
	CHECK_INT(run_state__degrade(&s, "llvm-missing", "no llvm-symbolizer", NULL), 0);
	fflush(f);
	/* Same (name, message): one entry, one announcement. */
	CHECK_INT(s.degradations.n, 3);
	CHECK_INT(count(buf, "perf cannot count"), 1);
	CHECK_INT(count(buf, "another reason"), 1);
	CHECK_INT(count(buf, "no llvm-symbolizer"), 1);
	CHECK(strstr(buf, "fix A") != NULL);
	/* The manifest's array keeps the order they happened in, remedies kept. */
	json_t *j = degradations__to_json(&s.degradations);
	CHECK(j != NULL);
	char *t = json_dumps(j, JSON_COMPACT);
	CHECK(t != NULL);
	const char *a = strstr(t, "perf cannot count"), *b = strstr(t, "another reason"),
		   *c = strstr(t, "no llvm-symbolizer");
	CHECK(a && b && c && a < b && b < c);
	CHECK(strstr(t, "\"remedy\":\"fix B\"") != NULL);
	free(t);
	json_decref(j);
	run_state__release(&s);
	CHECK_INT(s.degradations.n, 0);
	fclose(f);
	free(buf);
}

static void t_quiet_still_records(void)
{
	/* -q silences information, never a degradation: it is announced and
	 * recorded (the manifest and --json carry it). */
	struct run_state s;
	state_on_memory(&s, CONSOLE_QUIET);
	CHECK_INT(run_state__degrade(&s, "target-binary", "stripped", "rebuild with -g"), 0);
	fflush(f);
	CHECK_INT(s.degradations.n, 1);
	CHECK_STR(s.degradations.v[0].remedy, "rebuild with -g");
	CHECK(strstr(buf, "degraded [target-binary]: stripped - rebuild with -g") != NULL);
	run_state__release(&s);
	fclose(f);
	free(buf);
}

static void t_release_partial(void)
{
	/* A Run that stopped early: only some fields were filled. */
	struct run_state s;
	memset(&s, 0, sizeof(s));
	s.rundir.name = xstrdup("solver");
	s.rundir.dir = xstrdup("/tmp/nowhere");
	s.cfg = xcalloc(1, sizeof(*s.cfg));
	CHECK(s.rundir.name && s.rundir.dir && s.cfg);
	CHECK_INT(config__init(s.cfg), 0);
	pivot__init(&s.pivot);
	run_state__release(&s);
	CHECK(s.rundir.name == NULL && s.rundir.dir == NULL && s.cfg == NULL);
	run_state__release(&s); /* twice is harmless */
}

static const struct test_case cases[] = {
	{"degrade_once", "a degradation is recorded and announced once, in order", t_degrade_once},
	{"quiet_still_records", "-q still announces and records a degradation", t_quiet_still_records},
	{"release_partial", "a partly filled Run state is released whole", t_release_partial},
};

TEST_MAIN(cases)
