// SPDX-License-Identifier: BSD-3-Clause
#include "run/pipeline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/stages.h"
#include "tools/locate.h"
#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/config.h"
#include "common/degradation_kinds.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/exit_codes.h"
#include "exec/exec.h"
#include "common/fsutil.h"
#include "common/signame.h"
#include "store/manifest.h"
#include "machine/snapshot.h"

#define PIPE_EXIT_STRICT EXIT_STRICT_VIOLATION
#define PIPE_EXIT_BEFORE_LAUNCH EXIT_FAILURE_BEFORE_LAUNCH

struct stage {
	const char *name;
	int (*fn)(struct run_state *s, struct err *e);
};

/* Before launch: a failure stops everything (exit 125). */
static const struct stage before[] = {
	{"config", stage_config},       {"launch", stage_launch},
	{"machine", stage_machine},     {"calibrate", stage_calibrate},
	{"perf", stage_detect_perf},    {"doctor", stage_doctor},
	{"rundir", stage_rundir},       {"regions-env", stage_regions_env},
	{"stacks", stage_stacks},
};
/* After launch: each runs even when an earlier one failed, so a crash of the
 * application or of one stage still leaves a complete Run. */
static const struct stage after[] = {
	{"ingest", stage_ingest},
	{"attribute", stage_attribute},
	{"passes", stage_passes},
	{"regions", stage_regions},
	{"analyse", stage_analyse},
	{"store", stage_store},
	{"report", stage_report},
	{"manifest", stage_manifest},
};

static int make_executor(struct run_state *s, struct err *e)
{
	const struct run_request *r = s->req;
	if (r->replay_entry) {
		s->x = executor__new_replay(r->replay_entry, e);
		if (!s->x)
			return e->errnum ? e->errnum : -EINVAL;
		s->replay = true;
		s->recorded_meta = s->x->ops->recorded_meta(s->x);
		return 0;
	}
	s->x = executor__new_real();
	if (!s->x)
		return err_oom(e);
	if (!r->record_entry) {
		/* tools' answers on unchanged files come from the cache: a
		 * recording holds every call instead */
		int no_home = 0;
		char *dir = cache_home_path("exec", &no_home);
		s->x = executor__new_caching_take(s->x, dir);
		xfree(dir);
		return 0;
	}
	/* The recording's meta.json carries this machine so a replay sees it. */
	struct machine m;
	machine__init(&m);
	json_t *meta = machine__snapshot(&m, NULL, e) == 0 ? machine__recording_meta(&m) : NULL;
	machine__release(&m);
	json_t *cmd = json_array();
	for (int i = 0; i < r->cmd_argc; i++)
		json_array_append_new(cmd, json_string(r->cmd[i]));
	if (meta) {
		json_object_set_new(meta, "command", cmd);
		/* This entry holds the counter-group probe (stage_collect.c); older
		 * entries do not, and their replay skips it. */
		json_object_set_new(meta, "counter_probe", json_true());
	}
	else
		json_decref(cmd);
	s->x = executor__new_recording_take(s->x, r->record_entry, meta, e);
	json_decref(meta);
	return s->x ? 0 : (e->errnum ? e->errnum : -EINVAL);
}

/* 127/126 on argv[0] before anything is created; skipped under --replay,
 * where the recorded program need not exist here. */
