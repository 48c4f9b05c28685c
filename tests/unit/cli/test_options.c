// SPDX-License-Identifier: BSD-3-Clause
/* cli/ sources live in the executable, not nunatak_core: compile the parser in. */
#include "cli/options.c"
#include "cli/docs_path.c"

#include <fcntl.h>

#include "harness.h"

struct t_opts {
	const char *output;
	bool json;
	int verbose;
	int nr;
	double freq;
	struct opt_strlist maps;
	const char *record;
};

static const struct opt_spec t_options[] = {
	{"output", 'o', OPT_STRING, offsetof(struct t_opts, output), "DIR", "write the Run to DIR",
	 false},
	{"json", 0, OPT_BOOL, offsetof(struct t_opts, json), NULL, "print JSON only", false},
	{"verbose", 'v', OPT_COUNT, offsetof(struct t_opts, verbose), NULL, "more detail", false},
	{"ranks", 'n', OPT_INT, offsetof(struct t_opts, nr), "N", "number of ranks", false},
	{"frequency", 0, OPT_DOUBLE, offsetof(struct t_opts, freq), "HZ", "sampling rate", false},
	{"source-map", 0, OPT_STRING_LIST, offsetof(struct t_opts, maps), "OLD=NEW",
	 "rewrite a source prefix (repeatable)", false},
	{"record", 0, OPT_STRING, offsetof(struct t_opts, record), "ENTRY", "record", true},
};

static const struct verb_spec t_spec = {
	.name = "run",
	.usage = "nunatak run [options] -- <command...>",
	.summary = "Run a command under measurement.",
	.opts = t_options,
	.nr_opts = OPTS_NR(t_options),
	.max_pos = 1,
};

static int parse(const char **argv, struct t_opts *o, struct opts_rest *r, struct err *e)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	memset(o, 0, sizeof(*o));
	return opts_parse(&t_spec, argc, (char **)argv, o, r, e);
}

static void t_forms(void)
{
	const char *argv[] = {"run", "--output=/tmp/x", "--json", "-v", "-vv", "-n", "4", "--frequency",
			"99.5", "--source-map", "a=b", "--source-map=c=d", "pos", "--record", "E",
			NULL};
	struct t_opts o;
	struct opts_rest r;
	struct err e = {0};
	CHECK_INT(parse(argv, &o, &r, &e), 0);
	CHECK_STR(o.output, "/tmp/x");
	CHECK(o.json);
	CHECK_INT(o.verbose, 3);
	CHECK_INT(o.nr, 4);
	CHECK_NEAR(o.freq, 99.5, 1e-12);
	CHECK_INT(o.maps.n, 2);
	CHECK_STR(o.maps.v[0], "a=b");
	CHECK_STR(o.maps.v[1], "c=d");
	CHECK_STR(o.record, "E");
	CHECK_INT(r.nr_pos, 1);
	CHECK_STR(r.pos[0], "pos");
	CHECK_INT(r.cmd_argc, 0);
	CHECK(!r.saw_dashdash);
	opts__release(&t_spec, &o);
	CHECK(o.maps.v == NULL);
	opts_rest__release(&r);
}

static void t_short_attached_and_dashdash(void)
{
	const char *argv[] = {"run", "-o/out", "-n7", "--", "mpirun", "-n", "2", "--json", "--", NULL};
	struct t_opts o;
	struct opts_rest r;
	struct err e = {0};
	CHECK_INT(parse(argv, &o, &r, &e), 0);
	CHECK_STR(o.output, "/out");
	CHECK_INT(o.nr, 7);
	CHECK(!o.json); /* after `--` everything belongs to the command */
	CHECK(r.saw_dashdash);
	CHECK_INT(r.cmd_argc, 5);
	CHECK_STR(r.cmd_argv[0], "mpirun");
	CHECK_STR(r.cmd_argv[4], "--");
	CHECK(r.cmd_argv[5] == NULL);
	opts_rest__release(&r);
}

