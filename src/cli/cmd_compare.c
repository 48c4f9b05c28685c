// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak compare A B` / `nunatak compare A1 A2 ... -- B1 B2 ...`: did the
 * change make it faster, beyond noise? Statistics in analysis/compare.h,
 * renderings in report/compare_view.h; this file parses, finds the Runs and
 * decides the exit code. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "common/exit_codes.h"
#include "cli/options.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "report/compare_view.h"
#include "common/fsutil.h"
#include "store/run_lookup.h"

struct compare_opts {
	bool json;
	double fail_pct;
	bool force;
	bool no_html;
	int verbose, quiet;
};

static const struct opt_spec compare_options[] = {
	{"json", 0, OPT_BOOL, offsetof(struct compare_opts, json), NULL,
	 "print the comparison as JSON on stdout (docs/schemas/compare.json)", false},
	{"fail-on-regression", 0, OPT_DOUBLE, offsetof(struct compare_opts, fail_pct), "PCT",
	 "exit 120 when the total or a matched Hotspot is significantly slower by more than "
	 "PCT percent (B/A > 1 + PCT/100)", false},
	{"force", 0, OPT_BOOL, offsetof(struct compare_opts, force), NULL,
	 "compare Runs from different Machines or rank counts anyway (still flagged)", false},
	{"no-html", 0, OPT_BOOL, offsetof(struct compare_opts, no_html), NULL,
	 "do not write report-compare.html into the (last) B Run", false},
	OPT_VERBOSE(struct compare_opts, verbose),
	OPT_QUIET(struct compare_opts, quiet),
};

static const struct verb_spec compare_spec = {
	.name = "compare",
	.usage = "nunatak compare [options] RUN_A RUN_B\n"
		 "       nunatak compare [options] A1 A2 ... -- B1 B2 ...",
	.summary = "Did B (after) get faster or slower than A (before), beyond noise? Hotspots "
		   "are matched by module basename + function, regions by call path, ranks by "
		   "number. For each: time per Run in A and B (samples x period), the ratio B/A "
		   "with its 95% interval (one Run per side: from the Poisson sample counts, "
		   "sampling error only; repeated Runs: from their spread), significant when the "
		   "interval clears 1 by more than 5%. Runs from different Machines, rank counts "
		   "or time bases are refused. A Run is a path or a name under runs_dir (the "
		   "newest Run of that name). Writes report-compare.html into the (last) B Run.",
	.opts = compare_options,
	.nr_opts = OPTS_NR(compare_options),
	.max_pos = -1,
	.epilog = "exit codes: 0; 120 (--fail-on-regression) a significant slowdown above PCT; "
		  "125 usage error, a Run that cannot be read, or Runs that are not comparable.\n"
		  "example: nunatak compare --fail-on-regression 5 base1 base2 base3 -- new1 new2 "
		  "new3\n",
};

/* Parses argv before `--` (A's Runs and options) and after it (B's Runs and
 * options, so `compare A -- B --json` works as typed); without `--`, the two
 * positionals are A and B. Returns opts_parse's value (1: --help). */
static int parse_sides(int argc, char **argv, struct compare_opts *o, struct opts_rest *ra,
		       struct opts_rest *rb, struct err *e)
{
	int dd = 1;
	while (dd < argc && strcmp(argv[dd], "--") != 0)
		dd++;
	int rc = opts_parse(&compare_spec, dd, argv, o, ra, e);
	if (rc != 0 || dd == argc) {
		if (rc == 0 && ra->nr_pos != 2)
			rc = err_set(e, -EINVAL, ERR_USAGE, "compare takes two Runs (A B), or A1 A2 "
					    "... -- B1 B2 ...; see `nunatak compare --help`");
		return rc;
	}
	char **rest = xcalloc((size_t)(argc - dd) + 1, sizeof(*rest));
	if (!rest)
		return err_oom(e);
	rest[0] = argv[0];
	memcpy(rest + 1, argv + dd + 1, (size_t)(argc - dd - 1) * sizeof(*rest));
	rc = opts_parse(&compare_spec, argc - dd, rest, o, rb, e);
	xfree(rest);
	if (rc == 0 && (!ra->nr_pos || !rb->nr_pos))
		rc = err_set(e, -EINVAL, ERR_USAGE, "compare needs at least one Run on each side of "
				    "`--`; see `nunatak compare --help`");
	if (rc == 0 && rb->saw_dashdash)
		rc = err_set(e, -EINVAL, ERR_USAGE, "one `--` only: A1 A2 ... -- B1 B2 ...");
	return rc;
}

