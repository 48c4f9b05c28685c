// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak doctor [--json] [-- <command>]`: what this machine can measure,
 * each capability ok / warning / missing with its remedy. Always exits 0:
 * a missing capability is an answer, not a failure. */
#include <jansson.h>
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
#include "doctor/doctor.h"
#include "exec/exec.h"

struct doctor_opts {
	bool json;
	int verbose, quiet;
	const char *replay;
};

static const struct opt_spec doctor_options[] = {
	{"json", 0, OPT_BOOL, offsetof(struct doctor_opts, json), NULL,
	 "print {\"checks\":[...],\"degradations\":[...]} on stdout instead of the table", false},
	OPT_VERBOSE(struct doctor_opts, verbose),
	OPT_QUIET(struct doctor_opts, quiet),
	{"replay", 0, OPT_STRING, offsetof(struct doctor_opts, replay), "ENTRY",
	 "answer from a recorded corpus entry instead of this machine", true},
};

static const struct verb_spec doctor_spec = {
	.name = "doctor",
	.usage = "nunatak doctor [--json] [-- <command...>]",
	.summary = "Check what this machine can measure: the CPU collector (perf) and its "
		   "permissions, hardware counters, the symbolizer (LLVM or GNU addr2line), "
		   "compiler, MPI launcher, HDF5, the preload sampler and debuginfod. With a "
		   "command, also the target binary (launchers seen through) and the "
		   "attribution level its sections allow. Each line is `status name detail`, "
		   "then `-> remedy` for what is not ok.",
	.opts = doctor_options,
	.nr_opts = OPTS_NR(doctor_options),
	.max_pos = 0,
	.epilog = "exit codes: always 0 (125 only for a usage error).\n"
		  "example: nunatak doctor -- mpirun -n 8 ./solver",
};

/* The configuration is itself a check: a broken nunatak.toml must not hide
 * the rest of the report, and its unknown keys are worth a look. */
static int add_config_check(struct doctor_report *r, const struct config *cfg, int load_rc,
			    const struct err *e)
{
	if (load_rc < 0)
		return doctor_report__add(r, "configuration", DOCTOR_MISSING, e->msg,
					  "fix the file; defaults are used meanwhile", NULL, NULL);
	char *detail = xasprintf("site: %s; project: %s%s", cfg->site_path ? cfg->site_path : "none",
				 cfg->project_path ? cfg->project_path : "none",
				 cfg->nr_warnings ? "; something ignored (see warnings)" : "");
	int rc = detail ? doctor_report__add(r, "configuration",
					     cfg->nr_warnings ? DOCTOR_WARNING : DOCTOR_OK, detail,
					     cfg->nr_warnings ? cfg->warnings[0] : NULL, NULL, NULL)
			: -1;
	xfree(detail);
	return rc;
}

/* Colour only on a terminal, never with NO_COLOR or TERM=dumb (same rule as the console). */
static bool stdout_color(void)
{
	const char *term = getenv("TERM"), *no_color = getenv("NO_COLOR");
	return isatty(STDOUT_FILENO) && !(term && strcmp(term, "dumb") == 0) &&
	       !(no_color && no_color[0]);
}

static void print_table(const struct doctor_report *r)
{
	static const char *const colors[] = {"\033[32m", "\033[33m", "\033[31m"};
	bool color = stdout_color();
	for (size_t i = 0; i < r->n; i++) {
		const struct doctor_check *c = &r->v[i];
		const char *st = doctor_status__name(c->status);
		if (color)
			printf("%s%-8s\033[0m %-18s %s\n", colors[c->status], st, c->name, c->detail);
		else
			printf("%-8s %-18s %s\n", st, c->name, c->detail);
		if (c->remedy && c->status != DOCTOR_OK)
			printf("%-8s -> %s\n", "", c->remedy);
	}
	if (r->degradations.n)
		printf("\n%zu degradation(s) a run would announce:\n", r->degradations.n);
	for (size_t i = 0; i < r->degradations.n; i++)
		printf("  [%s] %s\n", r->degradations.v[i].name, r->degradations.v[i].message);
}

static int print_json(const struct doctor_report *r)
{
	json_t *j = doctor_report__json(r);
	return j ? cli_print_json(j) : -1;
}

static int doctor(const struct doctor_opts *o, const struct opts_rest *rest, struct console *con)
{
	struct config cfg;
	struct doctor_report r = {0};
	struct err e = {0}, ce = {0};
	struct executor *x = o->replay ? executor__new_replay(o->replay, &e) : executor__new_real();
	int rc = 0;
	if (!x) {
		rc = cli_fail(con, o->json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
		goto out;
	}
	int load_rc = config__load(&cfg, NULL, &ce);
	for (size_t i = 0; i < cfg.nr_warnings; i++)
		console__warn(con, "%s", cfg.warnings[i]);
	if (load_rc < 0) {
		console__warn(con, "%s (doctor continues with defaults)", ce.msg);
		config__release(&cfg);
		config__init(&cfg);
	}
	const char *const *app = rest->cmd_argc > 0 ? (const char *const *)rest->cmd_argv : NULL;
	if (doctor_full(x, &cfg, app, &r, &e) < 0 || add_config_check(&r, &cfg, load_rc, &ce) < 0) {
		rc = cli_fail(con, o->json, &e, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
	} else if (o->json) {
		rc = print_json(&r) < 0 ? EXIT_FAILURE_BEFORE_LAUNCH : 0;
	} else {
		print_table(&r);
	}
	config__release(&cfg);
out:
	doctor_report__release(&r);
	executor__free(x);
	return rc;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_opts o = {0};
	struct opts_rest rest = {0};
	struct err e = {0};
	struct console con;
	int rc = opts_parse(&doctor_spec, argc, argv, &o, &rest, &e);
	console__init(&con, stderr, cli_console_level(o.verbose, o.quiet));
	if (rc == 1) {
		rc = 0;
	} else if (rc < 0) {
		rc = cli_fail(&con, opts_flag_given(argc, argv, "json"), &e, EXIT_USAGE, NULL);
	} else {
		rc = doctor(&o, &rest, &con);
	}
	opts__release(&doctor_spec, &o);
	opts_rest__release(&rest);
	return rc;
}