static int preflight(const struct run_request *r, struct console *con, struct err *e)
{
	if (r->replay_entry)
		return 0;
	char *path = NULL;
	int rc = exec_which(r->cmd[0], &path);
	xfree(path);
	struct stat st;
	bool here = !strchr(r->cmd[0], '/') && stat(r->cmd[0], &st) == 0 && S_ISREG(st.st_mode);
	if (rc == -ENOENT && here) { /* the shell would not find it either: say why */
		err_set(e, -ENOENT, ERR_EXEC_NOT_FOUND,
			"%s: command not found in PATH; it is in the current directory: "
			"run ./%s", r->cmd[0], r->cmd[0]);
		console__error(con, "%s", e->msg);
		return EXEC_NOT_FOUND;
	}
	if (rc == -ENOENT && strchr(r->cmd[0], '/')) { /* a path: it is not there */
		err_set(e, -ENOENT, ERR_EXEC_NOT_FOUND,
			"%s: no such file (check the path; the current directory is where "
			"nunatak was started)", r->cmd[0]);
		console__error(con, "%s", e->msg);
		return EXEC_NOT_FOUND;
	}
	if (rc == -ENOENT) {
		err_set(e, -ENOENT, ERR_EXEC_NOT_FOUND,
			"%s: command not found in PATH (check the name, or give a path)", r->cmd[0]);
		console__error(con, "%s", e->msg);
		return EXEC_NOT_FOUND;
	}
	if (rc == -EACCES && stat(r->cmd[0], &st) == 0 && S_ISDIR(st.st_mode)) {
		err_set(e, -EACCES, ERR_EXEC_NOT_EXECUTABLE,
			"%s: is a directory, not a program (give the program inside it)", r->cmd[0]);
		console__error(con, "%s", e->msg);
		return EXEC_NOT_EXECUTABLE;
	}
	if (rc == -EACCES) {
		err_set(e, -EACCES, ERR_EXEC_NOT_EXECUTABLE,
			"%s: not executable (chmod +x it, or check the path)", r->cmd[0]);
		console__error(con, "%s", e->msg);
		return EXEC_NOT_EXECUTABLE;
	}
	return 0;
}

static int strict_check(struct run_state *s)
{
	size_t n = 0;
	for (size_t i = 0; s->req->strict && i < s->degradations.n; i++)
		n += degradation_kind_strict(s->degradations.v[i].name);
	if (n == 0)
		return 0;
	char msg[96];
	snprintf(msg, sizeof(msg), "--strict: %zu degradation(s) turned into an error", n);
	console__error(s->con, "%s", msg);
	if (!s->error.msg[0])
		err_set(&s->error, -EPERM, ERR_RUN_STRICT, "%s", msg);
	return PIPE_EXIT_STRICT;
}

/* What failed, for the error document: the first error recorded, else a
 * generic code. */
