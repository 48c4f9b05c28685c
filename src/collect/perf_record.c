// SPDX-License-Identifier: BSD-3-Clause
/*
 * The perf collector (collect/collector.h): perf record around the
 * application, down a ladder of options when perf rejects them; perf script
 * and perf buildid-list into the pass's files; perf.data (live) or perf
 * script (replayed, recorded, DWARF stacks) into the pivot. Every process
 * goes through the executor in the order the corpus holds: perf record,
 * perf script, perf buildid-list.
 */
#include "collect/collector.h"
#include "collect/perf_kallsyms.h"
#include "collect/perf_exit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/stacks.h"
#include "doctor/offcpu.h"
#include "common/alloc.h"
#include "common/argv.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "exec/exec.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "ingest/perf_data.h"
#include "ingest/perf_script.h"
#include "tools/perf.h"

/* perf script text of a long run can be large; it is read whole for now. */
#define MAX_SCRIPT_BYTES ((size_t)16 << 30)

struct perf_collector {
	struct collector base;
	const struct perf_tool *perf;
	const struct counter_group *group; /* asked, then accepted */
	int stacks;                        /* enum stacks_mode: asked, then accepted */
	int offcpu;                        /* enum offcpu_mechanism: asked */
	char refusal[160];                 /* why perf refused to start (launch returned 1) */
};

static struct perf_collector *of(const struct collector *c)
{
	return (struct perf_collector *)c;
}

/* The ladder's rungs, as the options they keep. perf's refusal does not say
 * which option it refused (its stderr is the application's), so each option
 * is dropped alone first - the counter group, the likeliest (an event this
 * PMU lacks), then the call stacks, -k CLOCK_MONOTONIC, the context
 * switches' stacks, the context switches - and the rung perf accepts keeps
 * every other; then the same without the switches' stacks, then one option
 * alone, then nothing. A rung already tried (an
 * option that was not asked for) is skipped. */
#define KEEP_GROUP 1
#define KEEP_STACKS 2
#define KEEP_CLOCK 4
#define KEEP_SWITCH 8
#define KEEP_OFFSTACKS 16
#define KEEP_ALL (KEEP_GROUP | KEEP_STACKS | KEEP_CLOCK | KEEP_SWITCH | KEEP_OFFSTACKS)
#define KEEP_NO_TP (KEEP_ALL & ~KEEP_OFFSTACKS)
static const int rungs[] = {KEEP_ALL,
			    KEEP_ALL & ~KEEP_GROUP, KEEP_ALL & ~KEEP_STACKS, KEEP_ALL & ~KEEP_CLOCK,
			    KEEP_NO_TP, KEEP_ALL & ~KEEP_SWITCH,
			    KEEP_NO_TP & ~KEEP_GROUP, KEEP_NO_TP & ~KEEP_STACKS,
			    KEEP_NO_TP & ~KEEP_CLOCK, KEEP_NO_TP & ~KEEP_SWITCH,
			    KEEP_CLOCK, KEEP_STACKS, KEEP_GROUP, KEEP_SWITCH, 0};

static int keep_mask(const struct perf_record_opts *o)
{
	return (o->group ? KEEP_GROUP : 0) | (o->call_graph ? KEEP_STACKS : 0) |
	       (o->clock_monotonic ? KEEP_CLOCK : 0) | (o->switch_events ? KEEP_SWITCH : 0) |
	       (o->offcpu_stacks ? KEEP_OFFSTACKS : 0);
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
		o->switch_events = m & KEEP_SWITCH;
		o->offcpu_stacks = m & KEEP_OFFSTACKS;
		return true;
	}
	return false;
}

