// SPDX-License-Identifier: BSD-3-Clause
/*
 * `nunatak regions <verb>` and `scope-profiler <verb>` (the same binary under
 * the name region-library users know): parse options, call the workers in
 * src/regions/, render errors. No analysis lives here.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "cli/docs_path.h"
#include "cli/cli_error.h"
#include "cli/commands.h"
#include "common/exit_codes.h"
#include "cli/options.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "report/regions_export.h"
#include "report/regions_summary.h"
#include "regions/lines.h"
#include "report/regions_lines.h"
#include "common/outfile.h"
#include "report/regions_plot.h"
#include "regions/region_counters.h"
#include "regions/regions_inspect.h"
#include "regions/regions_run.h"
#include "regions/summary.h"
#include "modules/trace_h5.h"
#include "regions/trace_set.h"
#include "report/regions_tree.h"
#include "regions/region_filter.h"

struct regions_opts {
	bool json, paths, source;
	int verbose, quiet, depth, top, max_calls; /* UNSET: not given */
	const char *sort, *ranks, *rank, *columns, *percentage, *format, *output, *table;
	struct opt_strlist include, exclude;
};

#define O(f) offsetof(struct regions_opts, f)
#define OPT_V OPT_VERBOSE(struct regions_opts, verbose)
#define OPT_Q OPT_QUIET(struct regions_opts, quiet)
#define OPT_RANKS {"ranks", 0, OPT_STRING, O(ranks), "LIST", "only these ranks: 0,2,4-7", false}
#define OPT_INC {"include", 0, OPT_STRING_LIST, O(include), "REGEX", \
		 "only regions matching REGEX (POSIX ERE, repeatable)", false}
#define OPT_EXC {"exclude", 0, OPT_STRING_LIST, O(exclude), "REGEX", \
		 "drop regions matching REGEX (repeatable)", false}
#define OPT_OUT(h) {"output", 'o', OPT_STRING, O(output), "FILE", h, false}

static const struct opt_spec inspect_opts[] = {
	{"sort", 0, OPT_STRING, O(sort), "KEY",
	 "order rows by start (default), total, calls, avg, min, max, std or name", false},
	OPT_INC, OPT_EXC, OPT_RANKS,
	{"columns", 0, OPT_STRING, O(columns), "LIST",
	 "region,calls,percent,parent_percent,total,avg,min,max,std,imbalance,exclusive", false},
	{"percentage", 0, OPT_STRING, O(percentage), "MODE",
	 "% session from wall-clock coverage (default) or exclusive time", false},
	{"json", 0, OPT_BOOL, O(json), NULL, "print only a JSON document on stdout", false},
	OPT_V, OPT_Q};
#define UNSET INT_MIN

static const struct opt_spec tree_opts[] = {
	{"rank", 0, OPT_STRING, O(rank), "N", "only rank N (or a list: 0,2-3)", false},
	{"depth", 0, OPT_INT, O(depth), "N", "show call paths down to depth N (0 = top level)",
	 false},
	{"paths", 0, OPT_BOOL, O(paths), NULL, "print full call paths (a > b > c)", false},
	{"json", 0, OPT_BOOL, O(json), NULL, "print only a JSON document on stdout", false},
	OPT_INC, OPT_EXC, OPT_V, OPT_Q};
static const struct opt_spec export_opts[] = {
	{"format", 'f', OPT_STRING, O(format), "FMT",
	 "speedscope, chrome, collapsed, csv or json (required)", false},
	OPT_OUT("write to FILE (default and '-': stdout)"),
	{"table", 0, OPT_STRING, O(table), "WHAT",
	 "csv/json: events (one row per call, default), summary, counters (per rank, "
	 "lane, region and event) or counter-calls (each call's counts)", false},
	OPT_RANKS, OPT_INC, OPT_EXC, OPT_V, OPT_Q};
static const struct opt_spec convert_opts[] = {
	OPT_OUT("the merged HDF5 profile to write (required)"), OPT_V, OPT_Q};
static const struct opt_spec merge_opts[] = {
	OPT_OUT("the merged HDF5 profile to write (required)"), OPT_V, OPT_Q};
static const struct opt_spec lines_opts[] = {
	{"top", 'n', OPT_INT, O(top), "N", "lines per region (default 10; 0 = all)", false},
	OPT_RANKS,
	{"source", 0, OPT_BOOL, O(source), NULL, "show each line's source text", false},
	{"json", 0, OPT_BOOL, O(json), NULL, "print only a JSON document on stdout", false},
	OPT_V, OPT_Q};
