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
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "run/pipeline.h"
#include "run/ranks.h"
#include "attrib/attrib.h"
#include "collect/perf_kallsyms.h"
#include "collect/perf_exit.h"
#include "collect/stacks.h"
#include "doctor/offcpu.h"
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
	if (!s->collect.group || s->collect.sampling_blocked ||
	    (s->replay && !json_object_get(s->recorded_meta, "counter_probe")))
		return 0;
	char **argv = perf_argv_probe(s->collect.caps.perf.path, s->collect.group);
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
			 s->collect.group->uarch, why[0] ? why : "no reason given");
		s->collect.group = NULL;
		rc = run_state__degrade(s, DEG_COUNTER_EVENTS_UNAVAILABLE, msg,
					perf_group_remedy(s->cpuinfo));
	}
	exec_result__release(&res);
	return rc;
}

/* The off-CPU mechanism (doctor/offcpu.h), announced when it is not the
 * best: before the run, as every degradation; --offcpu may ask for less
 * (cheaper: no stack at each switch, or no switch records at all). A replay reads what was
 * recorded. An MPI launch's sampling ranks record the switches with their
 * perf (rank-shim --offcpu), where perf samples them: a node that refuses
 * says so in its rank.json. */
static int offcpu_decide(struct run_state *s)
{
	bool perf_collects = s->launch.mpi ? s->collect.caps.perf.present && s->req->collector != COLLECTOR_PRELOAD
				    : s->collect.collector == COLLECTOR_USE_PERF;
	s->collect.offcpu = offcpu_mechanism(&s->collect.caps, perf_collects);
	enum offcpu_mechanism asked = OFFCPU_STACKS;
	if (s->req->offcpu)
		offcpu_mechanism__parse(s->req->offcpu, &asked); /* validated by cmd_run */
	if (s->replay)
		return 0;
	if ((int)asked < s->collect.offcpu) { /* less than the machine allows, by the user's choice */
		s->collect.offcpu = asked;
		return run_state__degrade(s, OFFCPU_DEGRADATION, offcpu_mechanism__asked(asked),
					  offcpu_mechanism__asked_remedy(asked));
	}
	if (s->collect.offcpu == OFFCPU_STACKS)
		return 0;
	return run_state__degrade(s, OFFCPU_DEGRADATION, offcpu_mechanism__describe(s->collect.offcpu),
				  offcpu_mechanism__remedy(s->collect.offcpu));
}

/* Silent losses said (issue 24): a perf older or newer than any nunatak
 * reads (5.x, 6.x), whose output may be misread; an ordinary user under
 * perf_event_paranoid >= 2, whose samples leave out the kernel's time. */
static int untested_or_user_only(struct run_state *s)
{
	const struct perf_version *v = &s->collect.caps.perf.version;
	int rc = 0;
	if (s->collect.caps.perf.present &&
	    (!perf_version__at_least(v, 5, 0) || perf_version__at_least(v, 7, 0))) {
		char msg[200];
		snprintf(msg, sizeof(msg), "perf %s is not a version nunatak was tested with (5.x, "
			 "6.x): its output may be misread", v->text[0] ? v->text : "(unknown)");
		rc = run_state__degrade(s, DEG_PERF_VERSION_UNTESTED, msg,
					DEG_PERF_VERSION_UNTESTED_REMEDY);
	}
	if (rc == 0 && !s->replay && !s->collect.caps.root && s->collect.caps.paranoid >= 2) {
		char msg[200];
		snprintf(msg, sizeof(msg), "kernel.perf_event_paranoid=%d: as an ordinary user, perf "
			 "samples user space only; time in the kernel (system calls, page faults) "
			 "is not in this Run", s->collect.caps.paranoid);
		rc = run_state__degrade(s, DEG_KERNEL_TIME_UNSAMPLED, msg,
					DEG_KERNEL_TIME_UNSAMPLED_REMEDY);
	}
	return rc;
}

/* `perf --version` and the permission, through the one capability probe
 * doctor reads too (under replay: the recorded answers). */