static void failure_err(const struct run_state *s, struct err *failure)
{
	if (s->error.code[0])
		*failure = s->error;
	else
		err_set(failure, -EIO, ERR_RUN_FAILED, "%s",
			s->error.msg[0] ? s->error.msg : "failure before launch");
	if (!failure->msg[0])
		snprintf(failure->msg, sizeof(failure->msg), "failure before launch");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Nothing ran: the Run directory made by stage_rundir holds no manifest and
 * would be a Run in name only (`report` refuses it, --json would point at
 * it). Only empty directories go, and -o's own only if we created it. */
static void abandon_rundir(struct run_state *s, bool output_existed)
{
	if (!s->dir)
		return;
	/* what stages made inside collect/ before launch (ompt/), if empty */
	DIR *d = s->collect_dir ? opendir(s->collect_dir) : NULL;
	for (struct dirent *de; d && (de = readdir(d));) {
		char *sub = strcmp(de->d_name, ".") && strcmp(de->d_name, "..")
				    ? fs_join(s->collect_dir, de->d_name)
				    : NULL;
		if (sub)
			rmdir(sub);
		xfree(sub);
	}
	if (d)
		closedir(d);
	if (s->collect_dir)
		rmdir(s->collect_dir);
	if (!output_existed)
		rmdir(s->dir);
	xfree(s->dir);
	s->dir = NULL;
}

static int run_before(struct run_state *s)
{
	struct err e = {0};
	bool output_existed = s->req->output && fs_exists(s->req->output);
	int rc = make_executor(s, &e);
	for (size_t i = 0; rc == 0 && i < sizeof(before) / sizeof(before[0]); i++) {
		double t0 = now_s();
		rc = before[i].fn(s, &e);
		console__debug(s->con, 1, "stage %s: %.3f s", before[i].name, now_s() - t0);
	}
	if (rc < 0) {
		console__error(s->con, "%s", e.msg[0] ? e.msg : "failure before launch");
		s->error = e;
		abandon_rundir(s, output_existed);
		return PIPE_EXIT_BEFORE_LAUNCH;
	}
	rc = strict_check(s);
	if (rc)
		abandon_rundir(s, output_existed);
	return rc;
}

static void run_after(struct run_state *s, void (*before_manifest)(struct run_state *))
{
	size_t n = sizeof(after) / sizeof(after[0]);
	for (size_t i = 0; i < n; i++) {
		struct err e = {0};
		double t0 = now_s();
		if (after[i].fn == stage_manifest) {
			before_manifest(s);
			run_cost(s, now_s());
		}
		/* Attribution of a long run can take a while: show the phase on a
		 * terminal only (a job log gets the summary, not a progress line). */
		if (s->con->terminal)
			console__progress(s->con, after[i].name, i, n);
		if (after[i].fn(s, &e) < 0)
			console__error(s->con, "%s: %s", after[i].name,
				       e.msg[0] ? e.msg : "failed");
		console__debug(s->con, 1, "stage %s: %.3f s", after[i].name, now_s() - t0);
	}
	if (s->con->terminal)
		console__progress_end(s->con, "post-processing");
}

/*
 * After the application ended, a Ctrl-C or SIGTERM must not cut the Run in
 * half: it is held until the Run is written and printed, and nunatak then
 * exits 128+N as a shell would (the --json document still says the
 * application's own exit_code). Handlers (unlike a blocked
 * mask) are not inherited by the symbolizer processes started meanwhile.
 * The flag is process-wide because a signal handler can reach nothing else.
 */
static volatile sig_atomic_t held_signal;
static volatile sig_atomic_t held_count; /* interrupts so far, the application's included */
static volatile sig_atomic_t abandon_ready; /* the paths below are set and current */
static char abandon_from[4096], abandon_to[4096], abandon_reserve[4096];
static const int held_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NR_HELD (sizeof(held_signals) / sizeof(held_signals[0]))

static void say(const char *msg)
{
	ssize_t w = write(STDERR_FILENO, msg, strlen(msg));
	(void)w;
}

/* A second interrupt abandons post-processing: the abandoned manifest,
 * written before it began, replaces the incomplete one and nunatak ends at
 * once (only async-signal-safe calls here). */
static void hold_handler(int sig)
{
	held_count = held_count + 1;
	if (!held_signal)
		held_signal = sig;
	if (held_count < 2) {
		say("nunatak: interrupted: finishing the Run (interrupt again to abandon "
		    "post-processing)\n");
		return;
	}
	if (abandon_ready) {
		rename(abandon_from, abandon_to);
		unlink(abandon_reserve);
	}
	/* The tools still running (a symbolizer, readelf) end with nunatak,
	 * which was perhaps the only process the signal reached. */
	exec_signal_children(SIGTERM);
	say("nunatak: interrupted again: post-processing abandoned; the Run's manifest says "
	    "so\n");
	_exit(128 + sig);
}

static void hold_signals(struct sigaction old[NR_HELD]);

/* Before post-processing: the handler, then the provisional manifest and the
 * handler's paths. The handler comes first: whoever sees the provisional
 * manifest (a user, a script, the test) may interrupt at once, and that
 * interrupt must be held, not end nunatak with the default action. */
static void prepare_abandon(struct run_state *s, struct sigaction old[])
{
	struct err e = {0};
	abandon_ready = 0;
	held_count = s->collect.passes[0].interrupted_by || run_interrupted_by(s) ? 1 : 0;
	hold_signals(old);
	if (!s->dir)
		return;
	if (run_write_provisional(s, RUN_STATUS_INCOMPLETE, &e) < 0) {
		console__warn(s->con, "cannot write the provisional manifest: %s", e.msg);
		return;
	}
	int a = snprintf(abandon_from, sizeof(abandon_from), "%s/" RUN_ABANDONED_MANIFEST, s->dir);
	int b = snprintf(abandon_to, sizeof(abandon_to), "%s/" MANIFEST_FILE, s->dir);
	int c = snprintf(abandon_reserve, sizeof(abandon_reserve), "%s/.nunatak-space-reserve",
			 s->dir);
	abandon_ready = a > 0 && (size_t)a < sizeof(abandon_from) && b > 0 &&
			(size_t)b < sizeof(abandon_to) && c > 0 && (size_t)c < sizeof(abandon_reserve);
}

/* Once the final manifest is about to be written, abandoning no longer
 * replaces it: the variant goes. */
static void drop_abandon(struct run_state *s)
{
	abandon_ready = 0;
	if (s->dir && abandon_from[0])
		unlink(abandon_from);
}

/* A second interrupt while the application ran: its processes were killed
 * and nunatak stops here, with a manifest that says so. */
static int abandon_now(struct run_state *s, json_t **json_out)
{
	struct err e = {0};
	int sig = run_interrupted_by(s);
	if (run_write_provisional(s, RUN_STATUS_ABANDONED, &e) < 0)
		console__error(s->con, "cannot write the abandoned Run's manifest: %s", e.msg);
	console__warn(s->con, "interrupted twice: the application was killed and the Run "
			      "abandoned (manifest.json says so; no Hotspots)");
	if (s->dir)
		console__info(s->con, "Run: %s", s->dir);
	if (s->req->json) {
		*json_out = run_json_document(s, s->collect.passes[0].exit_code, "none", "abandoned");
	}
	return 128 + (sig ? sig : SIGINT);
}

static void hold_signals(struct sigaction old[NR_HELD])
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = hold_handler;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_HELD; i++)
		sigaction(held_signals[i], &sa, &old[i]);
}