/* What the accepted rung lacks, announced once perf started. */
static void announce_rung(struct perf_collector *pc, const struct collect_env *env,
			  const struct perf_record_opts *full, const struct perf_record_opts *o)
{
	if (full->group && !o->group) {
		env->degrade(env->run, DEG_COUNTER_EVENTS_REJECTED,
			     "perf rejected the counter group; sampling time only",
			     "check `perf list` for the events of this CPU");
		pc->group = NULL;
	}
	if (full->call_graph && !o->call_graph) {
		char msg[120];
		snprintf(msg, sizeof(msg), "perf rejected --call-graph %s: no call stacks",
			 full->call_graph);
		env->degrade(env->run, DEG_CALL_STACKS_REJECTED, msg, DEG_CALL_STACKS_REJECTED_REMEDY);
		pc->stacks = 0;
	}
	if (full->switch_events && !o->switch_events)
		env->degrade(env->run, DEG_OFFCPU_UNATTRIBUTED,
			     "perf rejected --switch-events: no per-thread wall, CPU and "
			     "off-CPU time (the application's wall time only)",
			     "check `perf record --switch-events -- true` on this machine");
	else if (full->offcpu_stacks && !o->offcpu_stacks)
		env->degrade(env->run, DEG_OFFCPU_UNATTRIBUTED,
			     "perf rejected -e " OFFCPU_STACK_EVENT ": off-CPU time per "
			     "thread, not attributed to functions",
			     "check `perf record -e " OFFCPU_STACK_EVENT " -- true` on this "
			     "machine");
	if (full->clock_monotonic && !o->clock_monotonic)
		env->degrade(env->run, DEG_MONOTONIC_CLOCK_REJECTED,
			     "perf rejected -k CLOCK_MONOTONIC: samples and region traces do "
			     "not share one timeline",
			     DEG_MONOTONIC_CLOCK_REJECTED_REMEDY);
}

/* perf record refused the full options: does it record at all? A minimal
 * `perf record -e task-clock -- true` tells a refusal of perf itself
 * (perf_event_paranoid, a container without perf_event_open) from a
 * refusal of one option, so the ladder does not blame the counter group
 * for a permission. Its stderr is ours to read: the application is `true`. */
static bool records_at_all(const struct perf_collector *pc, const struct collect_env *env,
			   char *why, size_t cap)
{
	char *out = xasprintf("%s/.perf-probe.data", env->collect_dir);
	char **argv = out ? perf_argv_record_probe(pc->perf->path, out) : NULL;
	struct exec_request rq = {.argv = (const char *const *)argv, .capture_stdout = true,
				  .capture_stderr = true, .timeout_s = 60};
	struct exec_result res = {0};
	struct err e = {0};
	bool ok = true;
	if (argv && executor__run(env->x, &rq, &res, &e) == 0 && res.exit_code != 0) {
		ok = false;
		const char *err = res.err ? res.err : "";
		bool perm = strstr(err, "paranoid") || strstr(err, "Permission denied") ||
			    strstr(err, "Access to performance monitoring");
		snprintf(why, cap, "perf record cannot sample here (exit %d%s)", res.exit_code,
			 perm ? ": perf_event_paranoid or missing CAP_PERFMON" : "");
	}
	exec_result__release(&res);
	perf_argv__free(argv);
	if (out)
		unlink(out);
	xfree(out);
	return ok;
}

/* One perf record around the application. As root, perf reads the boot's
 * kallsyms table in a mount namespace of its own (collect/perf_kallsyms.h:
 * ~110 ms of the kernel formatting /proc/kallsyms four times less before
 * the application starts): for the perf whose readers were checked (6.1),
 * with fg-exec before the application (it brings it back to ours), never
 * under replay (nothing runs). */
static int launch_once(const struct perf_collector *pc, const struct collect_env *env,
		       struct collect_pass *p, char *const *argv, struct exec_result *res,
		       struct err *e)
{
	const struct perf_version *v = &pc->perf->version;
	char *table = geteuid() == 0 && v->major == 6 && v->minor == 1 &&
			      !collect_env_preloads(env->env_set) &&
			      !executor__recorded_meta(env->x)
			      ? perf_kallsyms_table()
			      : NULL;
	struct perf_kallsyms ns = {.ns_fd = -1, .cwd_fd = -1};
	if (table && perf_kallsyms_enter(&ns, table) == 0)
		p->return_ns = ns.word;
	int rc = collect_run_app(env, p, argv, p->perf_data, res, e);
	p->return_ns = NULL;
	perf_kallsyms_leave(&ns); /* nunatak back in its own namespace */
	xfree(table);
	return rc;
}

/* perf record, stepping down the ladder when perf rejects its options: it
 * fails fast, before starting the application, so the application still
 * runs once. Returns 1 when perf cannot record at all (pc->refusal says
 * why; the application has not run). */
