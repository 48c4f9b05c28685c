// SPDX-License-Identifier: BSD-3-Clause
// manifest.json: round trip, the three refusals (no manifest, foreign format,
// newer schema), corrupt input with a location, and atomicity (a failing
// write leaves the previous manifest intact and no temp file behind).
#include "store/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include <ftw.h>

#include "harness.h"
#include "common/fsutil.h"
#include "machine/snapshot.h"

#define TMPDIR_TAG "manifest"
#include "tmpdir.h"

static void fill(struct manifest *m, const char *name)
{
	struct err e = {0};
	manifest__init(m);
	CHECK_INT(machine__snapshot_at(&m->machine, TEST_SOURCE_DIR "/tests/golden/cgroup/v2", &e),
		  0);
	struct ceiling c = {(char *)"dram_bandwidth", 1.0124e11, (char *)"byte/s",
			    QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(&m->machine, &c), 0);
	m->generated_by = strdup("nunatak 0.1.0");
	m->name = strdup(name);
	m->created = strdup("2026-11-29T14:05:07+01:00");
	m->exit_code = 3;
	m->world_size = 8;
	const char *argv[] = {"mpirun", "-n", "8", "./solver", "--input=\xc3\xa9t\xc3\xa9.dat"};
	CHECK_INT(manifest__set_command(m, argv, 5), 0);
	m->provenance.commit = strdup("0123456789abcdef0123456789abcdef01234567");
	m->provenance.dirty_tree = 1;
	m->provenance.dependencies = json_pack("{ss}", "mpi", "Open MPI 4.1.4");
	m->provenance.effective_configuration =
		json_pack("{sisfss}", "sampling.frequency", 997, "passes.witness", 0.05,
			  "tools.perf", "perf");
	CHECK_INT(manifest__add_pass(m, 0, 3, "2026-11-29T14:05:07+01:00",
				     "2026-11-29T14:05:09+01:00"), 0);
	CHECK_INT(manifest__add_collector(m, "perf", "6.1.76"), 0);
	CHECK_INT(manifest__add_collector(m, "mpiP", NULL), 0);
	CHECK_INT(degradations__add(&m->degradations, "llvm", "llvm-symbolizer not found",
				    "apt-get install llvm"), 1);
	CHECK_INT(manifest__set_file(m, "pivot", "pivot.sqlite"), 0);
	CHECK_INT(manifest__set_file(m, "perf.data", "collect/perf.data"), 0);
	CHECK_INT(manifest__set_file(m, "pivot", "pivot.sqlite"), 0); /* replace, not add */
	m->overhead = json_pack("{sisfsf}", "samples", 1994, "cost_per_sample_ns", 850.5,
				"estimated_overhead_s", 0.0017);
}