static const struct opt_spec plot_opts[] = {
	OPT_OUT("the HTML page to write (required)"), OPT_RANKS,
	{"max-calls", 0, OPT_INT, O(max_calls), "N",
	 "draw at most N calls, longest first (default 200000)", false},
	OPT_INC, OPT_EXC, OPT_V, OPT_Q};

enum sub { SUB_INSPECT, SUB_TREE, SUB_EXPORT, SUB_CONVERT, SUB_MERGE, SUB_LINES, SUB_PLOT,
	   NR_SUB };

static const struct {
	const char *name, *args, *summary;
	const struct opt_spec *opts;
	size_t nr;
} subs[NR_SUB] = {
	{"inspect", "PATH...", "region summary table of a run, aggregated over ranks",
	 inspect_opts, OPTS_NR(inspect_opts)},
	{"tree", "PATH...", "reconstructed call tree per rank and lane", tree_opts,
	 OPTS_NR(tree_opts)},
	{"export", "PATH... -f FMT [-o FILE]", "export calls for speedscope, Perfetto/Chrome, "
	 "flame graphs, or as tidy CSV/JSON", export_opts, OPTS_NR(export_opts)},
	{"convert", "PATH... -o FILE.h5", "merge every rank into one HDF5 profile",
	 convert_opts, OPTS_NR(convert_opts)},
	{"merge", "RUN RUN... -o FILE.h5", "combine result sets (each RUN a file or directory, "
	 "e.g. a Python and a Fortran run of the same ranks) into one HDF5 profile; a region "
	 "name in two runs on one rank is refused", merge_opts, OPTS_NR(merge_opts)},
	{"lines", "PATH...", "per-region line profile from .sps sample files", lines_opts,
	 OPTS_NR(lines_opts)},
	{"plot", "PATH... -o FILE.html", "self-contained timeline page (flame chart per rank)",
	 plot_opts, OPTS_NR(plot_opts)},
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s <verb> PATH... [options]\n\nPATH is a trace file (.spt, "
		   "*_rank<N>.h5, .sps for lines) or a directory of them.\n\nverbs:\n",
		prog);
	for (int i = 0; i < NR_SUB; i++)
		fprintf(f, "  %-8s %s\n", subs[i].name, subs[i].summary);
	fprintf(f, "\n`%s <verb> --help` for a verb's options.\n", prog);
	cli_print_docs_line(f, "docs/cli/regions.md");
}

/* Prints e (console, or JSON on stdout under --json) and maps it to an exit code. */
static int fail(struct console *con, const struct err *e, bool json)
{
	return cli_fail(con, json, e, EXIT_ERROR, NULL);
}

static int run_inspect(struct trace_set *ts, const struct regions_opts *o,
		       const struct rank_filter *rf, struct console *con, struct err *e)
{
	struct summary_view v = {.sort = o->sort ? o->sort : "start",
				 .include = o->include.v, .nr_include = o->include.n,
				 .exclude = o->exclude.v, .nr_exclude = o->exclude.n};
	if (summary_parse_sort(v.sort, e) < 0 ||
	    summary_parse_columns(o->columns ? o->columns
					     : "region,calls,percent,parent_percent,total,avg,"
					       "min,max,std,imbalance",
				  v.cols, e))
		return -EINVAL;
	if (o->percentage && strcmp(o->percentage, "exclusive") == 0)
		v.pct = PCT_EXCLUSIVE;
	else if (o->percentage && strcmp(o->percentage, "coverage") != 0)
		return err_set(e, -EINVAL, ERR_USAGE,
			       "--percentage '%s': expected coverage or exclusive", o->percentage);
	return regions_inspect(ts, rf, &v, o->json, stdout, con, e);
}