static int perf_launch(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       struct exec_result *res, struct err *e)
{
	struct perf_collector *pc = of(c);
	struct perf_record_opts o = {.perf = pc->perf->path, .freq = env->freq,
				     .clock_monotonic = true, .group = pc->group,
				     .call_graph = pc->stacks == STACKS_DWARF ? STACKS_DWARF_CALL_GRAPH
						   : pc->stacks ? stacks_mode__name(pc->stacks) : NULL,
				     .output = p->perf_data,
				     .no_bpf_event = perf_version__at_least(&pc->perf->version, 5, 1),
				     .switch_events = pc->offcpu >= OFFCPU_SWITCHES,
				     .offcpu_stacks = pc->offcpu >= OFFCPU_STACKS};
	const struct perf_record_opts full = o;
	size_t rung = 0;
	unsigned tried = 0;
	for (;;) {
		char **argv = perf_argv_record(&o, env->app);
		char *shown = argv ? argv_join((const char *const *)env->app) : NULL;
		if (!argv || !shown) {
			perf_argv__free(argv);
			xfree(shown);
			return err_oom(e);
		}
		if (p->label)
			console__info(env->con, "collecting with perf %s [%s]: %s",
				      pc->perf->version.text, p->label, shown);
		else
			console__info(env->con, "collecting with perf %s: %s", pc->perf->version.text,
				      shown);
		xfree(shown);
		unlink(p->perf_data);
		memset(res, 0, sizeof(*res));
		int rc = launch_once(pc, env, p, argv, res, e);
		perf_argv__free(argv);
		if (rc < 0)
			return rc;
		/* Whether perf.data was written crosses the execution boundary, so
		 * a replay steps down the ladder exactly where the recording did. */
		if (!perf_record_rejected(res->exit_code, res->output_written)) {
			announce_rung(pc, env, &full, &o);
			p->sampled = true;
			return 0;
		}
		int perf_code = res->exit_code;
		exec_result__release(res);
		p->launched = false;
		if (!step_down(&full, &o, &rung, &tried)) {
			/* A minimal record says whether perf itself is refused (a
			 * permission) rather than one of our options. */
			pc->refusal[0] = '\0';
			if (records_at_all(pc, env, pc->refusal, sizeof(pc->refusal)))
				snprintf(pc->refusal, sizeof(pc->refusal),
					 "perf record failed before starting the application "
					 "(exit %d)", perf_code);
			return 1;
		}
	}
}

static int perf_extract(struct collector *c, const struct collect_env *env, struct collect_pass *p,
			struct err *e)
{
	struct perf_collector *pc = of(c);
	bool dsoff = perf_version__at_least(&pc->perf->version, 6, 4);
	char **sargv = perf_argv_script(pc->perf->path, p->perf_data, dsoff);
	char **bargv = perf_argv_buildid_list(pc->perf->path, p->perf_data);
	int rc = sargv && bargv ? 0 : err_oom(e);
	struct exec_result res = {0};
	if (rc == 0) {
		struct exec_request rq = {.argv = (const char *const *)sargv,
					  .stdout_path = p->script_path, .capture_stderr = true};
		rc = executor__run(env->x, &rq, &res, e);
		/* A recording perf never finished (perf stopped early, or was
		 * killed) is not a version mismatch: another degradation says why. */
		bool cut = !perf_data_finished(p->perf_data);
		if (rc == 0 && res.exit_code != 0)
			env->degrade(env->run, DEG_PERF_SCRIPT_FAILED,
				     cut ? "perf script could not read the recording, which perf "
					   "never finished (cut short: perf stopped early or was "
					   "killed); no samples"
					 : "perf script could not read the recording; no samples",
				     cut ? "see why perf stopped (cpu-collection-interrupted) and run "
					   "again"
					 : "rerun with a perf matching this kernel");
		p->script_ok = rc == 0 && res.exit_code == 0;
		exec_result__release(&res);
	}
	if (rc == 0) {
		struct exec_request rq = {.argv = (const char *const *)bargv,
					  .stdout_path = p->buildid_path, .capture_stderr = true};
		rc = executor__run(env->x, &rq, &res, e);
		exec_result__release(&res);
	}
	perf_argv__free(sargv);
	perf_argv__free(bargv);
	return rc;
}

static void take_stats(const struct collect_env *env, struct ingest_stats *st,
		       struct collect_counts *out)
{
	out->nr_samples += (int64_t)st->nr_samples;
	out->nr_switches += (int64_t)st->nr_switch_outs;
	ingest_stats__degrade(st);
	for (size_t i = 0; i < st->degradations.n; i++)
		env->degrade(env->run, st->degradations.v[i].name, st->degradations.v[i].message,
			     st->degradations.v[i].remedy);
}