static void t_roundtrip(void)
{
	char *dir = tmpdir();
	struct manifest m, r;
	struct err e = {0};
	fill(&m, "solver");
	CHECK_INT(m.nr_files, 2);
	CHECK_INT(manifest__write(&m, dir, &e), 0);
	manifest__init(&r);
	CHECK_INT(manifest__read(&r, dir, &e), 0);
	CHECK_INT(r.schema, RUN_SCHEMA);
	CHECK_STR(r.name, "solver");
	CHECK_STR(r.created, "2026-11-29T14:05:07+01:00");
	CHECK_INT(r.exit_code, 3);
	CHECK_INT(r.world_size, 8); /* the report's rank rows need it */
	CHECK_INT(r.nr_command, 5);
	CHECK_STR(r.command[4], "--input=\xc3\xa9t\xc3\xa9.dat");
	CHECK_STR(r.machine.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
	CHECK_NEAR(r.machine.alloc.cpu_quota, 2.5, 0);
	CHECK_INT(r.machine.nr_ceilings, 1);
	CHECK_STR(r.provenance.commit, m.provenance.commit);
	CHECK_INT(r.provenance.dirty_tree, 1);
	CHECK(json_equal(r.provenance.effective_configuration,
			 m.provenance.effective_configuration));
	CHECK_INT(r.nr_passes, 1);
	CHECK_INT(r.passes[0].nr_collectors, 2);
	CHECK(r.passes[0].collectors[1].version == NULL);
	CHECK_STR(r.degradations.v[0].remedy, "apt-get install llvm");
	CHECK_STR(r.files[0].relpath, "pivot.sqlite");
	CHECK_INT(json_integer_value(json_object_get(r.overhead, "samples")), 1994);
	/* Whole-document equality: nothing lost, nothing invented. */
	json_t *a = manifest__to_json(&m), *b = manifest__to_json(&r);
	CHECK(json_equal(a, b));
	/* The file itself is plain JSON with the documented trunk. */
	json_t *raw = json_load_file(fs_join(dir, "manifest.json"), 0, NULL);
	CHECK_STR(json_string_value(json_object_get(json_object_get(raw, "format"), "name")),
		  "nunatak-run");
	CHECK_INT(json_array_size(json_object_get(json_object_get(raw, "run"), "command")), 5);
	CHECK(json_is_object(json_object_get(json_object_get(raw, "machine"), "allocation")));
	manifest__release(&m);
	manifest__release(&r);
	done();
}

static void t_unknowns_null(void)
{
	/* A fresh manifest: unknown exit code, commit and dirtiness are null. */
	struct manifest m;
	manifest__init(&m);
	json_t *j = manifest__to_json(&m);
	CHECK(j != NULL);
	CHECK(json_is_null(json_object_get(json_object_get(j, "run"), "exit_code")));
	CHECK(json_is_null(json_object_get(json_object_get(j, "provenance"), "commit")));
	CHECK(json_is_null(json_object_get(json_object_get(j, "provenance"), "dirty_tree")));
	CHECK(json_is_null(json_object_get(json_object_get(j, "machine"), "logical_cores")));
	CHECK(json_object_get(j, "overhead") == NULL);
	/* Not MPI: no world_size key, and a read back says unknown. */
	CHECK(json_object_get(json_object_get(j, "run"), "world_size") == NULL);
	CHECK_INT(m.world_size, -1);
	json_decref(j);
}

static void t_not_a_run(void)
{
	char *dir = tmpdir();
	struct manifest m;
	struct err e = {0};
	manifest__init(&m);
	CHECK(manifest__read(&m, dir, &e) < 0);
	CHECK_STR(e.code, "run.not_a_run");
	char want[512];
	snprintf(want, sizeof(want),
		 "not a nunatak Run: %s has no manifest.json; give a Run directory (Runs land in "
		 ".nunatak/ where `nunatak run` was started), or no argument for the newest Run "
		 "there",
		 dir);
	CHECK_STR(e.msg, want);
	done();
}

static int parse(const char *text, struct err *e)
{
	struct manifest m;
	manifest__init(&m);
	int rc = manifest__parse(&m, text, strlen(text), "x/manifest.json", e);
	manifest__release(&m);
	return rc;
}

static void t_refusals(void)
{
	struct err e = {0};
	CHECK(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":3}}", &e) < 0);
	CHECK_STR(e.code, "run.newer_schema");
	CHECK_STR(e.msg, "Run written with schema 3, newer than the supported 2; upgrade nunatak "
			 "to read it");
	CHECK(parse("{\"format\":{\"name\":\"other-tool\",\"schema\":1}}", &e) < 0);
	CHECK_STR(e.code, "run.foreign");
	CHECK(strstr(e.msg, "\"other-tool\"") != NULL);
	CHECK(parse("[1,2]", &e) < 0);
	CHECK_STR(e.code, "run.foreign");
	CHECK(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":\"2\"}}", &e) < 0);
	CHECK_STR(e.code, "run.corrupt");
	CHECK(parse("{\"format\":{\"name\":\"nunatak-run\",\n\"schema\":2,}", &e) < 0);
	CHECK_STR(e.code, "run.corrupt");
	CHECK(strstr(e.msg, "x/manifest.json:2:") != NULL);
	CHECK(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":2},\"run\":{\"command\":"
		    "[\"a\",7]}}", &e) < 0);
	CHECK(strstr(e.msg, "run.command[1]") != NULL);
	/* Older schema and unknown keys are fine: additive evolution. */
	CHECK_INT(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":1},\"future\":{}}", &e),
		  0);
}

