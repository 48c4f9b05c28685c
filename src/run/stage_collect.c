// SPDX-License-Identifier: BSD-3-Clause
/*
 * Stage "collect": detect perf, announce what blocks sampling, run the
 * application exactly once (under perf record, or bare when no collector is
 * usable), then extract samples (perf script) and build-ids (perf
 * buildid-list) into collect/. Every process goes through s->x, so the
 * recording and replay executors see the same sequence of program calls as
 * the corpus: perf --version, perf record, perf script, perf buildid-list.
 */
#include "run/stages.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "run/pipeline.h"
#include "run/ranks.h"
#include "collect/perf_exit.h"
#include "collect/stacks.h"
#include "common/alloc.h"
#include "common/argv.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "common/signame.h"
#include "common/timefmt.h"
#include "exec/exec.h"
#include "store/manifest.h"
#include "common/config.h"
#include "tools/caps.h"

void iso_now(char out[32])
{
	iso8601(time(NULL), ISO8601_UTC, out, 32);
}

/* First line of perf's complaint, e.g. "event syntax error: 'fp_ret_...'". */
static void first_line(const char *text, char *out, size_t cap)
{
	size_t n = 0;
	while (text && text[n] && text[n] != '\n' && n + 1 < cap)
		n++;
	memcpy(out, text ? text : "", n);
	out[n] = '\0';
}

/* Opens the counter group once with `perf stat ... -- true` before the run:
 * a PMU that lacks the events (a VM without a virtual PMU) drops the group
 * with its remedy up front, instead of a rejected perf record and a retry.
 * Through the executor, so a recording keeps the answer; entries recorded
 * before the probe existed (no "counter_probe" in meta.json) skip it. */
/* What the probe's answer depends on beyond perf and its argv: this boot
 * (the PMU and its driver) and the permission level. */
static char *probe_salt(void)
{
	char *boot = NULL, *paranoid = NULL;
	(void)fs_read_file("/proc/sys/kernel/random/boot_id", 64, &boot, NULL);
	(void)fs_read_file("/proc/sys/kernel/perf_event_paranoid", 64, &paranoid, NULL);
	char *salt = boot && paranoid ? xasprintf("boot %s paranoid %s", boot, paranoid) : NULL;
	xfree(boot);
	xfree(paranoid);
	return salt;
}

static int probe_group(struct run_state *s, struct err *e)
{
	if (!s->group || s->sampling_blocked ||
	    (s->replay && !json_object_get(s->recorded_meta, "counter_probe")))
		return 0;
	char **argv = perf_argv_probe(s->caps.perf.path, s->group);
	if (!argv)
		return err_oom(e);
	char *salt = probe_salt();
	struct exec_request rq = {.argv = (const char *const *)argv, .capture_stdout = true,
				  .capture_stderr = true, .timeout_s = 30,
				  .cacheable = salt != NULL, .cache_salt = salt};
	struct exec_result res = {0};
	int rc = executor__run(s->x, &rq, &res, e);
	perf_argv__free(argv);
	xfree(salt);
	if (rc == 0 && res.exit_code != 0) {
		char why[160], msg[400];
		first_line(res.err, why, sizeof(why));
		snprintf(msg, sizeof(msg),
			 "perf cannot open the %s counter group on this machine (%s): sampling "
			 "time only, FLOP and DRAM figures unavailable",
			 s->group->uarch, why[0] ? why : "no reason given");
		s->group = NULL;
		rc = run_state__degrade(s, DEG_COUNTER_EVENTS_UNAVAILABLE, msg,
					perf_group_remedy(s->cpuinfo));
	}
	exec_result__release(&res);
	return rc;
}

/* `perf --version` and the permission, through the one capability probe
 * doctor reads too (under replay: the recorded answers). */
