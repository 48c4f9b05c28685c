// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak run [options] -- <command...>`: parse, call the pipeline, render
 * the --json document. Everything else lives in src/run/pipeline.c. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_error.h"
#include "common/err_codes.h"
#include "cli/commands.h"
#include "common/exit_codes.h"
#include "cli/options.h"
#include "run/pipeline.h"
#include "collect/stacks.h"
#include "doctor/offcpu.h"
#include "mpi/skip.h"
#include "common/console.h"
#include "common/err.h"

#define FREQ_UNSET INT_MIN

struct run_opts {
	const char *name;
	const char *output;
	int freq;
	bool json;
	const char *json_file;
	bool strict;
	bool no_source;
	bool no_calibrate;
	const char *record;
	const char *replay;
	const char *collector;
	const char *call_graph;
	const char *offcpu;
	bool multi_pass;
	const char *mpi_skip;
	struct opt_strlist source_map;
	int verbose;
	int quiet;
};

static const struct opt_spec run_options[] = {
	{"name", 0, OPT_STRING, offsetof(struct run_opts, name), "NAME",
	 "name of the Run (default: nunatak.toml `name`, git toplevel, or the target's basename)",
	 false},
	{"output", 'o', OPT_STRING, offsetof(struct run_opts, output), "DIR",
	 "write the Run to exactly DIR instead of <runs_dir>/<name>-YYYYMMDD-HHMMSS", false},
	{"freq", 'F', OPT_INT, offsetof(struct run_opts, freq), "HZ",
	 "sampling frequency (default: sampling.frequency, 997; -F as perf record)", false},
	{"collector", 0, OPT_STRING, offsetof(struct run_opts, collector), "auto|perf|preload",
	 "CPU collector: perf where it can sample, else the preload sampler (auto, the "
	 "default); or force one",
	 false},
	{"call-graph", 0, OPT_STRING, offsetof(struct run_opts, call_graph), "lbr|fp|dwarf|none",
	 "call stacks to record (default: lbr on Intel, fp when the binaries keep frame "
	 "pointers, else none; dwarf copies 4096 bytes of user stack per sample)",
	 false},
	{"offcpu", 0, OPT_STRING, offsetof(struct run_opts, offcpu), "auto|switches|process",
	 "where the off-CPU time comes from: the best this machine allows (auto, the default: "
	 "the context switches and their call stacks where perf has kernel profiling); "
	 "switches: the per-thread budget without call stacks (no stack copied at each switch); "
	 "process: the process's wall and CPU time only (no context-switch records)",
	 false},
	{"mpi-skip", 0, OPT_STRING, offsetof(struct run_opts, mpi_skip), "MPI_X,MPI_Y",
	 "MPI functions nunatak's MPI probe forwards without measuring (default: mpi.skip, "
	 "none): where the probe's own cost is large (the summary says so), their calls are "
	 "then missing from the MPI time, which is stated as estimated",
	 false},
	{"multi-pass", 0, OPT_BOOL, offsetof(struct run_opts, multi_pass), NULL,
	 "measure the microarchitecture's FLOP and memory counters in separate passes (the "
	 "application runs once per pass), the FLOP count witnessing that they ran the same work",
	 false},
	{"json", 0, OPT_BOOL, offsetof(struct run_opts, json), NULL,
	 "stdout holds only one JSON document, printed at the end: the application's "
	 "stdout goes to stderr, with nunatak's messages", false},
	{"json-file", 0, OPT_STRING, offsetof(struct run_opts, json_file), "FILE",
	 "write the JSON document to FILE instead, the application's stdout untouched "
	 "(`-`: as --json)", false},
	{"strict", 0, OPT_BOOL, offsetof(struct run_opts, strict), NULL,
	 "exit 121 when any degradation occurred", false},
	{"no-source", 0, OPT_BOOL, offsetof(struct run_opts, no_source), NULL,
	 "do not extract source text into the Run", false},
	{"no-calibrate", 0, OPT_BOOL, offsetof(struct run_opts, no_calibrate), NULL,
	 "do not calibrate this Machine on its first Run (also NUNATAK_NO_CALIBRATE=1); the "
	 "Run then lacks measured Ceilings (degradation ceilings-unavailable)", false},
	{"source-map", 0, OPT_STRING_LIST, offsetof(struct run_opts, source_map), "OLD=NEW",
	 "rewrite a source path prefix (repeatable)", false},
	OPT_VERBOSE(struct run_opts, verbose),
	OPT_QUIET(struct run_opts, quiet),
	{"record", 0, OPT_STRING, offsetof(struct run_opts, record), "ENTRY",
	 "record every external invocation into a corpus entry", true},
	{"replay", 0, OPT_STRING, offsetof(struct run_opts, replay), "ENTRY",
	 "serve external invocations from a corpus entry", true},
};

static const struct verb_spec run_spec = {
	.name = "run",
	.usage = "nunatak run [options] -- <command...>",
	.summary = "Run a command once under measurement and write a Run directory. The "
		   "application's output, exit code and signals pass through untouched; "
		   "nunatak's messages go to stderr.",
	.opts = run_options,
	.nr_opts = OPTS_NR(run_options),
	.max_pos = 0,
	.epilog = "`nunatak run --json -- app | jq .` reads the Run's summary while app's "
		  "own output goes to stderr; `--json-file run.json` keeps app's stdout as is.\n"
		  "exit codes: the application's own; 127/126 command missing / not "
		  "executable; 125 failure before launch or usage error; 121 --strict with "
		  "a degradation.\nexample: nunatak run --name solver -- mpirun -n 8 ./solver\n",
};