static void release_signals(struct sigaction old[NR_HELD])
{
	for (size_t i = 0; i < NR_HELD; i++)
		sigaction(held_signals[i], &old[i], NULL);
}

int run_pipeline(const struct run_request *req, struct console *con, json_t **json_out,
		 struct err *failure)
{
	*json_out = NULL;
	struct run_state s;
	memset(&s, 0, sizeof(s));
	s.req = req;
	s.con = con;
	s.world_size = -1;
	s.collect.passes[0].exit_code = -1;
	s.cost.start = now_s();
	s.cost.calibrate_s = s.cost.netprobe_s = -1;
	pivot__init(&s.pivot);
	manifest__init(&s.out.manifest);
	int rc = preflight(req, con, &s.error);
	if (rc == 0)
		rc = run_before(&s);
	if (rc == 0) {
		struct err e = {0};
		double t0 = now_s();
		run_reserve_space(&s);
		s.cost.launch = t0;
		int crc = stage_collect(&s, &e);
		s.cost.app_end = now_s();
		/* perf's start-up and teardown are in here too: the application's
		 * own time is the bare run's (bench/run separates them). */
		console__debug(con, 1, "stage collect: %.3f s", now_s() - t0);
		if (crc < 0) {
			console__error(con, "collect: %s", e.msg);
			if (!s.launched)
				rc = PIPE_EXIT_BEFORE_LAUNCH;
		}
	}
	bool abandoned = s.collect.passes[0].abandoned;
	for (int i = 0; i < s.collect.nr_passes; i++)
		abandoned = abandoned || s.collect.passes[i].abandoned;
	if (rc == 0 && abandoned) {
		rc = abandon_now(&s, json_out);
	} else if (rc == 0) {
		struct sigaction old[NR_HELD];
		prepare_abandon(&s, old);
		run_after(&s, drop_abandon);
		double t0 = now_s();
		rc = run_finish(&s, json_out);
		console__debug(con, 1, "stage summary: %.3f s", now_s() - t0);
		release_signals(old);
		if (held_signal) {
			char b[16];
			console__warn(con, "%s received while writing the Run: the Run is "
					   "complete, ending now", sig_name(held_signal, b, sizeof(b)));
			rc = 128 + held_signal;
		}
		if (rc == 0)
			rc = strict_check(&s) ? PIPE_EXIT_STRICT : s.exit_code;
	} else if (req->json) {
		/* a failure is a JSON document too (STYLE.md §8): the Run's
		 * fields here; cmd_run adds "error" through cli_error_json,
		 * the one writer of error documents */
		*json_out = run_json_document(&s, rc, NULL, NULL);
		failure_err(&s, failure);
	}
	run_reserve_release(&s);
	run_state__release(&s);
	return rc;
}