/* Looks every Run up under runs_dir: paths[0..na) then paths[na..na+nb). */
static int find_runs(const struct opts_rest *ra, const struct opts_rest *rb, char ***paths,
		     size_t *na, size_t *nb, struct err *e)
{
	bool split = rb->nr_pos > 0;
	*na = split ? ra->nr_pos : 1;
	*nb = split ? rb->nr_pos : 1;
	struct config cfg;
	int rc = config__load(&cfg, NULL, e);
	const char *runs_dir = rc == 0 && cfg.runs_dir ? cfg.runs_dir : ".nunatak";
	*paths = xcalloc(*na + *nb + 1, sizeof(**paths));
	if (!*paths && rc == 0)
		rc = err_oom(e);
	for (size_t i = 0; rc == 0 && i < *na + *nb; i++) {
		const char *arg = !split || i < *na ? ra->pos[i] : rb->pos[i - *na];
		rc = run_lookup(runs_dir, arg, &(*paths)[i], e);
	}
	config__release(&cfg);
	return rc;
}

static bool stdout_color(void)
{
	const char *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(term && strcmp(term, "dumb") == 0) && !getenv("NO_COLOR");
}

static void write_page(const json_t *doc, const struct compare_input *in, struct console *con)
{
	struct err e = {0};
	char *path = fs_join(in->runs[in->na + in->nb - 1].dir, COMPARE_HTML_FILE);
	if (path && compare_html_write(doc, path, &e) == 0)
		console__info(con, "Report: %s", path);
	else
		console__warn(con, "no comparison page: %s", e.msg[0] ? e.msg : "out of memory");
	xfree(path);
}

static int output(const struct compare_opts *o, const struct compare_result *r,
		  const struct compare_input *in, struct console *con)
{
	double pct = o->fail_pct;
	int code = r->refused ? EXIT_FAILURE_BEFORE_LAUNCH
		   : isfinite(pct) && compare_regressions(r, pct) ? EXIT_REGRESSION : EXIT_OK;
	json_t *doc = compare_to_json(r, in, pct, code);
	if (!doc) {
		struct err e = {0};
		err_oom(&e);
		return cli_fail(con, o->json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
	}
	if (r->refused) {
		for (size_t i = 0; i < r->nr_notes; i++)
			if (r->notes[i].refusal && !r->notes[i].forced) {
				json_t *n = json_array_get(json_object_get(doc, "notes"), i);
				const char *msg = json_string_value(json_object_get(n, "message"));
				console__error(con, "not comparable: %s", msg ? msg : "?");
				const char *ecode = json_string_value(json_object_get(n, "code"));
				if (!json_object_get(doc, "error"))
					cli_add_error(doc, ecode ? ecode : "?", msg ? msg : "?");
			}
	} else if (!o->no_html) {
		write_page(doc, in, con);
	}
	if (o->json) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
		fputc('\n', stdout);
	} else if (!r->refused) {
		struct text_lines t = {0};
		if (compare_render_table(r, in, stdout_color(), pct, &t) == 0)
			for (size_t i = 0; i < t.n; i++)
				printf("%s\n", t.v[i]);
		text_lines__release(&t);
	}
	json_decref(doc);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = {.fail_pct = NAN};
	struct opts_rest ra = {0}, rb = {0};
	struct err e = {0};
	struct console con;
	struct compare_input in = {0};
	struct compare_result r = {0};
	char **paths = NULL;
	size_t na = 0, nb = 0;
	int rc = parse_sides(argc, argv, &o, &ra, &rb, &e);
	console__init(&con, stderr, cli_console_level(o.verbose, o.quiet));
	if (rc == 1) {
		rc = 0;
		goto out;
	}
	if (rc == 0 && isfinite(o.fail_pct) && o.fail_pct < 0)
		rc = err_set(&e, -EINVAL, ERR_USAGE, "--fail-on-regression expects a percentage >= 0 "
				   "(10 means B/A above 1.10)");
	if (rc == 0)
		rc = find_runs(&ra, &rb, &paths, &na, &nb, &e);
	if (rc < 0) {
		rc = cli_fail(&con, o.json || opts_flag_given(argc, argv, "json"), &e,
			      EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	if (compare_input__load(&in, (const char *const *)paths, na,
				(const char *const *)paths + na, nb, &e) < 0) {
		rc = cli_fail(&con, o.json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	if (compare_runs(in.cr, na, in.cr + na, nb, o.force, &r) < 0) {
		err_oom(&e);
		rc = cli_fail(&con, o.json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	rc = output(&o, &r, &in, &con);
out:
	compare_result__release(&r);
	compare_input__release(&in);
	for (size_t i = 0; paths && i < na + nb; i++)
		xfree(paths[i]);
	xfree(paths);
	opts__release(&compare_spec, &o);
	opts_rest__release(&ra);
	opts_rest__release(&rb);
	return rc;
}
