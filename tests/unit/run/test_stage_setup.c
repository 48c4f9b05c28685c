// SPDX-License-Identifier: BSD-3-Clause
/* The setup stages of a Run without starting a process: the launch plan
 * (stage_launch: what runs, behind which launcher, how many ranks) and the
 * configuration layer of the command line (stage_config: --freq, --name). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#define TMPDIR_TAG "run-setup"
#include "tmpdir.h"

#include "common/config.h"
#include "common/console.h"
#include "common/err.h"
#include "run/pipeline.h"
#include "run/stages.h"

static struct console con;

/* A command line in writable storage (argv is char **), NULL-terminated. */
static char **words(const char *const *w)
{
	static char buf[16][64];
	static char *v[17];
	size_t n = 0;
	for (; w[n] && n < 16; n++) {
		snprintf(buf[n], sizeof(buf[n]), "%s", w[n]);
		v[n] = buf[n];
	}
	v[n] = NULL;
	return v;
}

static void state_for(struct run_state *s, struct run_request *req, char **cmd)
{
	memset(s, 0, sizeof(*s));
	console__init(&con, stderr, CONSOLE_QUIET);
	s->con = &con;
	s->req = req;
	s->launch.world_size = -1;
	req->cmd = cmd;
	req->cmd_argc = 0;
	while (cmd[req->cmd_argc])
		req->cmd_argc++;
}

static void t_launch_plain(void)
{
	char **cmd = words((const char *const[]){"sh", "-c", "exit 0", NULL});
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, cmd);
	struct err e = {0};
	CHECK_INT(stage_launch(&s, &e), 0);
	CHECK(!s.launch.mpi);
	CHECK_INT(s.launch.world_size, -1);
	CHECK(s.launch.prefix[0] == NULL);
	CHECK_STR(s.launch.app[0], "sh");
	CHECK_STR(s.launch.app[2], "exit 0");
	CHECK(s.launch.app[3] == NULL);
	CHECK_STR(s.launch.target, "sh");
	run_state__release(&s);
}

static void t_launch_mpi(void)
{
	/* The launcher and its options stay in front; the application (the
	 * Run's target) is what the rank shim will wrap. mpirun need not be
	 * installed: the split reads the words. */
	char **cmd = words((const char *const[]){"mpirun", "--oversubscribe", "-n", "4", "env",
						 "A=1", "sh", "-c", "true", NULL});
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, cmd);
	struct err e = {0};
	CHECK_INT(stage_launch(&s, &e), 0);
	CHECK(s.launch.mpi);
	CHECK_INT(s.launch.world_size, 4);
	CHECK_STR(s.launch.prefix[0], "mpirun");
	CHECK_STR(s.launch.prefix[3], "4");
	CHECK_STR(s.launch.target, "sh");
	size_t n = 0;
	while (s.launch.app[n])
		n++;
	CHECK_STR(s.launch.app[n - 3], "sh");
	CHECK_STR(s.launch.app[n - 1], "true");
	run_state__release(&s);
}

static void t_launch_unresolved(void)
{
	/* Nothing resolvable behind the launcher: the command runs as given. */
	char **cmd = words((const char *const[]){"mpirun", "-n", "2", "./no-such-program-here",
						 NULL});
	struct run_request req = {0};
	struct run_state s;
	state_for(&s, &req, cmd);
	struct err e = {0};
	CHECK_INT(stage_launch(&s, &e), 0);
	CHECK(s.launch.app[0] != NULL);
	CHECK(s.launch.target != NULL);
	run_state__release(&s);
}

static void t_config_flags(void)
{
	/* --freq and --name are the command line's layer over the files; no
	 * file here (an empty project directory, no site file). */
	char *d = tmpdir();
	CHECK(chdir(d) == 0);
	setenv("NUNATAK_SITE_CONFIG", "/dev/null", 1);
	char **cmd = words((const char *const[]){"true", NULL});
	struct run_request req = {.freq = 1234, .name = "nightly"};
	struct run_state s;
	state_for(&s, &req, cmd);
	struct err e = {0};
	CHECK_INT(stage_config(&s, &e), 0);
	CHECK_INT(s.freq, 1234);
	CHECK_STR(s.cfg->name, "nightly");
	CHECK(s.prov.effective_config != NULL);
	CHECK_INT(json_integer_value(json_object_get(s.prov.effective_config, "sampling.frequency")),
		  1234);
	run_state__release(&s);

	struct run_request plain = {0};
	state_for(&s, &plain, cmd);
	CHECK_INT(stage_config(&s, &e), 0);
	CHECK(s.freq > 0); /* the default rate, never 0 */
	CHECK(s.cfg->name == NULL);
	run_state__release(&s);
	free(d);
	done();
}

static const struct test_case cases[] = {
	{"launch_plain", "a plain command is the application, no launcher", t_launch_plain},
	{"launch_mpi", "mpirun's options stay in front, ranks counted, target found", t_launch_mpi},
	{"launch_unresolved", "an unresolvable application runs as given", t_launch_unresolved},
	{"config_flags", "--freq and --name override the files", t_config_flags},
};

TEST_MAIN(cases)