/* How the application ended survives write + read, and is said in words. */
static void t_outcome(void)
{
	char *dir = tmpdir();
	struct manifest m, r;
	struct err e = {0};
	fill(&m, "solver");
	m.exit_code = 130;
	m.term_signal = 2;
	m.interrupted_by = 2;
	m.status = RUN_STATUS_ABANDONED;
	m.passes[0].term_signal = 2;
	m.passes[0].interrupted_by = 2;
	CHECK_INT(manifest__write(&m, dir, &e), 0);
	manifest__init(&r);
	CHECK_INT(manifest__read(&r, dir, &e), 0);
	CHECK_INT(r.term_signal, 2);
	CHECK_INT(r.interrupted_by, 2);
	CHECK_INT(r.status, RUN_STATUS_ABANDONED);
	CHECK_INT(r.passes[0].term_signal, 2);
	CHECK_INT(r.passes[0].interrupted_by, 2);
	json_t *doc = manifest__to_json(&r), *run = json_object_get(doc, "run");
	CHECK_STR(json_string_value(json_object_get(run, "signal")), "SIGINT");
	CHECK_STR(json_string_value(json_object_get(run, "interrupted_by")), "SIGINT");
	CHECK_STR(json_string_value(json_object_get(run, "status")), "abandoned");
	CHECK(strstr(json_string_value(json_object_get(run, "outcome")),
		     "interrupted by SIGINT; the application ended by SIGINT (exit 130); "
		     "abandoned by a second interrupt") != NULL);
	json_decref(doc);
	/* A plain exit: no signal key, and an older Run without status is complete. */
	manifest__release(&r);
	m.term_signal = m.interrupted_by = 0;
	m.passes[0].term_signal = m.passes[0].interrupted_by = 0;
	m.exit_code = 3;
	m.status = RUN_STATUS_COMPLETE;
	doc = manifest__to_json(&m);
	run = json_object_get(doc, "run");
	CHECK(json_object_get(run, "signal") == NULL);
	CHECK_STR(json_string_value(json_object_get(run, "outcome")), "the application exited with 3");
	json_decref(doc);
	CHECK_INT(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":2},\"run\":{}}", &e), 0);
	/* A signal that is no signal is corrupt, with its place. */
	CHECK(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":2},\"run\":{\"signal\":"
		    "\"SIGNOPE\"}}", &e) < 0);
	CHECK_STR(e.code, "run.corrupt");
	CHECK(strstr(e.msg, "run.signal") != NULL);
	CHECK(parse("{\"format\":{\"name\":\"nunatak-run\",\"schema\":2},\"run\":{\"status\":"
		    "\"finished\"}}", &e) < 0);
	CHECK(strstr(e.msg, "run.status") != NULL);
	manifest__release(&m);
	done();
}

static bool has_temp_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".tmp."))
			found = true;
	closedir(d);
	return found;
}

static void t_atomic_fail_alloc(void)
{
	/* Fail the Nth allocation for every N until the write succeeds: each
	 * failure must leave the first manifest readable and no temp file. */
	char *dir = tmpdir();
	struct manifest first, second;
	struct err e = {0};
	fill(&first, "first");
	CHECK_INT(manifest__write(&first, dir, &e), 0);
	fill(&second, "second");
	int failures = 0;
	for (int n = 1; n < 200; n++) {
		char v[16];
		snprintf(v, sizeof(v), "%d", n);
		setenv("NUNATAK_FAIL_ALLOC", v, 1);
		alloc_fault_init();
		int rc = manifest__write(&second, dir, &e);
		setenv("NUNATAK_FAIL_ALLOC", "0", 1);
		alloc_fault_init();
		struct manifest r;
		manifest__init(&r);
		CHECK_INT(manifest__read(&r, dir, &e), 0);
		CHECK(!has_temp_files(dir));
		if (rc == 0) {
			CHECK_STR(r.name, "second");
			manifest__release(&r);
			break;
		}
		failures++;
		CHECK_STR(r.name, "first");
		manifest__release(&r);
	}
	CHECK(failures > 0);
	done();
}

static void t_atomic_blocked_temp(void)
{
	/* The temp path is taken by a directory: the write fails cleanly. */
	char *dir = tmpdir();
	struct manifest m;
	struct err e = {0};
	fill(&m, "first");
	CHECK_INT(manifest__write(&m, dir, &e), 0);
	free(m.name);
	m.name = strdup("second");
	/* the temporary name is random (and root ignores modes): a file size
	 * limit makes the write fail */
	struct rlimit old, small = {16, 16};
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rc = manifest__write(&m, dir, &e);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK(rc < 0);
	CHECK_STR(e.code, "store.write");
	struct manifest r;
	manifest__init(&r);
	CHECK_INT(manifest__read(&r, dir, &e), 0);
	CHECK_STR(r.name, "first");
	done();
}

static const struct test_case cases[] = {
	{"roundtrip", "every field survives write + read", t_roundtrip},
	{"unknowns_null", "unknown values are written as null", t_unknowns_null},
	{"not_a_run", "a directory without manifest.json is refused", t_not_a_run},
	{"refusals", "newer schema, foreign format, corrupt JSON with location", t_refusals},
	{"outcome", "signal, interruption and status survive write + read, in words", t_outcome},
	{"atomic_fail_alloc", "allocation failures leave the old manifest intact", t_atomic_fail_alloc},
	{"atomic_blocked_temp", "an unwritable temp file leaves the old manifest", t_atomic_blocked_temp},
};
TEST_MAIN(cases)
