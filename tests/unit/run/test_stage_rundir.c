// SPDX-License-Identifier: BSD-3-Clause
/* Naming and making a Run directory (stage_rundir) without a process: the
 * cascade --name > configuration `name` (git is asked only after both, so
 * never here), -o DIR taken exactly, the collect/ directory, and a UTC
 * creation time. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#define TMPDIR_TAG "run-rundir"
#include "tmpdir.h"

#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/err.h"
#include "run/pipeline.h"
#include "run/stages.h"

static struct console con;

static void state_for(struct run_state *s, struct run_request *req, const char *runs_dir,
		      const char *cfg_name)
{
	memset(s, 0, sizeof(*s));
	console__init(&con, stderr, CONSOLE_QUIET);
	s->con = &con;
	s->req = req;
	s->launch.target = "./solver";
	s->cfg = xcalloc(1, sizeof(*s->cfg));
	CHECK(s->cfg && config__init(s->cfg) == 0);
	xfree(s->cfg->runs_dir);
	s->cfg->runs_dir = xstrdup(runs_dir);
	s->cfg->name = cfg_name ? xstrdup(cfg_name) : NULL;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void t_flag_name_wins(void)
{
	char *d = tmpdir();
	struct run_request req = {.name = "nightly run"};
	struct run_state s;
	state_for(&s, &req, d, "from-config");
	struct err e = {0};
	CHECK_INT(stage_rundir(&s, &e), 0);
	CHECK_STR(s.rundir.name, "nightly-run"); /* sanitised for a directory name */
	CHECK(strncmp(s.rundir.dir, d, strlen(d)) == 0);
	CHECK(strstr(s.rundir.dir + strlen(d), "/nightly-run-") != NULL);
	CHECK(is_dir(s.rundir.collect_dir));
	/* A Run's timestamps are UTC. */
	CHECK(strlen(s.rundir.created) == 25);
	CHECK_STR(s.rundir.created + 19, "+00:00");
	run_state__release(&s);
	free(d);
	done();
}

static void t_config_name_next(void)
{
	char *d = tmpdir();
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, d, "from-config");
	struct err e = {0};
	CHECK_INT(stage_rundir(&s, &e), 0);
	CHECK_STR(s.rundir.name, "from-config");
	/* Two Runs of the same name in the same second never share a directory. */
	char *first = xstrdup(s.rundir.dir);
	run_state__release(&s);
	state_for(&s, &req, d, "from-config");
	CHECK_INT(stage_rundir(&s, &e), 0);
	CHECK(strcmp(first, s.rundir.dir) != 0);
	xfree(first);
	run_state__release(&s);
	free(d);
	done();
}

static void t_output_exact(void)
{
	char *d = tmpdir();
	char out[512];
	snprintf(out, sizeof(out), "%s/exact", d);
	struct run_request req = {.name = "x", .output = out};
	struct run_state s;
	state_for(&s, &req, d, NULL);
	struct err e = {0};
	CHECK_INT(stage_rundir(&s, &e), 0);
	char *real = realpath(out, NULL);
	CHECK(real != NULL);
	CHECK_STR(s.rundir.dir, real); /* absolute, exactly -o's */
	free(real);
	CHECK(is_dir(s.rundir.collect_dir));
	run_state__release(&s);
	free(d);
	done();
}

static const struct test_case cases[] = {
	{"flag_name_wins", "--name wins over the configuration, sanitised; UTC creation", t_flag_name_wins},
	{"config_name_next", "the configuration's name next; same name twice, two directories", t_config_name_next},
	{"output_exact", "-o DIR is the Run directory, made absolute", t_output_exact},
};

TEST_MAIN(cases)