int stage_detect_perf(struct run_state *s, struct err *e)
{
	int rc = caps_probe(&s->collect.caps, s->x, config__tool(s->cfg, "perf"), e);
	if (rc < 0)
		return rc;
	/* perf blocked: the collector decision announces the stand-in, or the
	 * caps' degradation when there is none (collect/collector.h). */
	if (s->collect.caps.sampling_blocked) {
		rc = collector_decide(s, false, s->collect.caps.perf.present ? s->collect.caps.degradation.message
								     : "perf not found");
		return rc < 0 ? rc : offcpu_decide(s);
	}
	if (!perf_version__at_least(&s->collect.caps.perf.version, 6, 4))
		console__debug(s->con, 1, "perf %s has no dsoff: offsets computed from mmap events",
			       s->collect.caps.perf.version.text);
	rc = untested_or_user_only(s);
	if (rc == 0)
		rc = collector_decide(s, true, NULL);
	if (rc == 0)
		rc = offcpu_decide(s);
	return rc < 0 ? rc : probe_group(s, e); /* only when perf collects */
}

/* The collector the decision chose (stage "perf"): NULL when out of memory. */
static bool privileged_target(const struct run_state *s)
{
	for (size_t i = 0; i < s->degradations.n; i++)
		if (!strcmp(s->degradations.v[i].name, DEG_TARGET_PRIVILEGED))
			return true;
	return false;
}

static struct collector *chosen(struct run_state *s)
{
	/* the kernel keeps perf and the preload out of it (target-privileged) */
	if (privileged_target(s))
		return collector_bare__new();
	if (s->collect.collector == COLLECTOR_USE_PRELOAD)
		return collector_preload__new(s->collect.preload_lib);
	if (s->collect.sampling_blocked || !s->collect.caps.perf.present)
		return collector_bare__new();
	return collector_perf__new(&s->collect.caps.perf, s->collect.group, s->collect.stacks, s->collect.offcpu);
}

