/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared table-driven option parser (STYLE.md §9). Each cmd_<verb>.c
 * declares its options ONCE in a table of struct opt_spec pointing (offsetof)
 * into its own `struct <verb>_opts`; parsing, `--help` text and usage errors
 * are all generated from that table, so there is no hand-written duplicate.
 *
 *   struct run_opts { const char *output; bool json; int verbose;
 *                     struct opt_strlist source_map; };
 *   static const struct opt_spec run_options[] = {
 *       {"output", 'o', OPT_STRING, offsetof(struct run_opts, output), "DIR",
 *        "write the Run to exactly DIR", false},
 *       {"json", 0, OPT_BOOL, offsetof(struct run_opts, json), NULL,
 *        "print only a JSON document on stdout", false},
 *       {"verbose", 'v', OPT_COUNT, offsetof(struct run_opts, verbose), NULL,
 *        "more detail on stderr (repeatable)", false},
 *       {"source-map", 0, OPT_STRING_LIST, offsetof(struct run_opts, source_map),
 *        "OLD=NEW", "rewrite a source path prefix (repeatable)", false},
 *   };
 *   static const struct verb_spec run_spec = {
 *       .name = "run", .usage = "nunatak run [options] -- <command...>",
 *       .summary = "run a command under measurement",
 *       .opts = run_options, .nr_opts = OPTS_NR(run_options), .max_pos = 0};
 *
 *   int cmd_run(int argc, char **argv) {
 *       struct run_opts o = {0};
 *       struct opts_rest rest = {0};
 *       struct err e = {0};
 *       int rc = opts_parse(&run_spec, argc, argv, &o, &rest, &e);
 *       if (rc == 1) { ... release; return 0; }         // --help was printed
 *       if (rc < 0) { console__error(&con, "%s", e.msg); ... return EXIT_USAGE; }
 *       ...
 *       opts__release(&run_spec, &o);
 *       opts_rest__release(&rest);
 *   }
 *
 * Grammar: `--name=value`, `--name value`, `-n value`, `-nvalue`, bundled flag
 * shorts (`-vv`, `-vq`); options and positionals may be intermixed; the first
 * bare `--` ends option parsing and everything after it is the command
 * (rest->cmd_argc/cmd_argv). `-` alone is a positional. `-h`/`--help` prints
 * the help to stdout and returns 1 (the caller then exits 0); this is how
 * `nunatak help <verb>` works, since main.c calls the verb with {verb, "--help"}.
 *
 * Ownership: OPT_STRING values and rest->pos / rest->cmd_argv entries borrow
 * argv (valid for the life of the process). OPT_STRING_LIST arrays are
 * allocated: free them with opts__release(); free rest with
 * opts_rest__release(). Both accept partially filled structs after an error.
 * Not thread-safe only in the sense that it writes the caller's structs.
 */
#ifndef NUNATAK_CLI_OPTIONS_H
#define NUNATAK_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct err;

enum opt_type {
	OPT_BOOL,        /* bool; takes no value */
	OPT_COUNT,       /* int; incremented per occurrence (-v -v, -vv) */
	OPT_STRING,      /* const char *; last occurrence wins */
	OPT_INT,         /* int; decimal, range-checked */
	OPT_DOUBLE,      /* double; finite */
	OPT_STRING_LIST, /* struct opt_strlist; repeatable, order kept */
};

/* Storage for OPT_STRING_LIST: v[0..n) borrow argv; v itself is allocated. */
struct opt_strlist {
	const char **v;
	size_t n;
	size_t cap;
};

struct opt_spec {
	const char *long_name; /* without the leading "--"; required */
	char short_name;       /* 0: none */
	enum opt_type type;
	size_t offset;         /* offsetof(struct <verb>_opts, field) */
	const char *metavar;   /* shown in help for valued options; NULL: "VALUE" */
	const char *help;
	bool hidden;           /* parsed but omitted from --help (e.g. --record) */
};

struct verb_spec {
	const char *name;    /* the verb as typed: "run" (or "regions show") */
	const char *prog;    /* NULL: "nunatak"; "scope-profiler" for its alias */
	const char *usage;   /* "nunatak run [options] -- <command...>" */
	const char *summary; /* one paragraph shown under the usage line */
	const struct opt_spec *opts;
	size_t nr_opts;
	int max_pos;         /* positional arguments accepted: 0 none, -1 unlimited */
	const char *epilog;  /* optional text after the option list (examples), or NULL */
};

#define OPTS_NR(table) (sizeof(table) / sizeof((table)[0]))

struct opts_rest {
	const char **pos; /* positional arguments (allocated array; entries borrow argv) */
	size_t nr_pos;
	int cmd_argc;     /* words after the first `--`; 0 when there was no `--` */
	char **cmd_argv;  /* points into argv (NULL-terminated like argv), or NULL */
	bool saw_dashdash; /* a `--` was present (even with nothing after it) */
};

/*
 * Parses argv[1..argc) (argv[0] is the verb) into *opts as described by spec.
 * Returns 0 on success; 1 when --help/-h was given (help printed on stdout,
 * nothing else parsed: the caller returns 0); a negative value on a usage
 * error, with e filled (code "usage", message naming the option and pointing
 * at `<prog> <verb> --help`): the caller prints it through the console and
 * exits EXIT_USAGE (125). *opts must be zero-initialised (or hold defaults)
 * by the caller; only options present on the command line are written.
 */
int opts_parse(const struct verb_spec *spec, int argc, char **argv, void *opts,
	       struct opts_rest *rest, struct err *e);

/* Whether `--<long_name>` appears before `--`, even if parsing stopped at
 * an earlier error: a usage error under `--json` must still be a JSON
 * document on stdout, whatever the order of the arguments. */
bool opts_flag_given(int argc, char **argv, const char *long_name);

/* Writes the help generated from the table (hidden options omitted). */
void opts_print_help(const struct verb_spec *spec, FILE *f);

/* Frees the OPT_STRING_LIST arrays inside *opts (the strings are borrowed). */
void opts__release(const struct verb_spec *spec, void *opts);
void opts_rest__release(struct opts_rest *rest);

/* The options every verb shares, declared once so they mean the same
 * everywhere: -v more detail (repeatable), -q only errors and degradations on
 * stderr (no progress, notes or warnings); stdout is never affected. */
#define OPT_VERBOSE(type, field) \
	{"verbose", 'v', OPT_COUNT, offsetof(type, field), NULL, \
	 "more detail on stderr (repeatable)", false}
#define OPT_QUIET(type, field) \
	{"quiet", 'q', OPT_COUNT, offsetof(type, field), NULL, \
	 "only errors and degradations on stderr (no progress, notes or warnings)", false}

#endif
