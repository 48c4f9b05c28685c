// SPDX-License-Identifier: BSD-3-Clause
/* Recording and replay executors, including the real corpus layout. */
#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>

#include "build_config.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"

#define CORPUS_WORKLOAD_C TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c"

static struct exec_result run_on(struct executor *x, const char *const *argv, bool capture)
{
	struct exec_request req = {.argv = argv, .capture_stdout = capture, .capture_stderr = capture};
	struct exec_result res;
	struct err e = {0};
	CHECK_INT(executor__run(x, &req, &res, &e), 0);
	return res;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void t_corpus_entry(void)
{
	struct stat st;
	if (stat(CORPUS_WORKLOAD_C, &st) != 0)
		FAIL_INPUT("corpus entry workload-c not present");
	struct err e = {0};
	struct executor *x = executor__new_replay(CORPUS_WORKLOAD_C, &e);
	CHECK(x != NULL);
	const json_t *meta = executor__recorded_meta(x);
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(meta, "collectors"), 0), "version")),
		  "6.14.11");
	/* One FIFO per base name; argv beyond it is ignored. */
	const char *perf_v[] = {"/usr/bin/perf", "--version", NULL};
	struct exec_result r = run_on(x, perf_v, true);
	CHECK_INT(r.exit_code, 0);
	CHECK_STR(r.out, "perf version 6.14.11\n");
	exec_result__release(&r);
	const char *sym[] = {"llvm-symbolizer", "--version", NULL};
	for (int i = 0; i < 2; i++) {
		r = run_on(x, sym, true);
		CHECK_INT(r.exit_code, 127);
		exec_result__release(&r);
	}
	r = run_on(x, sym, true); /* exhausted */
	CHECK_INT(r.exit_code, 127);
	CHECK(r.err && strstr(r.err, "not recorded in corpus entry"));
	exec_result__release(&r);
	const char *git[] = {"git", "rev-parse", NULL};
	r = run_on(x, git, true);
	CHECK_INT(r.exit_code, 128);
	CHECK(r.err && strstr(r.err, "not a git repository"));
	exec_result__release(&r);
	/* perf record wrapped the application: recorded captured=false. */
	const char *rec[] = {"perf", "record", "--", "./workload", NULL};
	struct exec_request app = {.argv = rec, .application = true};
	struct exec_result ra;
	CHECK_INT(executor__run(x, &app, &ra, &e), 0);
	CHECK_INT(ra.exit_code, 0);
	CHECK(ra.out == NULL && ra.err == NULL);
	exec_result__release(&ra);
	/* perf script into a file, as the collector does for large outputs. */
	char path[] = "/tmp/nunatak-replay-XXXXXX";
	close(mkstemp(path));
	const char *script[] = {"perf", "script", NULL};
	struct exec_request sreq = {.argv = script, .stdout_path = path, .capture_stderr = true};
	CHECK_INT(executor__run(x, &sreq, &ra, &e), 0);
	CHECK(stat(path, &st) == 0);
	CHECK_INT(st.st_size, 197432);
	exec_result__release(&ra);
	unlink(path);
	const char *bid[] = {"perf", "buildid-list", NULL};
	r = run_on(x, bid, true);
	CHECK_INT(r.out_len, 266);
	exec_result__release(&r);
	const char *never[] = {"llvm-readelf", "-S", "x", NULL};
	r = run_on(x, never, true);
	CHECK_INT(r.exit_code, 127);
	exec_result__release(&r);
	executor__free(x);
}

