// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak report [RUN] [--json]`: re-read a Run (default: the newest under
 * runs_dir) and print its terminal summary, or the report payload JSON. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "common/exit_codes.h"
#include "cli/options.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "report/html.h"
#include "report/report_run.h"
#include "report/roofline_csv.h"
#include "common/fsutil.h"
#include "store/rundir.h"

struct report_opts {
	bool json;
	bool no_source;
	bool html;
	const char *payload;
	const char *format;
	const char *output;
	int verbose, quiet;
};

static const struct opt_spec report_options[] = {
	{"json", 0, OPT_BOOL, offsetof(struct report_opts, json), NULL,
	 "print the report payload (JSON, schema 6) on stdout instead of the summary", false},
	{"no-source", 0, OPT_BOOL, offsetof(struct report_opts, no_source), NULL,
	 "withhold source text from the payload (with --html: write report-no-source.html)",
	 false},
	{"html", 0, OPT_BOOL, offsetof(struct report_opts, html), NULL,
	 "also (re)write the self-contained page RUN/report.html", false},
	{"payload", 0, OPT_STRING, offsetof(struct report_opts, payload), "FILE",
	 "render a saved payload (report --json) to report.html beside FILE", true},
	{"format", 'f', OPT_STRING, offsetof(struct report_opts, format),
	 "collapsed|speedscope|roofline-csv",
	 "export instead: the Run's sampled call stacks, collapsed (FlameGraph's "
	 "flamegraph.pl, speedscope) or in speedscope's JSON file format; or the "
	 "roofline's placed points as CSV (roofline-csv)",
	 false},
	{"output", 'o', OPT_STRING, offsetof(struct report_opts, output), "FILE",
	 "with --format: write to FILE instead of stdout", false},
	OPT_VERBOSE(struct report_opts, verbose),
	OPT_QUIET(struct report_opts, quiet),
};

static const struct verb_spec report_spec = {
	.name = "report",
	.usage = "nunatak report [options] [RUN]",
	.summary = "Re-read a Run directory (default: the newest under runs_dir that has a "
		   "manifest.json), print its terminal summary and rewrite its report.html "
		   "(report-no-source.html with --no-source), or with --json print the report "
		   "payload instead. Nothing is re-measured; the analysis is recomputed.",
	.opts = report_options,
	.nr_opts = OPTS_NR(report_options),
	.max_pos = 1,
	.epilog = "exit codes: 0; 125 when there is no Run or it cannot be read (or, with --html, "
		  "the page cannot be written).\nexample: nunatak report --html --no-source "
		  ".nunatak/solver-20260101-120000\n",
};

/* --html: the page beside the Run's manifest; "Report: <path>" on stderr. */
static int write_html(const json_t *payload, const char *dir, bool no_source,
		      struct console *con)
{
	struct err e = {0};
	char *path = fs_join(dir, no_source ? REPORT_HTML_NO_SOURCE_FILE : REPORT_HTML_FILE);
	int rc = path ? report_html_write(payload, path, no_source, &e) : -1;
	if (rc < 0)
		console__error(con, "could not write the HTML report: %s",
			       e.msg[0] ? e.msg : "out of memory");
	else
		console__info(con, "Report: %s", path);
	xfree(path);
	return rc < 0 ? EXIT_FAILURE_BEFORE_LAUNCH : 0;
}

/* --payload FILE: no Run to read, the page goes beside FILE. */
static int render_payload(const char *file, bool no_source, struct console *con)
{
	json_error_t je;
	json_t *p = json_load_file(file, 0, &je);
	if (!p) {
		if (je.line > 0)
			console__error(con, "%s:%d:%d: %s", file, je.line, je.column, je.text);
		else
			console__error(con, "%s", je.text);
		return EXIT_FAILURE_BEFORE_LAUNCH;
	}
	char *dir = xstrdup(file);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*slash = '\0';
	int rc = dir ? write_html(p, slash ? dir : ".", no_source, con) : EXIT_FAILURE_BEFORE_LAUNCH;
	xfree(dir);
	json_decref(p);
	return rc;
}

/* The Run given, or the newest under runs_dir, which is then named (as an
 * absolute path) on stderr: the user sees which of many Runs is read. */