int stage_detect_perf(struct run_state *s, struct err *e)
{
	int rc = caps_probe(&s->caps, s->x, config__tool(s->cfg, "perf"), e);
	if (rc < 0)
		return rc;
	/* perf blocked: the collector decision announces the stand-in, or the
	 * caps' degradation when there is none (collect/collector.h). */
	if (s->caps.sampling_blocked)
		return collector_decide(s, false, s->caps.perf.present ? s->caps.degradation.message
									: "perf not found");
	if (!perf_version__at_least(&s->caps.perf.version, 6, 4))
		console__debug(s->con, 1, "perf %s has no dsoff: offsets computed from mmap events",
			       s->caps.perf.version.text);
	rc = collector_decide(s, true, NULL);
	return rc < 0 ? rc : probe_group(s, e); /* only when perf collects */
}

static int run_app(struct run_state *s, char **argv, const char *output,
		   struct exec_result *res, struct err *e)
{
	struct exec_request rq = {.argv = (const char *const *)argv, .forward_signals = true,
				  .application = true, .env_set = s->app_env_set,
				  .output_path = output, .wrapper = output != NULL};
	iso_now(s->pass.start);
	s->launched = true;
	int rc = executor__run(s->x, &rq, res, e);
	/* perf re-raised the application's signal after finishing perf.data */
	if (rc == 0 && output)
		perf_exit_reraised(res, perf_data_finished(output));
	iso_now(s->pass.end);
	s->pass.duration_s = res->duration_s;
	return rc;
}