static void t_record_roundtrip(void)
{
	char dir[] = "/tmp/nunatak-rec-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *entry = xasprintf("%s/entry", dir);
	struct err e = {0};
	json_t *meta = json_pack("{s:[s]}", "command", "./app");
	struct executor *x = executor__new_recording_take(executor__new_real(), entry, meta, &e);
	CHECK(x != NULL);
	const char *a1[] = {"sh", "-c", "echo one; echo warn >&2; exit 3", NULL};
	const char *a2[] = {"/bin/sh", "-c", "echo two", NULL};
	const char *app[] = {"true", NULL};
	struct exec_result r = run_on(x, a1, true);
	CHECK_INT(r.exit_code, 3);
	exec_result__release(&r);
	r = run_on(x, a2, true);
	exec_result__release(&r);
	/* A batch is recorded in issue order, whatever order its children end
	 * in (the first one here ends last). */
	const char *b1[] = {"sh", "-c", "sleep 0.3; echo b1", NULL};
	const char *b2[] = {"sh", "-c", "echo b2", NULL};
	struct exec_request brq[2] = {{.argv = b1, .capture_stdout = true, .capture_stderr = true},
				      {.argv = b2, .capture_stdout = true, .capture_stderr = true}};
	struct exec_result bres[2];
	CHECK_INT(executor__run_batch(x, brq, 2, bres, &e), 0);
	CHECK_STR(bres[0].out, "b1\n");
	CHECK_STR(bres[1].out, "b2\n");
	exec_result__release(&bres[0]);
	exec_result__release(&bres[1]);
	json_t *extra = json_pack("{s:[{s:s, s:s}]}", "collectors", "tool", "perf", "version", "6.1");
	CHECK_INT(executor__annotate(x, extra), 0);
	json_decref(extra);
	struct exec_request areq = {.argv = app, .application = true};
	CHECK_INT(executor__run(x, &areq, &r, &e), 0);
	exec_result__release(&r);
	executor__free(x);
	/* The layout is the corpus's, byte for byte in shape. */
	char *p = xasprintf("%s/invocations/000.json", entry);
	CHECK_STR(slurp(p), "{\n  \"argv\": [\n    \"sh\",\n    \"-c\",\n    \"echo one; echo warn >&2; "
			    "exit 3\"\n  ],\n  \"exit_code\": 3,\n  \"captured\": true\n}");
	xfree(p);
	p = xasprintf("%s/invocations/004.stdout", entry);
	CHECK(slurp(p) == NULL); /* the application's output is not recorded */
	xfree(p);
	p = xasprintf("%s/meta.json", entry);
	CHECK(strstr(slurp(p), "\"command\": [\n    \"./app\"\n  ]") != NULL);
	CHECK(strstr(slurp(p), "\"version\": \"6.1\"") != NULL);
	xfree(p);
	/* Refuses to write into a non-empty entry. */
	CHECK(executor__new_recording_take(executor__new_real(), entry, NULL, &e) == NULL);
	CHECK_STR(e.code, "exec.record");
	/* Replay gives the same answers in FIFO order per base name. */
	x = executor__new_replay(entry, &e);
	CHECK(x != NULL);
	r = run_on(x, a1, true);
	CHECK_INT(r.exit_code, 3);
	CHECK_STR(r.out, "one\n");
	CHECK_STR(r.err, "warn\n");
	exec_result__release(&r);
	r = run_on(x, a1, true); /* second "sh" in the queue is /bin/sh's */
	CHECK_STR(r.out, "two\n");
	exec_result__release(&r);
	CHECK_INT(executor__run_batch(x, brq, 2, bres, &e), 0); /* served in issue order */
	CHECK_STR(bres[0].out, "b1\n");
	CHECK_STR(bres[1].out, "b2\n");
	exec_result__release(&bres[0]);
	exec_result__release(&bres[1]);
	r = run_on(x, a1, true);
	CHECK_INT(r.exit_code, 127);
	exec_result__release(&r);
	CHECK_STR(json_string_value(json_object_get(executor__recorded_meta(x), "nunatak_version")),
		  NUNATAK_VERSION);
	executor__free(x);
	json_decref(meta);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	xfree(cmd);
	xfree(entry);
}

static void t_bad_entry(void)
{
	struct err e = {0};
	CHECK(executor__new_replay("/nonexistent/entry", &e) == NULL);
	CHECK_STR(e.code, "exec.replay");
	CHECK(strstr(e.msg, "/nonexistent/entry is not a corpus entry") != NULL);
}

static const struct test_case cases[] = {
	{"corpus_entry", "replays perf/6.14.11/workload-c through the replay executor",
	 t_corpus_entry},
	{"record_roundtrip", "record writes the corpus layout; replay serves it back",
	 t_record_roundtrip},
	{"bad_entry", "a missing entry is a clear error", t_bad_entry},
};

TEST_MAIN(cases)