/* "OLD=NEW" with a non-empty OLD. */
static bool valid_source_map(const struct opt_strlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *eq = strchr(l->v[i], '=');
		if (!eq || eq == l->v[i])
			return false;
	}
	return true;
}

/* Under --json a usage error is a JSON document too (STYLE.md §8). */
static int usage_error(const struct run_opts *o, struct console *con, const char *msg,
		       FILE *out)
{
	struct err e = {0};
	err_set(&e, -EINVAL, ERR_USAGE, "%s", msg);
	json_t *extra = json_pack("{s:n, s:n, s:i}", "run", "name", "exit_code", EXIT_USAGE);
	return cli_fail_to(con, o->json || o->json_file ? (out ? out : stdout) : NULL, &e,
			   EXIT_USAGE, extra);
}

/* Where the JSON document goes. --json (or --json-file -): this process's
 * stdout, kept aside, while fd 1 becomes stderr for everything else,
 * the application and its launcher included (they inherit it), so that
 * `nunatak run --json -- app | jq .` reads one document. --json-file FILE:
 * FILE, opened before the run (an unwritable FILE is a usage error, before
 * anything ran). NULL when no JSON was asked or on error (msg set). */
static FILE *json_output(const struct run_opts *o, char *msg, size_t cap)
{
	if (o->json_file && strcmp(o->json_file, "-") != 0) {
		FILE *f = fopen(o->json_file, "w");
		if (!f)
			snprintf(msg, cap, "--json-file %s: %s; give a writable path", o->json_file,
				 strerror(errno));
		return f;
	}
	if (!o->json && !o->json_file)
		return NULL;
	fflush(stdout);
	int fd = dup(STDOUT_FILENO);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		snprintf(msg, cap, "cannot set stdout aside for --json: %s", strerror(errno));
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		return NULL;
	}
	return f;
}

int cmd_run(int argc, char **argv)
{
	/* freq starts at a value no user types, so `--freq 0` is an error
	 * rather than a silent "default frequency". */
	struct run_opts o = {.freq = FREQ_UNSET};
	struct opts_rest rest = {0};
	struct err e = {0};
	struct console con;
	FILE *jout = NULL;
	int rc = opts_parse(&run_spec, argc, argv, &o, &rest, &e);
	console__init(&con, stderr, cli_console_level(o.verbose, o.quiet));
	if (rc == 1) {
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		o.json = o.json || opts_flag_given(argc, argv, "json");
		rc = usage_error(&o, &con, e.msg, NULL);
		goto out;
	}
	char msg[512] = "";
	jout = json_output(&o, msg, sizeof(msg));
	if (msg[0]) {
		console__error(&con, "%s", msg);
		rc = EXIT_USAGE;
		goto out;
	}
	const char *bad = NULL;
	enum collector_request collector = COLLECTOR_AUTO;
	if (o.collector && collector_request__parse(o.collector, &collector) < 0)
		bad = "--collector expects auto, perf or preload";
	else if (o.call_graph && stacks_mode__parse(o.call_graph, &(enum stacks_mode){0}) < 0)
		bad = "--call-graph expects lbr, fp, dwarf or none";
	else if (o.offcpu && offcpu_mechanism__parse(o.offcpu, &(enum offcpu_mechanism){0}) < 0)
		bad = "--offcpu expects auto, switches or process";
	else if (rest.cmd_argc == 0)
		bad = "no command to run: `nunatak run [options] -- <command...>`";
	else if (o.record && o.replay)
		bad = "--record and --replay exclude each other";
	else if (o.freq != FREQ_UNSET && o.freq <= 0)
		bad = "--freq expects a positive number of Hz";
	else if (!valid_source_map(&o.source_map))
		bad = "--source-map expects OLD=NEW";
	else if (o.mpi_skip && !mpi_skip_valid(o.mpi_skip))
		bad = "--mpi-skip expects MPI function names separated by commas (MPI_Test,MPI_Iprobe)";
	if (bad) {
		rc = usage_error(&o, &con, bad, jout);
		goto out;
	}
	struct run_request req = {
		.name = o.name, .output = o.output, .freq = o.freq == FREQ_UNSET ? 0 : o.freq, .json = jout != NULL,
		.strict = o.strict, .no_source = o.no_source,
		.no_calibrate = o.no_calibrate, .record_entry = o.record,
		.replay_entry = o.replay, .source_map = o.source_map.v,
		.nr_source_map = o.source_map.n, .collector = collector,
		.call_graph = o.call_graph, .offcpu = o.offcpu, .multi_pass = o.multi_pass, .mpi_skip = o.mpi_skip,
		.cmd = rest.cmd_argv, .cmd_argc = rest.cmd_argc};
	json_t *doc = NULL;
	struct err failure = {0};
	rc = run_pipeline(&req, &con, &doc, &failure);
	int wrc = failure.code[0] && doc ? cli_error_json(jout, failure.code, failure.msg, doc)
					 : cli_print_json_to(jout, doc);
	if (wrc < 0)
		console__error(&con, "could not write the JSON document to %s",
			       o.json_file && strcmp(o.json_file, "-") ? o.json_file : "standard output");
out:
	if (jout)
		fclose(jout);
	opts__release(&run_spec, &o);
	opts_rest__release(&rest);
	return rc;
}