static char *pick_run(const struct opts_rest *rest, struct console *con, struct err *e)
{
	if (rest->nr_pos)
		return xstrdup(rest->pos[0]);
	struct config cfg;
	char *path = NULL;
	if (config__load(&cfg, NULL, e) == 0)
		rundir_find_latest(cfg.runs_dir ? cfg.runs_dir : ".nunatak", &path, e);
	if (path) {
		char *abs = realpath(path, NULL);
		console__info(con, "Run: %s (the newest under %s)", abs ? abs : path,
			      cfg.runs_dir ? cfg.runs_dir : ".nunatak");
		free(abs);
	}
	config__release(&cfg);
	return path;
}

/* --format roofline-csv: the placed points, from the recomputed payload. */
static int write_roofline_csv(const char *dir, FILE *f, size_t *placed, struct err *e)
{
	struct report_out out = {0};
	int rc = report_run(dir, true, &out, e);
	if (rc == 0)
		rc = roofline_csv_write(out.payload, f, placed, e);
	report_out__release(&out);
	return rc;
}

/* --format: the flame graph's stacks or the roofline's points, to -o FILE or stdout. */
static int export_stacks(const char *dir, const struct report_opts *o, struct console *con)
{
	struct err e = {0};
	FILE *f = o->output ? fopen(o->output, "w") : stdout;
	if (!f) {
		err_set(&e, -errno, ERR_OUTPUT_WRITE, "%s: cannot write: %s (check the directory exists)",
			o->output, strerror(errno));
		return cli_fail(con, o->json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
	}
	bool stacks = false, csv = strcmp(o->format, "roofline-csv") == 0;
	size_t placed = 0;
	int rc = csv ? write_roofline_csv(dir, f, &placed, &e)
		     : report_export_stacks(dir, o->format, f, &stacks, &e);
	if (o->output && fclose(f) != 0 && rc == 0)
		rc = err_set(&e, -EIO, ERR_OUTPUT_WRITE, "%s: write failed", o->output);
	if (rc < 0) {
		if (o->output)
			remove(o->output);
		return cli_fail(con, o->json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
	}
	if (csv && !placed)
		console__warn(con, "no Hotspot of this Run is placed on the roofline: the CSV holds its "
				   "header only (the report's roofline section says why)");
	else if (!csv && !stacks)
		console__warn(con, "this Run has no call stacks: the export holds the Hotspots "
				   "only (record them with `nunatak run --call-graph fp|dwarf`)");
	if (o->output)
		console__info(con, "wrote %s", o->output);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {0};
	struct opts_rest rest = {0};
	struct err e = {0};
	struct console con;
	char *dir = NULL;
	int rc = opts_parse(&report_spec, argc, argv, &o, &rest, &e);
	console__init(&con, stderr, cli_console_level(o.verbose, o.quiet));
	if (rc == 1) {
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		rc = cli_fail(&con, opts_flag_given(argc, argv, "json"), &e,
			      EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	if (o.payload) {
		rc = render_payload(o.payload, o.no_source, &con);
		goto out;
	}
	if (!(dir = pick_run(&rest, &con, &e))) {
		if (!e.code[0])
			err_set(&e, -ENOENT, ERR_RUN_NONE, "no Run found");
		rc = cli_fail(&con, o.json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	if (o.format) {
		rc = export_stacks(dir, &o, &con);
		goto out;
	}
	struct report_out out = {0};
	rc = report_run(dir, o.no_source, &out, &e);
	if (rc < 0) {
		rc = cli_fail(&con, o.json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	if (o.html && write_html(out.payload, dir, o.no_source, &con) != 0) {
		report_out__release(&out);
		rc = EXIT_FAILURE_BEFORE_LAUNCH;
		goto out;
	}
	if (o.json) {
		json_dumpf(out.payload, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		for (size_t i = 0; i < out.lines.n; i++)
			printf("%s\n", out.lines.v[i]);
		/* The page is regenerable: rewrite it from what was just read
		 * (--html did already, with a failure fatal). */
		char *page = NULL;
		if (!o.html && report_html_write_run(dir, o.no_source, &page, &e) == 0)
			console__info(&con, "Report: %s", page);
		else if (!o.html)
			console__warn(&con, "no report page: %s", e.msg);
		xfree(page);
	}
	report_out__release(&out);
	rc = 0;
out:
	xfree(dir);
	opts__release(&report_spec, &o);
	opts_rest__release(&rest);
	return rc;
}