static char *join_argv(char *const *argv)
{
	size_t len = 1;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	char *s = xmalloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* The ladder's rungs, as the options they keep. perf's refusal does not say
 * which option it refused (its stderr is the application's), so each option
 * is dropped alone first - the counter group, the likeliest (an event this
 * PMU lacks), then the call stacks, then -k CLOCK_MONOTONIC - and the rung
 * perf accepts keeps every other; then pairs, then nothing. A rung already
 * tried (an option that was not asked for) is skipped. */
#define KEEP_GROUP 1
#define KEEP_STACKS 2
#define KEEP_CLOCK 4
#define KEEP_ALL (KEEP_GROUP | KEEP_STACKS | KEEP_CLOCK)
static const int rungs[] = {KEEP_ALL,   KEEP_ALL & ~KEEP_GROUP, KEEP_ALL & ~KEEP_STACKS,
			    KEEP_ALL & ~KEEP_CLOCK, KEEP_CLOCK, KEEP_STACKS, KEEP_GROUP, 0};

static int keep_mask(const struct perf_record_opts *o)
{
	return (o->group ? KEEP_GROUP : 0) | (o->call_graph ? KEEP_STACKS : 0) |
	       (o->clock_monotonic ? KEEP_CLOCK : 0);
}

/* One rung down after perf rejected its options: the next rung not tried
 * yet (*tried: a bit per option set). Returns false at the bottom. */
static bool step_down(const struct perf_record_opts *full, struct perf_record_opts *o,
		      size_t *rung, unsigned *tried)
{
	int have = keep_mask(full);
	*tried |= 1u << keep_mask(o);
	while (++*rung < sizeof(rungs) / sizeof(rungs[0])) {
		int m = rungs[*rung] & have;
		if (*tried & (1u << m))
			continue;
		o->group = m & KEEP_GROUP ? full->group : NULL;
		o->call_graph = m & KEEP_STACKS ? full->call_graph : NULL;
		o->clock_monotonic = m & KEEP_CLOCK;
		return true;
	}
	return false;
}

/* What the accepted rung lacks, announced once perf started. */
static void announce_rung(struct run_state *s, const struct perf_record_opts *full,
			  const struct perf_record_opts *o)
{
	if (full->group && !o->group) {
		run_state__degrade(s, DEG_COUNTER_EVENTS_REJECTED,
				   "perf rejected the counter group; sampling time only",
				   "check `perf list` for the events of this CPU");
		s->group = NULL;
	}
	if (full->call_graph && !o->call_graph) {
		char msg[120];
		snprintf(msg, sizeof(msg), "perf rejected --call-graph %s: no call stacks",
			 full->call_graph);
		run_state__degrade(s, DEG_CALL_STACKS_REJECTED, msg,
				   DEG_CALL_STACKS_REJECTED_REMEDY);
		s->stacks = 0;
	}
	if (full->clock_monotonic && !o->clock_monotonic)
		run_state__degrade(s, DEG_MONOTONIC_CLOCK_REJECTED,
				   "perf rejected -k CLOCK_MONOTONIC: samples and region traces do "
				   "not share one timeline",
				   DEG_MONOTONIC_CLOCK_REJECTED_REMEDY);
}

/* perf record, stepping down the ladder when perf rejects its options: it
 * fails fast, before starting the application, so the application still
 * runs once. */
int collect_record(struct run_state *s, struct exec_result *res, struct err *e)
{
	struct perf_record_opts o = {.perf = s->caps.perf.path, .freq = s->freq,
				     .clock_monotonic = true, .group = s->group,
				     .call_graph = s->stacks == STACKS_DWARF ? STACKS_DWARF_CALL_GRAPH
						   : s->stacks ? stacks_mode__name(s->stacks) : NULL,
				     .output = s->perf_data,
				     .no_bpf_event = perf_version__at_least(&s->caps.perf.version, 5, 1)};
	const struct perf_record_opts full = o;
	size_t rung = 0;
	unsigned tried = 0;
	for (;;) {
		char **argv = perf_argv_record(&o, s->app);
		char *shown = argv ? argv_join((const char *const *)s->app) : NULL;
		if (!argv || !shown) {
			perf_argv__free(argv);
			xfree(shown);
			return err_oom(e);
		}
		if (s->pass_label)
			console__info(s->con, "collecting with perf %s [%s]: %s", s->caps.perf.version.text,
				      s->pass_label, shown);
		else
			console__info(s->con, "collecting with perf %s: %s", s->caps.perf.version.text,
				      shown);
		xfree(shown);
		unlink(s->perf_data);
		memset(res, 0, sizeof(*res));
		int rc = run_app(s, argv, s->perf_data, res, e);
		perf_argv__free(argv);
		if (rc < 0)
			return rc;
		/* Whether perf.data was written crosses the execution boundary, so
		 * a replay steps down the ladder exactly where the recording did. */
		if (!perf_record_rejected(res->exit_code, res->output_written)) {
			announce_rung(s, &full, &o);
			return 0;
		}
		int perf_code = res->exit_code;
		exec_result__release(res);
		s->launched = false;
		if (!step_down(&full, &o, &rung, &tried)) {
			/* perf cannot record at all, and the application has not run
			 * yet: it runs now - once - under the preload sampler, or bare.
			 * A minimal record says whether perf itself is refused (a
			 * permission) rather than one of our options. */
			char msg[160] = "";
			if (perf_records_at_all(s, msg, sizeof(msg)))
				snprintf(msg, sizeof(msg),
					 "perf record failed before starting the application "
					 "(exit %d)", perf_code);
			s->rejected = true;
			if (collector_fallback_preload(s, msg))
				return 0;
			strncat(msg, ": no samples", sizeof(msg) - strlen(msg) - 1);
			run_state__degrade(s, DEG_CPU_COLLECTION_FAILED, msg,
					   DEG_CPU_COLLECTION_FAILED_REMEDY);
			return 0;
		}
	}
}

int collect_extract(struct run_state *s, struct err *e)
{
	bool dsoff = perf_version__at_least(&s->caps.perf.version, 6, 4);
	char **sargv = perf_argv_script(s->caps.perf.path, s->perf_data, dsoff);
	char **bargv = perf_argv_buildid_list(s->caps.perf.path, s->perf_data);
	int rc = sargv && bargv ? 0 : err_oom(e);
	struct exec_result res = {0};
	if (rc == 0) {
		struct exec_request rq = {.argv = (const char *const *)sargv,
					  .stdout_path = s->perf_script_path,
					  .capture_stderr = true};
		rc = executor__run(s->x, &rq, &res, e);
		if (rc == 0 && res.exit_code != 0)
			run_state__degrade(s, DEG_PERF_SCRIPT_FAILED,
					   "perf script could not read the recording; no samples",
					   "rerun with a perf matching this kernel");
		s->script_ok = rc == 0 && res.exit_code == 0;
		exec_result__release(&res);
	}
	if (rc == 0) {
		struct exec_request rq = {.argv = (const char *const *)bargv,
					  .stdout_path = s->buildid_path, .capture_stderr = true};
		rc = executor__run(s->x, &rq, &res, e);
		exec_result__release(&res);
	}
	perf_argv__free(sargv);
	perf_argv__free(bargv);
	return rc;
}

int collect_after_rejection(struct run_state *s, struct exec_result *res, struct err *e)
{
	if (s->collector == COLLECTOR_USE_PRELOAD)
		return collect_preload(s, s->app, res, e);
	char *shown = join_argv(s->app);
	console__info(s->con, "launching: %s", shown ? shown : s->app[0]);
	xfree(shown);
	return run_app(s, s->app, NULL, res, e);
}

/* perf died by a signal while the application ran on (exec_result.
 * wrapper_signal): what it wrote until then is read as far as it goes. */
static void collector_died(struct run_state *s, int sig)
{
	char msg[240], b[16];
	if (!sig)
		return;
	snprintf(msg, sizeof(msg),
		 "perf was killed by %s while the application ran; the application carried on "
		 "and its exit status is its own, but samples stop where perf died (its "
		 "perf.data may be cut short)", sig_name(sig, b, sizeof(b)));
	run_state__degrade(s, DEG_CPU_COLLECTION_INTERRUPTED, msg,
			   DEG_CPU_COLLECTION_INTERRUPTED_REMEDY);
}

int stage_collect(struct run_state *s, struct err *e)
{
	/* HOOK(mpi): the rewritten launch, ranks collecting themselves. */
	if (s->mpi && s->req->multi_pass)
		run_state__degrade(s, DEG_MULTI_PASS_UNAVAILABLE,
				   "--multi-pass does not apply to an MPI launch: one pass, each "
				   "rank sampling its own group",
				   "run one rank alone for the multi-pass counters");
	if (s->mpi)
		return collect_ranks(s, e);
	struct exec_result res = {0};
	int rc;
	if (s->req->multi_pass && (rc = collect_passes(s, e)) != 1)
		return rc; /* 0: the passes ran; 1: one pass after all (announced) */
	if (s->collector == COLLECTOR_USE_PRELOAD) {
		rc = collect_preload(s, s->app, &res, e);
	} else if (s->sampling_blocked || !s->caps.perf.present) {
		char *shown = join_argv(s->app);
		console__info(s->con, "launching: %s", shown ? shown : s->app[0]);
		xfree(shown);
		rc = run_app(s, s->app, NULL, &res, e);
	} else {
		s->perf_data = xasprintf("%s/perf.data", s->collect_dir);
		s->perf_script_path = xasprintf("%s/perf-script.txt", s->collect_dir);
		s->buildid_path = xasprintf("%s/perf-buildid-list.txt", s->collect_dir);
		if (!s->perf_data || !s->perf_script_path || !s->buildid_path)
			return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		rc = collect_record(s, &res, e);
		s->pass.sampled = rc == 0 && !s->rejected;
		if (rc == 0 && s->rejected)
			rc = collect_after_rejection(s, &res, e);
	}
	if (rc < 0)
		return rc;
	run_pass__take(&s->pass, &res);
	s->exit_code = res.exit_code;
	collector_died(s, res.wrapper_signal);
	exec_result__release(&res);
	run_announce_outcome(s);
	/* Replayed and recorded Runs go through perf script, the only output a
	 * corpus entry can serve; a live Run reads perf.data directly (faster) and
	 * falls back to perf script in the ingest stage. */
	bool perf_ran = s->pass.sampled && s->collector == COLLECTOR_USE_PERF;
	return perf_ran && (s->replay || s->req->record_entry) ? collect_extract(s, e) : 0;
}
