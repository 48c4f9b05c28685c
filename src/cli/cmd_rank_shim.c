// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak rank-shim` (hidden): what every MPI rank runs once `nunatak run`
 * rewrote the launch. Parses its options, hands over to collect/rank_shim,
 * and ends exactly as the application ended: same exit code, same signal. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/exit_codes.h"
#include "cli/options.h"
#include "collect/rank_shim.h"
#include "doctor/offcpu.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"

struct rank_shim_cli {
	const char *directory;
	int frequency;
	int rank_threshold;
	const char *perf;
	const char *call_graph;
	const char *preload;
	const char *mpi_profile;
	const char *mpi_skip;
	const char *regions_name;
	const char *sampler_lib;
	bool preload_only;
	bool clock_monotonic;
	const char *offcpu;
	const char *ompt_lib;
	bool perf_script;
	const char *launch_machine;
	int node_calibration;
	const char *cc;
	char *status_file;
	int app_pgid;
};

static const struct opt_spec shim_options[] = {
	{"directory", 0, OPT_STRING, offsetof(struct rank_shim_cli, directory), "DIR",
	 "the Run's collect/ directory on the shared filesystem", false},
	{"frequency", 0, OPT_INT, offsetof(struct rank_shim_cli, frequency), "HZ",
	 "sampling frequency of sampled ranks (default 997)", false},
	{"rank-threshold", 0, OPT_INT, offsetof(struct rank_shim_cli, rank_threshold), "N",
	 "every rank samples up to N ranks; beyond, rank 0 and one per node (default 64)", false},
	{"perf", 0, OPT_STRING, offsetof(struct rank_shim_cli, perf), "PATH",
	 "the perf to run (default: perf from PATH)", false},
	{"call-graph", 0, OPT_STRING, offsetof(struct rank_shim_cli, call_graph), "MODE",
	 "call stacks for sampled ranks: fp, lbr or dwarf", false},
	{"preload", 0, OPT_STRING, offsetof(struct rank_shim_cli, preload), "LIB",
	 "library to LD_PRELOAD into the application", false},
	{"mpi-profile", 0, OPT_STRING, offsetof(struct rank_shim_cli, mpi_profile), "LIB",
	 "nunatak's MPI interposition library, preloaded first (per-call MPI time)", false},
	{"mpi-skip", 0, OPT_STRING, offsetof(struct rank_shim_cli, mpi_skip), "MPI_X,MPI_Y",
	 "MPI functions the MPI library forwards without measuring (NUNATAK_MPI_SKIP)", false},
	{"regions-name", 0, OPT_STRING, offsetof(struct rank_shim_cli, regions_name), "NAME",
	 "set SCOPE_PROFILER_PREFIX=DIR/regions/NAME for the application (region traces)",
	 false},
	{"sampler-lib", 0, OPT_STRING, offsetof(struct rank_shim_cli, sampler_lib), "LIB",
	 "libscope_profiler.so: samples a sampling rank through LD_PRELOAD where perf is "
	 "missing or refuses to record", false},
	{"preload-only", 0, OPT_BOOL, offsetof(struct rank_shim_cli, preload_only), NULL,
	 "sample with --sampler-lib only, never perf (nunatak run --collector preload)", false},
	{"clock-monotonic", 0, OPT_BOOL, offsetof(struct rank_shim_cli, clock_monotonic), NULL,
	 "timestamp samples with CLOCK_MONOTONIC (shared with region traces)", false},
	{"ompt-lib", 0, OPT_STRING, offsetof(struct rank_shim_cli, ompt_lib), "LIB",
	 "nunatak's OMPT tool, named in the application's OMP_TOOL_LIBRARIES unless it "
	 "names another tool", false},
	{"offcpu", 0, OPT_STRING, offsetof(struct rank_shim_cli, offcpu), "MODE",
	 "switches: record the threads' context switches (wall, CPU and off-CPU time); "
	 "stacks: and their stacks at each switch out", false},
	{"perf-script", 0, OPT_BOOL, offsetof(struct rank_shim_cli, perf_script), NULL,
	 "also extract perf-script.txt and perf-buildid-list.txt in the rank", false},
	{"launch-machine", 0, OPT_STRING, offsetof(struct rank_shim_cli, launch_machine), "ID",
	 "the launch node's Machine identity (a node of another Machine may calibrate)", false},
	{"node-calibration", 0, OPT_INT, offsetof(struct rank_shim_cli, node_calibration), "S",
	 "local rank 0 calibrates its node's Machine after the application when it is not "
	 "the launch node's and has no cached profile, within S seconds", false},
	{"cc", 0, OPT_STRING, offsetof(struct rank_shim_cli, cc), "CC",
	 "the C compiler of that calibration ([tools] cc)", false},
	{"status-file", 0, OPT_STRING, offsetof(struct rank_shim_cli, status_file), "FILE",
	 "relay only (what a counting rank runs under perf stat): run the command, write "
	 "how it ended to FILE", false},
	{"app-pgid", 0, OPT_INT, offsetof(struct rank_shim_cli, app_pgid), "PGID",
	 "relay only: the process group the command starts in (the rank's, which its "
	 "launcher signals)", false},
};

