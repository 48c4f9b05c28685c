// SPDX-License-Identifier: BSD-3-Clause
#include "common/config.h"

#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "harness.h"

static char tmpdir[64];

static void write_file(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	xfree(p);
}

static void make_tree(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/nunatak-config-XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	char *sub = xasprintf("%s/proj/src/deep", tmpdir);
	char *cmd = xasprintf("mkdir -p '%s'", sub);
	CHECK(system(cmd) == 0);
	xfree(cmd);
	xfree(sub);
}

static void remove_tree(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	CHECK(system(cmd) == 0);
	xfree(cmd);
}

static void t_defaults(void)
{
	struct config c;
	struct err e = {0};
	setenv("NUNATAK_SITE_CONFIG", "/dev/null", 1);
	CHECK_INT(config__load(&c, "/", &e), 0);
	CHECK(c.name == NULL);
	CHECK_STR(c.runs_dir, ".nunatak");
	CHECK_INT(c.sampling_frequency_hz, 997);
	CHECK_INT(c.rank_threshold, 64);
	CHECK_NEAR(c.fp_threshold, 0.75, 0);
	CHECK(c.debuginfod_enabled);
	CHECK_NEAR(c.debuginfod_timeout_s, 10, 0);
	CHECK_NEAR(c.passes_witness, 0.05, 0);
	CHECK_STR(config__tool(&c, "perf"), "perf");
	CHECK_STR(config__tool(&c, "llvm-symbolizer"), "llvm-symbolizer");
	CHECK_STR(config__tool(&c, "mpicc"), "mpicc");
	CHECK(c.site_path == NULL && c.project_path == NULL);
	config__release(&c);
}

static void t_cascade(void)
{
	make_tree();
	write_file("site.toml", "runs_dir = '/scratch/runs'\n[sampling]\nfrequency = 499\n"
				"rank_threshold = 8\n[tools]\nperf = '/site/perf'\nobjdump = '/site/objdump'\n"
				"[source_map]\n'/a' = '/site-a'\n");
	write_file("proj/nunatak.toml", "name = 'solver'\n[sampling]\nfrequency = 199\n"
					"[tools]\nperf = '/proj/perf'\n[source_map]\n'/b' = '/proj-b'\n"
					"[bogus]\nx = 1\n[stacks]\nfp_thresold = 0.5\n");
	char *site = xasprintf("%s/site.toml", tmpdir);
	setenv("NUNATAK_SITE_CONFIG", site, 1);
	char *cwd = xasprintf("%s/proj/src/deep", tmpdir);
	struct config c;
	struct err e = {0};
	CHECK_INT(config__load(&c, cwd, &e), 0);
	CHECK_STR(c.site_path, site);
	CHECK(c.project_path && strstr(c.project_path, "/proj/nunatak.toml"));
	CHECK_STR(c.name, "solver");
	CHECK_STR(c.runs_dir, "/scratch/runs");       /* site scalar kept */
	CHECK_INT(c.sampling_frequency_hz, 199);      /* project scalar wins */
	CHECK_INT(c.rank_threshold, 8);
	CHECK_STR(config__tool(&c, "perf"), "/proj/perf");
	CHECK_STR(config__tool(&c, "objdump"), "/site/objdump"); /* tools merged */
	CHECK_INT(c.source_map.n, 2);                 /* source_map merged */
	CHECK_INT(c.nr_warnings, 2);
	CHECK(strstr(c.warnings[0], "unknown table [bogus]"));
	CHECK(strstr(c.warnings[1], "unknown key 'stacks.fp_thresold'"));
	/* Flags layer. */
	CHECK_INT(config__set(&c, "sampling.frequency", "97", &e), 0);
	CHECK_INT(config__set(&c, "tools.perf", "/flag/perf", &e), 0);
	CHECK_INT(config__set(&c, "name", "flagname", &e), 0);
	CHECK(config__set(&c, "sampling.frequncy", "97", &e) < 0);
	CHECK_STR(e.code, "config.key");
	CHECK(config__set(&c, "sampling.frequency", "fast", &e) < 0);
	CHECK_STR(e.code, "config.type");
	CHECK(config__set(&c, "passes.witness", "2", &e) < 0);
	CHECK_STR(e.code, "config.value");
	json_t *eff = config__effective_json(&c);
	CHECK(eff != NULL);
	CHECK_STR(json_string_value(json_object_get(eff, "name")), "flagname");
	CHECK_INT(json_integer_value(json_object_get(eff, "sampling.frequency")), 97);
	CHECK_STR(json_string_value(json_object_get(eff, "tools.perf")), "/flag/perf");
	CHECK_STR(json_string_value(json_object_get(eff, "source_map./b")), "/proj-b");
	CHECK_STR(json_string_value(json_object_get(eff, "source_map./a")), "/site-a");
	CHECK_NEAR(json_real_value(json_object_get(eff, "passes.witness")), 0.05, 0);
	CHECK(json_is_true(json_object_get(eff, "debuginfod.enabled")));
	CHECK(json_is_null(json_object_get(eff, "mpi.skip"))); /* none unless set */
	CHECK(json_object_get(eff, "thresholds.coverage") == NULL); /* removed: nothing read it */
	CHECK(json_object_get(eff, "tools.mpip") == NULL);        /* our PMPI layer replaces mpiP */
	CHECK(json_object_get(eff, "tools.mpifort") == NULL);     /* removed: the PMPI library is C */
	json_decref(eff);
	CHECK_INT(config__set(&c, "mpi.skip", "MPI_Test,MPI_Iprobe", &e), 0);
	eff = config__effective_json(&c);
	CHECK_STR(json_string_value(json_object_get(eff, "mpi.skip")), "MPI_Test,MPI_Iprobe");
	json_decref(eff);
	config__release(&c);
	xfree(site);
	xfree(cwd);
	remove_tree();
}