static int run_export(struct trace_set *ts, const struct regions_opts *o,
		      const struct rank_filter *rf, struct console *con, struct err *e)
{
	if (!o->format)
		return err_set(e, -EINVAL, ERR_USAGE,
			       "export needs --format FMT (speedscope, chrome, collapsed, csv, json)");
	struct summary_view v = {.sort = "start", .include = o->include.v,
				 .nr_include = o->include.n, .exclude = o->exclude.v,
				 .nr_exclude = o->exclude.n, .cols = {-1}};
	struct export_opts x = {.format = export_parse_format(o->format, e), .ranks = rf,
				.view = &v};
	if (x.format < 0)
		return -EINVAL;
	if (o->table && strcmp(o->table, "summary") == 0)
		x.summary = true;
	else if (o->table && strcmp(o->table, "counters") == 0)
		x.counters = true;
	else if (o->table && strcmp(o->table, "counter-calls") == 0)
		x.counter_calls = true;
	else if (o->table && strcmp(o->table, "events") != 0)
		return err_set(e, -EINVAL, ERR_USAGE,
			       "--table '%s': expected events, summary, counters or counter-calls",
			       o->table);
	if ((x.summary || x.counters || x.counter_calls) && x.format != EXPORT_CSV &&
	    x.format != EXPORT_JSON)
		return err_set(e, -EINVAL, ERR_USAGE, "--table %s needs --format csv or json",
			       o->table);
	struct outfile out;
	int rc = outfile__open(&out, o->output ? o->output : "-", e); /* default: stdout */
	if (rc)
		return rc;
	rc = regions_export(ts, &x, out.f, con, e);
	if (rc == 0)
		rc = outfile__commit(&out, e);
	else
		outfile__abort(&out);
	return rc;
}

static int run_plot(struct trace_set *ts, const struct regions_opts *o,
		    const struct rank_filter *rf, struct console *con, struct err *e)
{
	if (!o->output)
		return err_set(e, -EINVAL, ERR_USAGE, "plot needs -o FILE.html");
	struct plot_opts p = {.ranks = rf, .max_calls = o->max_calls != UNSET ? (size_t)o->max_calls
									    : 200000};
	struct outfile out;
	int rc = outfile__open(&out, o->output, e);
	if (rc)
		return rc;
	rc = regions_plot(ts, &p, out.f, con, e);
	if (rc == 0)
		rc = outfile__commit(&out, e);
	else
		outfile__abort(&out);
	return rc;
}

/* Each positional is one result set (run). */
static int run_merge(const struct opts_rest *rest, const struct regions_opts *o,
		     struct console *con, struct err *e)
{
	if (!o->output)
		return err_set(e, -EINVAL, ERR_USAGE, "merge needs -o FILE.h5");
	if (rest->nr_pos < 2)
		return err_set(e, -EINVAL, ERR_USAGE,
			       "merge needs at least two runs (files or directories) to combine");
	struct trace_set *runs = calloc(rest->nr_pos, sizeof(*runs));
	if (!runs)
		return err_oom(e);
	size_t opened = 0;
	int rc = 0;
	for (; opened < rest->nr_pos && rc == 0; opened++)
		rc = trace_set__open(&runs[opened], &rest->pos[opened], 1, e);
	if (rc)
		opened--; /* the failed one released itself */
	if (rc == 0)
		rc = trace_h5_merge(runs, rest->nr_pos, rest->pos, o->output, con, e);
	for (size_t k = 0; k < opened; k++)
		trace_set__release(&runs[k]);
	free(runs);
	return rc;
}

