// SPDX-License-Identifier: BSD-3-Clause
#include "cli/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/docs_path.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

static const char *prog_of(const struct verb_spec *spec)
{
	return spec->prog ? spec->prog : "nunatak";
}

static bool takes_value(enum opt_type t)
{
	return t == OPT_STRING || t == OPT_INT || t == OPT_DOUBLE || t == OPT_STRING_LIST;
}

static int usage_err(const struct verb_spec *spec, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage_err(const struct verb_spec *spec, struct err *e, const char *fmt, ...)
{
	char head[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	return err_set(e, -EINVAL, ERR_USAGE, "%s for `%s %s`; see `%s %s --help`", head,
		       prog_of(spec), spec->name, prog_of(spec), spec->name);
}

static const struct opt_spec *find_long(const struct verb_spec *spec, const char *name,
					size_t len)
{
	for (size_t i = 0; i < spec->nr_opts; i++) {
		const char *ln = spec->opts[i].long_name;
		if (ln && strlen(ln) == len && strncmp(ln, name, len) == 0)
			return &spec->opts[i];
	}
	return NULL;
}

static size_t edit_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b), row[32];
	if (la > 31 || lb > 31)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* A visible option within two edits of a mistyped one, for "did you mean". */
static const struct opt_spec *nearest_long(const struct verb_spec *spec, const char *name,
					   size_t len)
{
	const struct opt_spec *best = NULL;
	size_t best_d = 3;
	for (size_t i = 0; i < spec->nr_opts; i++) {
		if (spec->opts[i].hidden || !spec->opts[i].long_name)
			continue;
		const char *l = spec->opts[i].long_name;
		size_t ll = strlen(l);
		size_t d = edit_distance(name, len, l);
		/* one spelled out or cut short (--frequency for --freq, --verb for
		 * --verbose): as near as a typo */
		if (d >= best_d && ll >= 3 && len >= 3 &&
		    (strncmp(name, l, ll < len ? ll : len) == 0))
			d = 2;
		if (d < best_d) {
			best_d = d;
			best = &spec->opts[i];
		}
	}
	return best;
}

static const struct opt_spec *find_short(const struct verb_spec *spec, char c)
{
	for (size_t i = 0; i < spec->nr_opts; i++)
		if (spec->opts[i].short_name && spec->opts[i].short_name == c)
			return &spec->opts[i];
	return NULL;
}

static int store_value(const struct verb_spec *spec, const struct opt_spec *o, void *opts,
		       const char *val, struct err *e)
{
	char *field = (char *)opts + o->offset;
	char *end = NULL;
	switch (o->type) {
	case OPT_STRING:
		*(const char **)(void *)field = val;
		return 0;
	case OPT_STRING_LIST: {
		struct opt_strlist *l = (struct opt_strlist *)(void *)field;
		void *v = (void *)l->v;
		if (xgrow(&v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory parsing options");
		l->v = v;
		l->v[l->n++] = val;
		return 0;
	}
	case OPT_INT: {
		errno = 0;
		long n = strtol(val, &end, 10);
		if (errno || end == val || *end || n < INT_MIN || n > INT_MAX)
			break;
		*(int *)(void *)field = (int)n;
		return 0;
	}
	case OPT_DOUBLE: {
		errno = 0;
		double d = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(d))
			break;
		*(double *)(void *)field = d;
		return 0;
	}
	default:
		return err_set(e, -EINVAL, ERR_USAGE, "internal: option --%s takes no value",
			       o->long_name);
	}
	char what[128];
	snprintf(what, sizeof(what), "--%.40s expects %s, got '%.40s'", o->long_name,
		 o->type == OPT_INT ? "an integer" : "a number", val);
	return usage_err(spec, e, "%s", what);
}

static void store_flag(const struct opt_spec *o, void *opts)
{
	char *field = (char *)opts + o->offset;
	if (o->type == OPT_BOOL)
		*(bool *)(void *)field = true;
	else
		(*(int *)(void *)field)++;
}

/* The argument after argv[i] can be an option's value. `--` never is: it
 * starts the command, so `run --name -- ./app` is a missing name, not a Run
 * called "--" followed by a stray `./app`. */
static bool has_value_arg(int argc, char **argv, int i)
{
	return i + 1 < argc && strcmp(argv[i + 1], "--") != 0;
}

/* `--name`, `--name=value` or `--name value`; *i is advanced past a consumed value. */
static int parse_long(const struct verb_spec *spec, int argc, char **argv, int *i, void *opts,
		      struct err *e)
{
	const char *arg = argv[*i] + 2;
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct opt_spec *o = find_long(spec, arg, len);
	char what[96];
	snprintf(what, sizeof(what), "--%.*s", (int)(len > 60 ? 60 : len), arg);
	if (!o) {
		const struct opt_spec *near = nearest_long(spec, arg, len);
		if (near)
			return err_set(e, -EINVAL, ERR_USAGE,
				       "unknown option %s for `%s %s` (did you mean --%s?); see "
				       "`%s %s --help`", what, prog_of(spec), spec->name,
				       near->long_name, prog_of(spec), spec->name);
		return usage_err(spec, e, "unknown option %s", what);
	}
	if (!takes_value(o->type)) {
		if (eq)
			return usage_err(spec, e, "option %s takes no value", what);
		store_flag(o, opts);
		return 0;
	}
	if (eq)
		return store_value(spec, o, opts, eq + 1, e);
	if (!has_value_arg(argc, argv, *i))
		return usage_err(spec, e, "option %s expects a value", what);
	return store_value(spec, o, opts, argv[++*i], e);
}

/* `-v`, `-vv`, `-o value`, `-ovalue`: flags bundle; a valued short ends the group. */
static int parse_short(const struct verb_spec *spec, int argc, char **argv, int *i, void *opts,
		       struct err *e)
{
	const char *arg = argv[*i];
	for (size_t k = 1; arg[k]; k++) {
		const struct opt_spec *o = find_short(spec, arg[k]);
		char what[8] = {'-', arg[k], 0};
		if (!o)
			return usage_err(spec, e, "unknown option %s", what);
		if (!takes_value(o->type)) {
			store_flag(o, opts);
			continue;
		}
		if (arg[k + 1])
			return store_value(spec, o, opts, arg + k + 1, e);
		if (!has_value_arg(argc, argv, *i))
			return usage_err(spec, e, "option %s expects a value", what);
		return store_value(spec, o, opts, argv[++*i], e);
	}
	return 0;
}

static int add_positional(const struct verb_spec *spec, struct opts_rest *rest, const char *arg,
			  struct err *e)
{
	if (spec->max_pos >= 0 && rest->nr_pos >= (size_t)spec->max_pos) {
		char what[96];
		snprintf(what, sizeof(what), "unexpected argument '%.60s'", arg);
		if (spec->max_pos == 0 && arg[0] != '-')
			strncat(what, " (a command goes after `--`)", sizeof(what) - strlen(what) - 1);
		return usage_err(spec, e, "%s", what);
	}
	size_t cap = rest->nr_pos; /* exact-size growth keeps the struct small */
	void *p = (void *)rest->pos;
	if (xgrow(&p, &cap, rest->nr_pos + 1, sizeof(*rest->pos)) < 0)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory parsing options");
	rest->pos = p;
	rest->pos[rest->nr_pos++] = arg;
	return 0;
}

static bool is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int opts_parse(const struct verb_spec *spec, int argc, char **argv, void *opts,
	       struct opts_rest *rest, struct err *e)
{
	memset(rest, 0, sizeof(*rest));
	/* --help wins over any usage error elsewhere on the line, as users expect. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i])) {
			opts_print_help(spec, stdout);
			return 1;
		}
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc = 0;
		if (strcmp(arg, "--") == 0) {
			rest->saw_dashdash = true;
			rest->cmd_argc = argc - i - 1;
			rest->cmd_argv = argv + i + 1;
			break;
		}
		if (arg[0] == '-' && arg[1] == '-')
			rc = parse_long(spec, argc, argv, &i, opts, e);
		else if (arg[0] == '-' && arg[1])
			rc = parse_short(spec, argc, argv, &i, opts, e);
		else
			rc = add_positional(spec, rest, arg, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

bool opts_flag_given(int argc, char **argv, const char *long_name)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (argv[i][0] == '-' && argv[i][1] == '-' && strcmp(argv[i] + 2, long_name) == 0)
			return true;
	return false;
}

#define HELP_WIDTH 79
#define HELP_COLUMN 30

/* Writes text word-wrapped to HELP_WIDTH, continuation lines indented by
 * `indent`; `col` is the column the cursor is at. Explicit newlines are kept. */
static void print_wrapped(FILE *f, const char *text, int indent, int col)
{
	const char *p = text;
	while (*p) {
		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			p++;
			continue;
		}
		size_t word = strcspn(p, " \n");
		if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, word, f);
		col += (int)word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void print_option(FILE *f, const struct opt_spec *o)
{
	char left[96];
	int n = 0;
	if (o->short_name)
		n = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name, o->long_name);
	else
		n = snprintf(left, sizeof(left), "      --%s", o->long_name);
	if (takes_value(o->type) && n > 0 && (size_t)n < sizeof(left))
		snprintf(left + n, sizeof(left) - (size_t)n, " %s", o->metavar ? o->metavar : "VALUE");
	if (strlen(left) > HELP_COLUMN - 2)
		fprintf(f, "%s\n%*s", left, HELP_COLUMN, "");
	else
		fprintf(f, "%-*s", HELP_COLUMN, left);
	print_wrapped(f, o->help ? o->help : "", HELP_COLUMN, HELP_COLUMN);
}

void opts_print_help(const struct verb_spec *spec, FILE *f)
{
	if (spec->usage)
		fprintf(f, "usage: %s\n", spec->usage);
	else
		fprintf(f, "usage: %s %s [options]\n", prog_of(spec), spec->name);
	if (spec->summary) {
		fputc('\n', f);
		print_wrapped(f, spec->summary, 0, 0);
	}
	fprintf(f, "\noptions:\n");
	for (size_t i = 0; i < spec->nr_opts; i++)
		if (!spec->opts[i].hidden)
			print_option(f, &spec->opts[i]);
	fprintf(f, "%-*s%s\n", HELP_COLUMN, "  -h, --help", "show this help and exit");
	if (spec->epilog) {
		fputc('\n', f);
		print_wrapped(f, spec->epilog, 0, 0);
	}
	/* The verb's page: docs/cli/<verb>.md (a sub-verb's is its group's). */
	char page[64];
	size_t word = strcspn(spec->name, " ");
	snprintf(page, sizeof(page), "docs/cli/%.*s.md", (int)(word < 40 ? word : 40), spec->name);
	fputc('\n', f);
	cli_print_docs_line(f, page);
}

void opts__release(const struct verb_spec *spec, void *opts)
{
	if (!opts)
		return;
	for (size_t i = 0; i < spec->nr_opts; i++) {
		if (spec->opts[i].type != OPT_STRING_LIST)
			continue;
		struct opt_strlist *l = (struct opt_strlist *)(void *)((char *)opts + spec->opts[i].offset);
		xfree((void *)l->v);
		memset(l, 0, sizeof(*l));
	}
}

void opts_rest__release(struct opts_rest *rest)
{
	if (!rest)
		return;
	xfree((void *)rest->pos);
	memset(rest, 0, sizeof(*rest));
}
