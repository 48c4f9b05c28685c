// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak fg-exec` (hidden): what perf runs in place of the application.
 * perf starts in a process group of its own (exec_request.own_pgrp), so a
 * terminal's Ctrl-C, sent to the foreground group, does not reach it (perf
 * would answer with a SIGTERM to the application and an end by SIGINT of its
 * own, hiding the application's status). This verb moves itself back into
 * the group nunatak runs in, the terminal's foreground group, and becomes the
 * application (exec, same pid): the application gets the signals it would get
 * bare, and perf ends when it ends, with its status. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/exit_codes.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "collect/perf_kallsyms.h"

struct fg_exec_cli {
	int pgid;
	bool ttou_default;
	int status_fd;
	const char *return_ns;
};

static const struct opt_spec fg_options[] = {
	{"pgid", 0, OPT_INT, offsetof(struct fg_exec_cli, pgid), "PGID",
	 "the process group to join before running the command (nunatak's)", false},
	{"ttou-default", 0, OPT_BOOL, offsetof(struct fg_exec_cli, ttou_default), NULL,
	 "give SIGTTOU back its default action (nunatak ignored it for the collector only)",
	 false},
	{"status-fd", 0, OPT_INT, offsetof(struct fg_exec_cli, status_fd), "FD",
	 "run the command as a child, deaf to the collector's SIGTERM, and write how it "
	 "ended (\"exit N\" or \"signal N\") to this descriptor", false},
	{"return-ns", 0, OPT_STRING, offsetof(struct fg_exec_cli, return_ns), "NSFD,CWDFD",
	 "first go back to this mount namespace and working directory (descriptors perf "
	 "inherited from the rank's shim), closing both", false},
};

static const struct verb_spec fg_spec = {
	.name = "fg-exec",
	.usage = "nunatak fg-exec --pgid PGID [--ttou-default] [--status-fd FD] [--return-ns NSFD,CWDFD] "
		 "-- <application...>",
	.summary = "Joins process group PGID and runs the application in its place (same "
		   "process). Not meant to be typed: `nunatak run` puts it between perf and "
		   "the application so that a Ctrl-C reaches the application, not perf.",
	.opts = fg_options,
	.nr_opts = OPTS_NR(fg_options),
	.max_pos = 0,
};

int cmd_fg_exec(int argc, char **argv)
{
	struct fg_exec_cli c = {.status_fd = -1};
	struct opts_rest rest = {0};
	struct err e = {0};
	struct console con;
	console__init(&con, stderr, 0);
	int rc = opts_parse(&fg_spec, argc, argv, &c, &rest, &e);
	if (rc == 1) {
		rc = 0;
		goto out;
	}
	if (rc == 0 && (!rest.cmd_argc || c.pgid <= 0))
		rc = err_set(&e, -EINVAL, ERR_USAGE, "fg-exec needs --pgid PGID and a command "
						     "after `--`");
	if (rc < 0) {
		console__error(&con, "%s", e.msg);
		rc = EXIT_USAGE;
		goto out;
	}
	/* perf ran in a mount namespace of its own (collect/perf_kallsyms.h): the
	 * application runs in the rank's. Cannot fail for root with CAP_SYS_ADMIN
	 * (checked before perf); if it does, the application still runs, said. */
	int nr = c.return_ns ? perf_kallsyms_return(c.return_ns) : 0;
	if (nr < 0)
		console__error(&con, "could not go back to the rank's mount namespace (%s): %s "
				     "runs in perf's, whose /proc/kallsyms is a table of a few lines",
			       strerror(-nr), rest.cmd_argv[0]);
	rc = exec_become((pid_t)c.pgid, c.ttou_default, c.status_fd, rest.cmd_argv);
	/* As a shell says it, with its codes (perf would have said the same);
	 * a relay returns the application's own status instead. */
	if (c.status_fd < 0)
		console__error(&con, "%s: %s", rest.cmd_argv[0], strerror(errno));
out:
	opts__release(&fg_spec, &c);
	opts_rest__release(&rest);
	return rc;
}
