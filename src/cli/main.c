// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "build_config.h"
#include "cli/commands.h"
#include "cli/docs_path.h"
#include "common/exit_codes.h"
#include "common/alloc.h"

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	bool hidden;
};

/* The one dispatch table: exact matches only, no prefix abbreviations. */
static const struct verb verbs[] = {
	{"help", cmd_help, "show help for nunatak or one verb", false},
	{"run", cmd_run, "run a command under measurement and write a Run", false},
	{"doctor", cmd_doctor, "check what this machine can measure, with remedies", false},
	{"report", cmd_report, "show the summary or report payload of a Run", false},
	{"calibrate", cmd_calibrate, "measure this Machine's Ceilings (cached per Machine)", false},
	{"compare", cmd_compare, "did B get faster or slower than A, beyond noise", false},
	{"regions", cmd_regions, "region traces: inspect, tree, export, convert, lines, plot", false},
	{"rank-shim", cmd_rank_shim, "collect inside one MPI rank (run rewrites launches to it)", true},
	{"fg-exec", cmd_fg_exec, "run the application in nunatak's process group (under perf)", true},
};

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 31 || lb > 31)
		return 99;
	size_t d[32][32];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
	return d[la][lb];
}

static void usage(FILE *f)
{
	fprintf(f, "usage: nunatak <verb> [options]\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!verbs[i].hidden)
			fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\n`nunatak <verb> --help` or `nunatak help <verb>` for a verb's options.\n");
	cli_print_docs_line(f, "README.md");
}

int cmd_help(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") != 0) {
		const struct verb *v = find_verb(argv[1]);
		if (v && v->fn != cmd_help) {
			/* `help regions inspect`: the sub-verb's help, not the group's */
			bool nested = argc > 2 && strcmp(argv[1], "regions") == 0;
			char *sub[] = {argv[1], nested ? argv[2] : (char *)"--help", (char *)"--help",
				       NULL};
			return v->fn(nested ? 3 : 2, sub);
		}
		if (!v) {
			fprintf(stderr, "error: unknown verb '%s'; see `nunatak help`\n", argv[1]);
			return EXIT_USAGE;
		}
	}
	usage(stdout);
	return 0;
}

static int finish(int rc)
{
	/* A full disk or closed pipe on stdout must not pass silently; fclose
	 * reports what fflush cannot (an NFS or FUSE file's error at close). */
	bool bad = fflush(stdout) != 0 || ferror(stdout);
	bad = fclose(stdout) != 0 || bad;
	if (bad) {
		fprintf(stderr, "error: could not write to standard output\n");
		return rc ? rc : EXIT_FAILURE_BEFORE_LAUNCH;
	}
	return rc;
}

/* A standard descriptor the caller closed (`nunatak run -- app >&-`) keeps
 * its number held by /dev/null, close-on-exec: otherwise the first file
 * nunatak opens becomes its "stdout", a stray write lands in that file and
 * the final fclose closes it (or fails, at random, when nothing holds fd 1:
 * exit 125 instead of the application's status). Every program nunatak
 * execs, the application included, still finds it closed. */
static void hold_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int n = open("/dev/null", (fd ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
		if (n >= 0 && n != fd) { /* a lower one was free: cannot happen in order */
			(void)dup3(n, fd, O_CLOEXEC);
			close(n);
		}
	}
}

int main(int argc, char **argv)
{
	hold_closed_std_fds();
	alloc_fault_init();
	const char *self = strrchr(argv[0], '/');
	self = self ? self + 1 : argv[0];
	if (strcmp(self, "scope-profiler") == 0) {
		/* `scope-profiler <verb>` is `nunatak regions <verb>`. */
		const struct verb *v = find_verb("regions");
		if (v)
			return finish(v->fn(argc, argv));
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("nunatak %s\n", NUNATAK_VERSION);
		return finish(0);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return finish(0);
	}
	const struct verb *v = find_verb(argv[1]);
	if (!v) {
		const struct verb *best = NULL;
		size_t best_d = 99;
		for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
			size_t d = edit_distance(argv[1], verbs[i].name);
			if (!verbs[i].hidden && d < best_d) {
				best_d = d;
				best = &verbs[i];
			}
		}
		fprintf(stderr, "error: unknown verb '%s'", argv[1]);
		if (best && best_d <= 3)
			fprintf(stderr, "; did you mean `nunatak %s`?", best->name);
		fprintf(stderr, "\n(`nunatak help` lists the verbs)\n");
		return EXIT_USAGE;
	}
	return finish(v->fn(argc - 1, argv + 1));
}