static const struct verb_spec shim_spec = {
	.name = "rank-shim",
	.usage = "nunatak rank-shim --directory DIR [options] -- <application...>",
	.summary = "Runs one MPI rank's application with per-rank collection: a subset of "
		   "ranks samples, the others count, each writes DIR/rank-<N>/. Outside any "
		   "MPI rank it runs the application untouched and writes nothing. Not meant "
		   "to be typed: `nunatak run -- mpirun ...` rewrites the launch to it.",
	.opts = shim_options,
	.nr_opts = OPTS_NR(shim_options),
	.max_pos = 0,
};

int cmd_rank_shim(int argc, char **argv)
{
	struct rank_shim_cli c = {0};
	struct opts_rest rest = {0};
	struct err e = {0};
	struct console con;
	console__init(&con, stderr, 0);
	int rc = opts_parse(&shim_spec, argc, argv, &c, &rest, &e);
	if (rc == 1)
		goto out_ok;
	if (rc == 0 && (!rest.cmd_argc || (!c.directory && !c.status_file)))
		rc = err_set(&e, -EINVAL, ERR_USAGE,
			     "rank-shim needs --directory DIR and a command after `--`");
	if (rc < 0) {
		console__error(&con, "%s", e.msg);
		rc = EXIT_USAGE;
		goto out;
	}
	struct rank_shim_opts o = {.directory = c.directory, .freq = c.frequency,
				   .rank_threshold = c.rank_threshold, .perf = c.perf,
				   .call_graph = c.call_graph, .preload = c.preload,
				   .mpi_profile = c.mpi_profile, .mpi_skip = c.mpi_skip,
				   .regions_name = c.regions_name,
				   .sampler_lib = c.sampler_lib, .preload_only = c.preload_only,
				   .clock_monotonic = c.clock_monotonic,
				   .ompt_lib = c.ompt_lib,
				   .offcpu = !c.offcpu ? OFFCPU_PROCESS
					     : !strcmp(c.offcpu, "stacks") ? OFFCPU_STACKS
					     : !strcmp(c.offcpu, "switches") ? OFFCPU_SWITCHES
									      : OFFCPU_PROCESS,
				   .perf_script = c.perf_script, .status_file = c.status_file,
				   .launch_machine = c.launch_machine,
				   .node_calibration_s = c.node_calibration, .cc = c.cc,
				   .split_writer = true, .tool_cache = true,
				   .app_pgid = c.app_pgid > 0 ? (pid_t)c.app_pgid : 0};
	struct executor *x = executor__new_real();
	struct rank_shim_result res;
	rc = x ? rank_shim_run(x, &o, rest.cmd_argv, NULL, NULL, &res, &e)
	       : err_oom(&e);
	executor__free(x);
	if (rc < 0) {
		console__error(&con, "rank-shim: %s", e.msg);
		rc = EXIT_FAILURE_BEFORE_LAUNCH;
		goto out;
	}
	rc = res.exit_code;
	char *path = NULL;
	if ((rc == EXEC_NOT_FOUND || rc == EXEC_NOT_EXECUTABLE) && !res.term_signal &&
	    exec_which(rest.cmd_argv[0], &path) != 0)
		/* The application never started: the message is nunatak's, as a
		 * shell would have given it. */
		console__error(&con, "%s: %s%s", rest.cmd_argv[0],
			       rc == EXEC_NOT_FOUND ? "command not found" : "permission denied",
			       res.in_rank ? " in this rank" : "");
	xfree(path);
	if (res.term_signal) {
		/* End the way the application ended, so the launcher reports the
		 * signal, not an exit code that merely looks like one. */
		fflush(stdout);
		signal(res.term_signal, SIG_DFL);
		raise(res.term_signal);
	}
	goto out;
out_ok:
	rc = 0;
out:
	opts__release(&shim_spec, &c);
	opts_rest__release(&rest);
	return rc;
}