static int dispatch(enum sub s, const struct opts_rest *rest, const struct regions_opts *o,
		    struct console *con, struct err *e)
{
	if (rest->nr_pos == 0)
		return err_set(e, -EINVAL, ERR_USAGE,
			       "%s needs at least one trace file or directory", subs[s].name);
	/* A typed value the table cannot mean is an error, never the default. */
	if (o->depth != UNSET && o->depth < 0)
		return err_set(e, -EINVAL, ERR_USAGE, "--depth expects 0 (top level) or more, got %d",
			       o->depth);
	if (o->max_calls != UNSET && o->max_calls <= 0)
		return err_set(e, -EINVAL, ERR_USAGE, "--max-calls expects a positive count, got %d",
			       o->max_calls);
	if (o->top < 0)
		return err_set(e, -EINVAL, ERR_USAGE, "--top expects 0 (all) or more, got %d", o->top);
	if (s == SUB_MERGE)
		return run_merge(rest, o, con, e);
	if (s == SUB_LINES) {
		struct rank_filter lrf = {0};
		int lrc = o->ranks ? rank_filter_parse(&lrf, o->ranks, e) : 0;
		struct lines_opts lo = {.top = o->top, .json = o->json, .source = o->source,
					.ranks = o->ranks ? &lrf : NULL};
		if (lrc == 0)
			lrc = regions_lines(rest->pos, rest->nr_pos, &lo, stdout, con, e);
		free(lrf.ranks);
		return lrc;
	}
	struct rank_filter rf = {0};
	const char *rl = s == SUB_TREE ? o->rank : o->ranks;
	int rc = rl ? rank_filter_parse(&rf, rl, e) : 0;
	struct trace_set ts;
	if (rc || (rc = trace_set__open(&ts, rest->pos, rest->nr_pos, e))) {
		free(rf.ranks);
		return rc;
	}
	size_t n;
	rc = rank_filter__count(&rf, &ts, &n, e);
	/* Verbs that rebuild calls drop filtered regions as each rank loads
	 * (region_filter.h); inspect and summary tables filter their rows. */
	struct region_filter filter = {0};
	bool rows_only = s == SUB_INSPECT || (s == SUB_EXPORT && o->table &&
					      strcmp(o->table, "summary") == 0);
	if (rc == 0 && !rows_only && s != SUB_CONVERT &&
	    (rc = region_filter__init(&filter, o->include.v, o->include.n, o->exclude.v,
				      o->exclude.n, e)) == 0)
		ts.filter = &filter;
	if (rc == 0) {
		switch (s) {
		case SUB_INSPECT: rc = run_inspect(&ts, o, &rf, con, e); break;
		case SUB_TREE: {
			struct tree_opts t = {.ranks = &rf,
					      .max_depth = o->depth == UNSET ? -1 : o->depth,
					      .paths = o->paths, .json = o->json};
			rc = regions_tree(&ts, &t, stdout, con, e);
			break;
		}
		case SUB_EXPORT: rc = run_export(&ts, o, &rf, con, e); break;
		case SUB_CONVERT:
			rc = o->output ? trace_h5_convert(&ts, o->output, con, e)
				       : err_set(e, -EINVAL, ERR_USAGE, "convert needs -o FILE.h5");
			break;
		case SUB_PLOT: rc = run_plot(&ts, o, &rf, con, e); break;
		default: break;
		}
	}
	free(rf.ranks);
	trace_set__release(&ts);
	region_filter__release(&filter);
	return rc;
}

int cmd_regions(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/');
	self = self ? self + 1 : argv[0];
	bool alias = strcmp(self, "scope-profiler") == 0;
	const char *prog = alias ? "scope-profiler" : "nunatak regions";
	struct console con;
	console__init(&con, stderr, 0);
	if (argc < 2) {
		console__error(&con, "missing verb: expected inspect, tree, export, convert, merge, lines "
				     "or plot (see `%s --help`)",
			       prog);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout, prog);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) { /* as `nunatak --version` */
		printf("%s %s\n", alias ? "scope-profiler (nunatak)" : "nunatak", NUNATAK_VERSION);
		return 0;
	}
	int s = 0;
	while (s < NR_SUB && strcmp(argv[1], subs[s].name) != 0)
		s++;
	if (s == NR_SUB) {
		console__error(&con, "unknown verb '%s' for `%s`; expected inspect, tree, export, "
				     "convert, merge, lines or plot",
			       argv[1], prog);
		return EXIT_USAGE;
	}
	char usage_line[160];
	snprintf(usage_line, sizeof(usage_line), "%s %s %s [options]", prog, subs[s].name,
		 subs[s].args);
	struct verb_spec spec = {.name = alias ? subs[s].name : NULL, .prog = alias ? prog : NULL,
				 .usage = usage_line, .summary = subs[s].summary,
				 .opts = subs[s].opts, .nr_opts = subs[s].nr, .max_pos = -1,
				 .epilog = "Reference: docs/cli/regions.md"};
	char name[64];
	snprintf(name, sizeof(name), "regions %s", subs[s].name);
	if (!alias)
		spec.name = name;
	struct regions_opts o = {.depth = UNSET, .top = 10, .max_calls = UNSET};
	struct opts_rest rest = {0};
	struct err e = {0};
	int rc = opts_parse(&spec, argc - 1, argv + 1, &o, &rest, &e);
	if (rc == 0) {
		console__init(&con, stderr, cli_console_level(o.verbose, o.quiet));
		rc = dispatch((enum sub)s, &rest, &o, &con, &e);
		rc = rc ? fail(&con, &e, o.json) : 0;
	} else {
		/* a usage error stops the parser, maybe before --json: look for it */
		rc = rc == 1 ? 0 : fail(&con, &e, opts_flag_given(argc - 1, argv + 1, "json"));
	}
	opts__release(&spec, &o);
	opts_rest__release(&rest);
	return rc;
}