static void t_usage_errors(void)
{
	struct t_opts o;
	struct opts_rest r;
	struct err e = {0};
	const char *a1[] = {"run", "--x", NULL};
	CHECK(parse(a1, &o, &r, &e) < 0);
	CHECK_STR(e.code, "usage");
	CHECK_STR(e.msg, "unknown option --x for `nunatak run`; see `nunatak run --help`");
	const char *a1b[] = {"run", "--ouput", "x", NULL};
	CHECK(parse(a1b, &o, &r, &e) < 0);
	CHECK_STR(e.msg, "unknown option --ouput for `nunatak run` (did you mean --output?); see "
			 "`nunatak run --help`");
	const char *a1d[] = {"run", "--frequency-hz", "9", NULL}; /* spelled out further */
	CHECK(parse(a1d, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "(did you mean --frequency?)") != NULL);
	const char *a1e[] = {"run", "--verb", NULL}; /* cut short */
	CHECK(parse(a1e, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "(did you mean --verbose?)") != NULL);
	const char *a1c[] = {"run", "--recod", "x", NULL}; /* hidden options are not suggested */
	CHECK(parse(a1c, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "did you mean") == NULL);
	const char *a2[] = {"run", "-q", NULL};
	CHECK(parse(a2, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "unknown option -q for `nunatak run`") != NULL);
	const char *a3[] = {"run", "--ranks", "four", NULL};
	CHECK(parse(a3, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "--ranks expects an integer, got 'four'") != NULL);
	const char *a4[] = {"run", "--output", NULL};
	CHECK(parse(a4, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "option --output expects a value") != NULL);
	const char *a5[] = {"run", "--json=yes", NULL};
	CHECK(parse(a5, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "--json takes no value") != NULL);
	const char *a6[] = {"run", "p1", "p2", NULL};
	CHECK(parse(a6, &o, &r, &e) < 0);
	CHECK(strstr(e.msg, "unexpected argument 'p2'") != NULL);
	opts_rest__release(&r);
	const char *a7[] = {"run", "--frequency", "inf", NULL};
	CHECK(parse(a7, &o, &r, &e) < 0);
	const char *a8[] = {"run", "--ranks", "99999999999", NULL};
	CHECK(parse(a8, &o, &r, &e) < 0);
	const char *a9[] = {"run", "--ranks", "-3", NULL}; /* a negative value is a value */
	CHECK_INT(parse(a9, &o, &r, &e), 0);
	CHECK_INT(o.nr, -3);
}

/* Captures what opts_parse prints on stdout for --help. */
static char *help_text(const char **argv, int *rc)
{
	char path[] = "/tmp/nunatak-opts-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	fflush(stdout);
	int saved = dup(1);
	dup2(fd, 1);
	struct t_opts o;
	struct opts_rest r;
	struct err e = {0};
	*rc = parse(argv, &o, &r, &e);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	static char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	CHECK(n > 0);
	buf[n] = 0;
	close(fd);
	unlink(path);
	return buf;
}

static void t_help(void)
{
	const char *argv[] = {"run", "--bogus", "--help", NULL}; /* --help wins over errors */
	int rc = 0;
	char *h = help_text(argv, &rc);
	CHECK_INT(rc, 1);
	CHECK(strncmp(h, "usage: nunatak run [options] -- <command...>\n", 45) == 0);
	CHECK(strstr(h, "Run a command under measurement.") != NULL);
	CHECK(strstr(h, "  -o, --output DIR") != NULL);
	CHECK(strstr(h, "      --json ") != NULL);
	CHECK(strstr(h, "--source-map OLD=NEW") != NULL);
	CHECK(strstr(h, "  -h, --help") != NULL);
	CHECK(strstr(h, "--record") == NULL); /* hidden */
	const char *argv2[] = {"run", "-h", NULL};
	h = help_text(argv2, &rc);
	CHECK_INT(rc, 1);
	const char *argv3[] = {"run", "--", "prog", "--help", NULL}; /* the command's own --help */
	struct t_opts o;
	struct opts_rest r;
	struct err e = {0};
	CHECK_INT(parse(argv3, &o, &r, &e), 0);
	CHECK_INT(r.cmd_argc, 2);
}

static void t_alloc_failure(void)
{
	setenv("NUNATAK_FAIL_ALLOC", "1", 1);
	alloc_fault_init();
	const char *argv[] = {"run", "--source-map", "a=b", NULL};
	struct t_opts o;
	struct opts_rest r;
	struct err e = {0};
	CHECK(parse(argv, &o, &r, &e) == -ENOMEM);
	CHECK_STR(e.code, "oom");
}

static const struct test_case cases[] = {
	{"forms", "long/short/=/count/list/positional forms parse", t_forms},
	{"dashdash", "attached short values; everything after -- is the command",
	 t_short_attached_and_dashdash},
	{"usage_errors", "unknown/malformed options give the documented messages", t_usage_errors},
	{"help", "--help/-h print the table-generated help and return 1", t_help},
	{"alloc_failure", "a failed allocation is reported, not a crash", t_alloc_failure},
};

TEST_MAIN(cases)