static int read_buildids(const struct collect_pass *p, struct buildid_list *l, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	if (fs_read_file(p->buildid_path, 64 << 20, &buf, &len) < 0)
		return 0; /* no build-ids: Hotspots keep no physical identity */
	int rc = buildid_list__parse(l, buf, len, e);
	xfree(buf);
	return rc;
}

static int ingest_script(const struct collect_env *env, const struct collect_pass *p,
			 const struct ingest_opts *o, struct pivot *pivot,
			 struct collect_counts *out, struct err *e)
{
	struct buildid_list ids;
	buildid_list__init(&ids);
	char *buf = NULL;
	size_t len = 0;
	int rc = read_buildids(p, &ids, e);
	if (rc == 0 && (rc = fs_read_file(p->script_path, MAX_SCRIPT_BYTES, &buf, &len)) < 0)
		err_set(e, rc, ERR_INGEST_READ, "%s: %s", p->script_path, strerror(-rc));
	struct ingest_opts o2 = *o;
	o2.build_ids = &ids;
	struct ingest_stats st = {0};
	if (rc == 0 && (rc = ingest_perf_script(buf, len, &o2, pivot, &st, e)) == 0)
		take_stats(env, &st, out);
	ingest_stats__release(&st);
	xfree(buf);
	buildid_list__release(&ids);
	return rc;
}

/* A live Run reads perf.data directly (faster), and falls back to perf
 * script; replayed and recorded Runs went through perf script (extract), the
 * only output a corpus entry can serve. DWARF stacks are unwound by perf
 * script (the perf.data reader keeps callchains, not copies of the stack). */
static int perf_ingest(struct collector *c, const struct collect_env *env, struct collect_pass *p,
		       const struct ingest_opts *o, struct pivot *pivot, struct collect_counts *out,
		       struct err *e)
{
	struct perf_collector *pc = of(c);
	if (!p->sampled)
		return 0;
	if (!env->replay && !env->recording && pc->stacks != STACKS_DWARF) {
		struct ingest_stats st = {0};
		struct err de = {0};
		int rc = ingest_perf_data_file(p->perf_data, o, pivot, &st, &de);
		if (rc == 0)
			take_stats(env, &st, out);
		ingest_stats__release(&st);
		if (rc == 0 || rc == -ENOMEM)
			return rc == 0 ? 0 : err_set(e, rc, ERR_OOM, "out of memory");
		console__debug(env->con, 1, "perf.data reader: %s; falling back to perf script",
			       de.msg);
		if ((rc = perf_extract(c, env, p, e)) < 0)
			return rc;
	} else if (!env->replay && !env->recording) {
		int rc = perf_extract(c, env, p, e);
		if (rc < 0)
			return rc;
	}
	return p->script_ok ? ingest_script(env, p, o, pivot, out, e) : 0;
}

static void perf_describe(const struct collector *c, char *buf, size_t cap)
{
	snprintf(buf, cap, "perf %s record", of(c)->perf->version.text);
}

static const char *perf_refusal(const struct collector *c)
{
	return of(c)->refusal;
}

static void perf_free(struct collector *c)
{
	xfree(c);
}

static const struct collector_ops perf_ops = {
	.name = "perf",
	.launch = perf_launch,
	.extract = perf_extract,
	.ingest = perf_ingest,
	.refusal = perf_refusal,
	.describe = perf_describe,
	.free = perf_free,
};

struct collector *collector_perf__new(const struct perf_tool *perf,
				      const struct counter_group *group, int stacks, int offcpu)
{
	struct perf_collector *pc = xcalloc(1, sizeof(*pc));
	if (!pc)
		return NULL;
	pc->base.ops = &perf_ops;
	pc->perf = perf;
	pc->group = group;
	pc->stacks = stacks;
	pc->offcpu = offcpu;
	return &pc->base;
}

const struct counter_group *collector_perf__group(const struct collector *c)
{
	return of(c)->group;
}

int collector_perf__stacks(const struct collector *c)
{
	return of(c)->stacks;
}

const char *collector_perf__refusal(const struct collector *c)
{
	return of(c)->refusal;
}

bool collector_is_perf(const struct collector *c)
{
	return c && c->ops == &perf_ops;
}