/* The pass's outcome into the Run's record of it. */
static void pass_times(struct run_pass *rp, const struct collect_pass *p)
{
	memcpy(rp->start, p->start, sizeof(rp->start));
	memcpy(rp->end, p->end, sizeof(rp->end));
	rp->duration_s = p->duration_s;
	rp->sampled = p->sampled;
	rp->script_ok = p->script_ok;
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

/* perf exited on its own before the application, which ran on and kept its
 * status (the fg-exec relay): say why samples stop, naming a full disk. */
static void collector_failed(struct run_state *s, const struct collect_pass *p)
{
	char msg[1024], space[512] = "";
	struct statvfs fs;
	if (p->collector_exit < 0)
		return;
	if (statvfs(p->dir, &fs) == 0 && (double)fs.f_bavail * (double)fs.f_frsize < 1048576.0)
		snprintf(space, sizeof(space), ": the file system holding %s is full (%.0f bytes "
			 "free), perf could not write its samples", p->dir,
			 (double)fs.f_bavail * (double)fs.f_frsize);
	snprintf(msg, sizeof(msg), "perf stopped recording and exited with %d while the "
		 "application ran on%s; the application's status is its own, the samples stop "
		 "where perf stopped (perf.data may be cut short)", p->collector_exit, space);
	run_state__degrade(s, DEG_CPU_COLLECTION_INTERRUPTED, msg,
			   space[0] ? "free space on that file system or choose another -o, then run "
				      "again"
				    : DEG_CPU_COLLECTION_INTERRUPTED_REMEDY);
}

/* Processes the application started and left running (a daemon): they run
 * on unmeasured after its end and are no part of the Run. */
static void outlived(struct run_state *s, const struct exec_result *res)
{
	char msg[512], comm[17] = {0};
	if (res->nr_survivors <= 0)
		return;
	memcpy(comm, res->survivor_comm, 16); /* shown escaped by the console */
	snprintf(msg, sizeof(msg), "%d process%s the application started outlived it and run%s "
		 "on (pid %d `%s`%s): measured only until the application ended, not waited "
		 "for, not stopped", res->nr_survivors, res->nr_survivors > 1 ? "es" : "",
		 res->nr_survivors > 1 ? "" : "s", res->survivor_pid, comm,
		 res->nr_survivors > 1 ? " and others" : "");
	run_state__degrade(s, DEG_APPLICATION_OUTLIVED, msg, DEG_APPLICATION_OUTLIVED_REMEDY);
}

/* Rank shims still writing when nunatak stopped waiting for them after the
 * launcher ended (exec_rank_split): their ranks are declared by the ingest
 * (ranks-missing names them); this says why. */
static void writers_left(struct run_state *s, const struct exec_result *res)
{
	if (!res->writers_unfinished)
		return;
	char msg[512], why[64];
	if (res->writers_unfinished == 2)
		snprintf(why, sizeof(why), "a second interrupt");
	else
		snprintf(why, sizeof(why), "%d s", RANK_WRITERS_WAIT_S);
	snprintf(msg, sizeof(msg), "rank shims were still writing their ranks' data when nunatak "
		 "stopped waiting for them (%s after the launcher ended): the ranks without "
		 "rank.json then are declared missing", why);
	run_state__degrade(s, DEG_RANK_COLLECTION_INTERRUPTED, msg,
			   "interrupt once and let nunatak finish: the shims write after the "
			   "launcher killed the ranks");
}

int stage_collect(struct run_state *s, struct err *e)
{
	/* HOOK(mpi): the rewritten launch, ranks collecting themselves
	 * (collect/mpi_ranks.c): one pass, as any other collector's. */
	if (s->launch.mpi && s->req->multi_pass)
		run_state__degrade(s, DEG_MULTI_PASS_UNAVAILABLE,
				   "--multi-pass does not apply to an MPI launch: one pass, each "
				   "rank sampling its own group",
				   "run one rank alone for the multi-pass counters");
	int rc;
	/* --multi-pass: the passes collector (0), or one pass after all (1,
	 * announced) */
	if (!s->launch.mpi && s->req->multi_pass && (rc = collect_passes(s, e)) < 0)
		return rc;
	struct exec_result res = {0};
	struct collect_pass p;
	rc = collect_pass__init(&p, s->rundir.collect_dir, 0, false);
	if (rc == 0 && s->launch.mpi && !(s->collect.coll = collector_for_ranks(s, e))) {
		collect_pass__release(&p);
		return e->errnum ? e->errnum : -ENOMEM;
	}
	if (rc == 0 && !s->collect.coll && !(s->collect.coll = chosen(s)))
		rc = -ENOMEM;
	if (rc == 0 && collector_is_perf(s->collect.coll) && !(s->collect.perf_data = xstrdup(p.perf_data)))
		rc = -ENOMEM;
	if (rc < 0) {
		collect_pass__release(&p);
		return err_set(e, rc, ERR_OOM, "out of memory");
	}
	/* A live perf Run names its kernel samples from kallsyms: read while
	 * perf starts, not after the application (attrib.h), in the same read
	 * as perf's own table when that is missing too (the first Run of a
	 * boot: /proc/kallsyms formatted once, not twice). Not under MPI:
	 * there the node's cores start the ranks. */
	if (rc == 0 && !s->replay && !s->launch.mpi && collector_is_perf(s->collect.coll) &&
	    !s->kprefetch)
		s->kprefetch = attrib_kernel_prefetch_tap(perf_kallsyms_tap(&s->collect.caps.perf.version));
	rc = collect_one_pass(s, &p, &res, e);
	/* Under MPI, once the launcher ended (the ranks' start, which the
	 * node's cores are for, long past): read beside the ranks' ingestion,
	 * on the second core, not after it (~7 ms of the finish, issue 27) */
	if (rc == 0 && !s->replay && s->launch.mpi && s->collect.caps.perf.present &&
	    !s->kprefetch)
		s->kprefetch = attrib_kernel_prefetch();
	if (collector_is_passes(s->collect.coll)) { /* unless pass 0's perf refused to start */
		passes_take(s);
		if (!(s->collect.perf_data = xstrdup(collector_passes__outcome(s->collect.coll, 0)->pass.perf_data)) &&
		    rc == 0)
			rc = err_oom(e); /* the regions meet pass 0's samples */
		exec_result__release(&res);
		collect_pass__release(&p);
		return rc;
	}
	if (rc == 0) {
		run_pass__take(&s->collect.passes[0], &res);
		s->exit_code = res.exit_code;
		collector_died(s, res.wrapper_signal);
		collector_failed(s, &p);
		outlived(s, &res);
		writers_left(s, &res);
		run_announce_outcome(s);
	}
	exec_result__release(&res);
	/* Replayed and recorded Runs go through perf script, the only output a
	 * corpus entry can serve; a live Run reads perf.data directly (faster) and
	 * falls back to perf script in the ingest stage. */
	bool perf_ran = p.sampled && s->collect.collector == COLLECTOR_USE_PERF;
	if (rc == 0 && perf_ran && (s->replay || s->req->record_entry)) {
		struct collect_env env;
		run_state__collect_env(s, &env);
		rc = collector__extract(s->collect.coll, &env, &p, e);
	}
	pass_times(&s->collect.passes[0], &p);
	collect_pass__release(&p);
	return rc;
}