static void t_errors(void)
{
	make_tree();
	setenv("NUNATAK_SITE_CONFIG", "/dev/null", 1);
	char *cwd = xasprintf("%s/proj", tmpdir);
	struct config c;
	struct err e = {0};
	write_file("proj/nunatak.toml", "[sampling]\nfrequency = 'high'\n");
	CHECK(config__load(&c, cwd, &e) < 0);
	CHECK_STR(e.code, "config.type");
	CHECK(strstr(e.msg, "nunatak.toml: sampling.frequency: expected an integer, found a string"));
	config__release(&c);
	write_file("proj/nunatak.toml", "[sampling]\nfrequency = 0\n");
	CHECK(config__load(&c, cwd, &e) < 0);
	CHECK_STR(e.code, "config.value");
	config__release(&c);
	write_file("proj/nunatak.toml", "[sampling\n");
	CHECK(config__load(&c, cwd, &e) < 0);
	CHECK_STR(e.code, "toml.syntax");
	CHECK(strstr(e.msg, "nunatak.toml:1:10: expected ']', found end of line"));
	config__release(&c);
	/* An integer is a fine float. */
	write_file("proj/nunatak.toml", "[debuginfod]\ntimeout = 3\n[passes]\nwitness = 0\n");
	CHECK_INT(config__load(&c, cwd, &e), 0);
	CHECK_NEAR(c.debuginfod_timeout_s, 3, 0);
	CHECK_NEAR(c.passes_witness, 0, 0);
	config__release(&c);
	xfree(cwd);
	remove_tree();
}

static void t_alloc_failures(void)
{
	make_tree();
	setenv("NUNATAK_SITE_CONFIG", "/dev/null", 1);
	write_file("proj/nunatak.toml", "name = 'n'\n[tools]\nperf = '/p'\nzz = 'x'\n"
					"[source_map]\n'/a' = '/b'\n[sampling]\nfrequency = 9\n");
	char *cwd = xasprintf("%s/proj", tmpdir);
	int failed = 0;
	for (int n = 1; n < 120; n++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", n);
		setenv("NUNATAK_FAIL_ALLOC", buf, 1);
		alloc_fault_init();
		struct config c;
		struct err e = {0};
		int rc = config__load(&c, cwd, &e);
		json_t *eff = rc == 0 ? config__effective_json(&c) : NULL;
		if (rc < 0) {
			CHECK_INT(rc, -ENOMEM);
			failed++;
		}
		json_decref(eff);
		config__release(&c);
	}
	setenv("NUNATAK_FAIL_ALLOC", "0", 1);
	alloc_fault_init();
	CHECK(failed > 5);
	xfree(cwd);
	remove_tree();
}

static const struct test_case cases[] = {
	{"alloc_failures", "a failed allocation anywhere is -ENOMEM, never a crash", t_alloc_failures},
	{"defaults", "REFERENCE.md §9 defaults with no files", t_defaults},
	{"cascade", "site < project < flags; tools/source_map merge; effective JSON", t_cascade},
	{"errors", "wrong types, ranges and syntax are errors with locations", t_errors},
};

TEST_MAIN(cases)
