// SPDX-License-Identifier: BSD-3-Clause
#include "report/time_view.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/threads.h"
#include "analysis/time_budget.h"
#include "common/alloc.h"
#include "common/text.h"
#include "ingest/switches.h"
#include "model/model.h"

#define R_NO_SWITCHES                                                                   \
	"no context-switch records in this Run (perf did not collect, refused "            \
	"--switch-events, or an older Run): `nunatak doctor` says which off-CPU mechanism " \
	"this machine gets"
#define CLOCK_LAUNCH "wall clock (nunatak's launch to exit, collector start-up included)"

static json_t *derived(double v, enum quality q, const char *reason, const char *clock,
		       const char *formula, const char *const *lineage)
{
	json_t *o = quality__json_clock(v, "ns", q, reason, clock);
	if (!o)
		return NULL;
	json_t *lin = json_array();
	for (size_t i = 0; lineage && lineage[i]; i++)
		json_array_append_new(lin, json_string(lineage[i]));
	json_object_set_new(o, "lineage", lin);
	json_object_set_new(o, "formula", formula ? json_string(formula) : json_null());
	return o;
}

static const char *const L_WALL[] = {TIME_WALL_COUNTER, NULL};
static const char *const L_CPU[] = {TIME_CPU_COUNTER, NULL};
static const char *const L_OFF[] = {TIME_OFFCPU_COUNTER, NULL};
static const char *const L_PRE[] = {TIME_PREEMPTED_COUNTER, NULL};
static const char *const L_UNST[] = {TIME_PREEMPTED_UNSTACKED_COUNTER, NULL};
#define R_UNSTACKED                                                                     \
	"sum over threads of the preempted intervals that began with no call stack: a "    \
	"switch-out by sched_yield or a preemption of user code, which take none by design " \
	"(stacks of blocking switch-outs only)"

static const char *mechanism(const struct time_budget *tb, const struct launch_time *lt)
{
	if (tb->available && tb->blocking_stacks)
		return "context switches + blocking switch-outs' call stacks";
	if (tb->available)
		return tb->have_stacks ? "context switches + their call stacks"
				       : "context switches";
	return lt && lt->cpu_s >= 0 ? "process rusage" : "none";
}

static json_t *locus_row(const struct time_budget *tb, const struct pivot *p,
			 const struct locus_time *t)
{
	const struct locus *l = &p->loci[t->locus];
	json_t *o = json_pack("{s:s?, s:i, s:I, s:I, s:s?}", "node", l->node, "rank", l->rank,
			      "thread", (json_int_t)l->thread, "pid", (json_int_t)l->pid, "name",
			      l->name);
	if (!o)
		return NULL;
	if (tb->ranks) /* an MPI runtime helper thread: outside the totals */
		json_object_set_new(o, "helper", json_boolean(t->helper));
	json_object_set_new(o, "wall_ns", derived(t->wall_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
						  "exit - start of the thread", L_WALL));
	json_object_set_new(o, "cpu_ns", derived(t->cpu_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
						 "wall_ns - offcpu_ns", L_CPU));
	json_object_set_new(o, "offcpu_ns",
			    derived(t->offcpu_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
				    "sum of (switch in - switch out)", L_OFF));
	json_object_set_new(o, "preempted_ns",
			    derived(t->preempted_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
				    "off-CPU intervals that began with a preemption", L_PRE));
	return o;
}

/* Without context switches: the launch's wall time and wait4's CPU time,
 * off-CPU = wall - CPU at the process level (exact for one thread; several
 * threads on the CPU at once make it unavailable). */
struct process_budget {
	double wall_ns, cpu_ns, off_ns;
	enum quality wq, cq, oq;
	const char *wr, *cr, *offr;
};

#define R_LAUNCH "the launch's duration: the collector's start-up and exit included"
#define R_COLLECTOR "wait4 rusage of perf record, whose own CPU time is included"
#define R_PROCESS "process level (wait4 rusage): wall - CPU of all threads, exact for a " \
		  "single-threaded program, not split per thread without context switches"
#define R_THREADS "several threads were on the CPU at once (CPU time > wall time): " \
		  "off-CPU time needs the per-thread context switches"
#define CLOCK_RUSAGE "CPU time (wait4 rusage)"

static void process_budget(const struct launch_time *lt, struct process_budget *b)
{
	bool w = lt && isfinite(lt->wall_s) && lt->wall_s > 0, c = lt && lt->cpu_s >= 0;
	b->wall_ns = w ? lt->wall_s * 1e9 : NAN;
	b->wq = w ? QUALITY_ESTIMATED : QUALITY_UNAVAILABLE;
	b->wr = w ? R_LAUNCH : "no duration recorded (a replay, an older Run)";
	b->cpu_ns = c ? lt->cpu_s * 1e9 : NAN;
	b->cq = !c ? QUALITY_UNAVAILABLE : lt->cpu_includes_collector ? QUALITY_ESTIMATED
								       : QUALITY_MEASURED;
	b->cr = !c ? R_NO_SWITCHES : lt->cpu_includes_collector ? R_COLLECTOR : NULL;
	bool o = w && c && b->cpu_ns <= b->wall_ns;
	b->off_ns = o ? b->wall_ns - b->cpu_ns : NAN;
	b->oq = o ? QUALITY_ESTIMATED : QUALITY_UNAVAILABLE;
	b->offr = o ? R_PROCESS : w && c ? R_THREADS : R_NO_SWITCHES;
}

#define R_RANK_THREADS                                                                    \
	"perf stat counts the rank it launches as a whole (per-thread counts need an attach " \
	"by thread id) and the rank's threads are gone from /proc when it ends: a "           \
	"counting-only rank's time is per rank, never per thread"
#define R_RANK_OFF "process level: the rank's wall time - the CPU time of all its threads, " \
		   "exact for a single-threaded rank (" R_RANK_THREADS ")"
#define R_RANK_OFF_THREADS                                                                \
	"the rank's threads were on the CPU longer than it lived (several at once): off-CPU " \
	"time needs the per-thread context switches of a sampled rank"
#define R_RANK_NO_WALL "no duration_time in this rank's perf stat (a Run older than it)"

#define COUNTED_PAYLOAD_MAX 64
#define COUNTED_RULE                                                                        \
	"beyond 64 counting-only ranks the payload lists the first 32 and the 32 others with " \
	"the largest off-CPU share of their wall time; the pivot keeps every rank's counts"

/* The off-CPU share of a counted rank's wall time, -1 when unavailable. */
static double counted_off_share(const struct rank_time *r)
{
	return isfinite(r->wall_ns) && isfinite(r->cpu_ns) && r->cpu_ns <= r->wall_ns &&
			       r->wall_ns > 0
		       ? (r->wall_ns - r->cpu_ns) / r->wall_ns
		       : -1;
}

/* Which counted ranks the payload lists (keep[i]): all up to
 * COUNTED_PAYLOAD_MAX; beyond, the first COUNTED_PAYLOAD_MAX / 2 and the
 * COUNTED_PAYLOAD_MAX / 2 others with the largest off-CPU share (the
 * outliers), so a 4096-rank page stays small. Returns how many. */
static size_t counted_keep(const struct time_budget *tb, bool *keep)
{
	size_t n = tb->nr_counted, kept = 0;
	for (size_t i = 0; i < n; i++)
		keep[i] = n <= COUNTED_PAYLOAD_MAX || i < COUNTED_PAYLOAD_MAX / 2;
	for (size_t i = 0; i < n; i++)
		kept += keep[i];
	while (kept < COUNTED_PAYLOAD_MAX && kept < n) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (!keep[i] && (best == n || counted_off_share(&tb->counted[i]) >
							  counted_off_share(&tb->counted[best])))
				best = i;
		keep[best] = true;
		kept++;
	}
	return kept;
}

/* Counting-only ranks (beyond the sampling threshold): their process-level
 * time, from their perf stat (those counted_keep chooses). */
static json_t *counted_rows(const struct time_budget *tb, const struct pivot *p)
{
	static const char *const L_DUR[] = {"duration_time", NULL};
	static const char *const L_TC[] = {"task-clock", NULL};
	static const char *const L_BOTH[] = {"duration_time", "task-clock", NULL};
	json_t *a = json_array();
	bool *keep = xcalloc(tb->nr_counted + 1, sizeof(bool));
	if (!keep) {
		json_decref(a);
		return json_array();
	}
	counted_keep(tb, keep);
	for (size_t i = 0; a && i < tb->nr_counted; i++) {
		const struct rank_time *r = &tb->counted[i];
		if (!keep[i])
			continue;
		const struct locus *l = &p->loci[r->locus];
		bool w = isfinite(r->wall_ns), c = isfinite(r->cpu_ns);
		bool o = w && c && r->cpu_ns <= r->wall_ns;
		json_t *row = json_pack("{s:s?, s:i, s:n, s:s}", "node", l->node, "rank", l->rank,
					"threads", "threads_reason", R_RANK_THREADS);
		if (!row)
			continue;
		json_object_set_new(row, "wall_ns",
				    derived(r->wall_ns, w ? QUALITY_MEASURED : QUALITY_UNAVAILABLE,
					    w ? NULL : R_RANK_NO_WALL, "perf stat duration_time",
					    "the rank's duration (perf stat)", L_DUR));
		json_object_set_new(row, "cpu_ns",
				    derived(r->cpu_ns, c ? QUALITY_MEASURED : QUALITY_UNAVAILABLE,
					    c ? NULL : "no task-clock in this rank's perf stat",
					    "perf stat task-clock", "sum over the rank's threads", L_TC));
		json_object_set_new(row, "offcpu_ns",
				    derived(o ? r->wall_ns - r->cpu_ns : NAN,
					    o ? QUALITY_ESTIMATED : QUALITY_UNAVAILABLE,
					    o ? R_RANK_OFF : !w ? R_RANK_NO_WALL : R_RANK_OFF_THREADS,
					    "perf stat duration_time", "wall_ns - cpu_ns", L_BOTH));
		json_array_append_new(a, row);
	}
	xfree(keep);
	return a ? a : json_array();
}

/* Under MPI the totals are the application's threads' (helpers apart). */
#define OVER_THREADS(ranks, op, what) \
	((ranks) ? op " over application threads (loci[] not helper) of " what \
		 : op " over threads of " what)

/* The MPI runtime's helper threads (analysis/threads.h): their time summed
 * apart, the rule that set them aside, their own off-CPU Hotspots. */
static json_t *helpers_payload(const struct time_budget *tb)
{
	const struct helper_time *h = &tb->helpers;
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:s}", "count", (json_int_t)h->threads,
			      "ranks", (json_int_t)h->ranks, "per_rank_min",
			      (json_int_t)h->min_per_rank, "per_rank_max",
			      (json_int_t)h->max_per_rank, "rule", THREADS_HELPER_RULE);
	if (!o)
		return NULL;
	bool any = h->threads > 0;
	const char *why = any ? NULL : "no MPI runtime helper thread in this Run";
	enum quality q = any ? QUALITY_MEASURED : QUALITY_UNAVAILABLE;
	json_object_set_new(o, "thread_time_ns",
			    derived(any ? h->wall_ns : NAN, q, why, CLOCK_SWITCHES,
				    "sum over helper threads of wall_ns", L_WALL));
	json_object_set_new(o, "cpu_ns", derived(any ? h->cpu_ns : NAN, q, why, CLOCK_SWITCHES,
						 "sum over helper threads of cpu_ns", L_CPU));
	json_object_set_new(o, "offcpu_ns",
			    derived(any ? h->offcpu_ns : NAN, q, why, CLOCK_SWITCHES,
				    "sum over helper threads of offcpu_ns", L_OFF));
	json_object_set_new(o, "preempted_ns",
			    derived(any ? h->preempted_ns : NAN, q, why, CLOCK_SWITCHES,
				    "sum over helper threads of preempted_ns", L_PRE));
	json_t *hot = json_array();
	for (size_t i = 0; hot && i < h->nr_hot && i < 5; i++) {
		const struct offcpu_hotspot *x = &h->hot[i];
		json_t *row = json_pack("{s:s, s:s, s:I}", "name", x->name, "cause", x->cause,
					"intervals", (json_int_t)x->intervals);
		if (row)
			json_object_set_new(row, "time_ns",
					    derived(x->time_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
						    "sum of the helper threads' off-CPU intervals "
						    "that followed a switch out in this stack", L_OFF));
		json_array_append_new(hot, row);
	}
	json_object_set_new(o, "offcpu_hotspots", hot ? hot : json_array());
	return o;
}

json_t *time_view_payload(const struct time_budget *tb, const struct pivot *p,
			  const struct launch_time *lt)
{
	json_t *o = json_pack("{s:s}", "mechanism", mechanism(tb, lt));
	if (!o)
		return NULL;
	if (tb->available) {
		bool r = tb->ranks;
		json_object_set_new(o, "wall_ns", derived(tb->wall_ns, QUALITY_MEASURED, NULL,
							  CLOCK_SWITCHES,
							  OVER_THREADS(r, "max", "wall_ns"), L_WALL));
		json_object_set_new(o, "cpu_ns", derived(tb->cpu_ns, QUALITY_MEASURED, NULL,
							 CLOCK_SWITCHES,
							 OVER_THREADS(r, "sum", "cpu_ns"), L_CPU));
		json_object_set_new(o, "offcpu_ns",
				    derived(tb->offcpu_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
					    OVER_THREADS(r, "sum", "(wall_ns - cpu_ns)"), L_OFF));
		json_object_set_new(o, "preempted_ns",
				    derived(tb->preempted_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
					    OVER_THREADS(r, "sum", "preempted_ns"), L_PRE));
		if (tb->blocking_stacks)
			json_object_set_new(o, "preempted_unstacked_ns",
					    derived(tb->unstacked_ns, QUALITY_MEASURED, NULL,
						    CLOCK_SWITCHES, R_UNSTACKED, L_UNST));
	} else {
		static const char *const L_D[] = {"passes[0].duration_s", NULL};
		static const char *const L_R[] = {"passes[0].cpu_user_s", "passes[0].cpu_sys_s", NULL};
		static const char *const L_DR[] = {"passes[0].duration_s", "passes[0].cpu_user_s",
						   "passes[0].cpu_sys_s", NULL};
		struct process_budget b;
		process_budget(lt, &b);
		json_object_set_new(o, "wall_ns", derived(b.wall_ns, b.wq, b.wr, CLOCK_LAUNCH,
							  "duration_s", L_D));
		json_object_set_new(o, "cpu_ns", derived(b.cpu_ns, b.cq, b.cr, CLOCK_RUSAGE,
							 "cpu_user_s + cpu_sys_s", L_R));
		json_object_set_new(o, "offcpu_ns", derived(b.off_ns, b.oq, b.offr, CLOCK_LAUNCH,
							    "wall_ns - cpu_ns", L_DR));
		json_object_set_new(o, "preempted_ns", derived(NAN, QUALITY_UNAVAILABLE,
							       R_NO_SWITCHES, NULL, NULL, NULL));
	}
	json_t *rows = json_array();
	for (size_t i = 0; rows && i < tb->nr_loci; i++)
		json_array_append_new(rows, locus_row(tb, p, &tb->loci[i]));
	json_object_set_new(o, "loci", rows ? rows : json_array());
	if (tb->ranks && tb->available) { /* without switches: no thread budget to split */
		json_object_set_new(o, "application_threads", json_integer((json_int_t)tb->nr_app));
		json_object_set_new(o, "helper_threads", helpers_payload(tb));
	}
	json_object_set_new(o, "counted_ranks", counted_rows(tb, p));
	json_object_set_new(o, "counted_ranks_total", json_integer((json_int_t)tb->nr_counted));
	if (tb->nr_counted > COUNTED_PAYLOAD_MAX)
		json_object_set_new(o, "counted_ranks_rule", json_string(COUNTED_RULE));
	return o;
}

json_t *time_view_offcpu_payload(const struct time_budget *tb)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < tb->nr_hot; i++) {
		const struct offcpu_hotspot *h = &tb->hot[i];
		double share = tb->offcpu_ns > 0 ? h->time_ns / tb->offcpu_ns : NAN;
		json_t *row = json_pack("{s:s, s:s, s:I, s:b}", "name", h->name, "cause", h->cause,
					"intervals", (json_int_t)h->intervals, "attributed",
					h->attributed);
		if (!row)
			continue;
		json_object_set_new(row, "time_ns",
				    derived(h->time_ns, QUALITY_MEASURED, NULL, CLOCK_SWITCHES,
					    h->attributed ? "sum of the off-CPU intervals that "
							    "followed a switch out in this stack"
							  : "off-CPU time not attributed to a stack",
					    L_OFF));
		json_object_set_new(row, "share",
				    quality__json(share, "ratio of off-CPU time",
						  isfinite(share) ? QUALITY_MEASURED : QUALITY_UNAVAILABLE,
						  isfinite(share) ? NULL : "no off-CPU time"));
		json_array_append_new(arr, row);
	}
	return arr;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

#define COUNTED_LINES 4

/* One line per counting-only rank (the first COUNTED_LINES). */
static void counted_lines(const struct time_budget *tb, const struct pivot *p,
			  struct text_lines *out)
{
	if (!tb->nr_counted)
		return;
	text_lines__add(out, "time of the %zu counting-only rank%s (perf stat): per rank, not per "
			     "thread (perf stat counts the rank it launches as a whole, and its "
			     "threads are gone from /proc when it ends)",
			tb->nr_counted, tb->nr_counted == 1 ? "" : "s");
	for (size_t i = 0; i < tb->nr_counted && i < COUNTED_LINES; i++) {
		const struct rank_time *r = &tb->counted[i];
		int rank = p && r->locus >= 0 && (size_t)r->locus < p->nr_loci ? p->loci[r->locus].rank
									   : -1;
		if (isfinite(r->wall_ns) && isfinite(r->cpu_ns) && r->cpu_ns <= r->wall_ns)
			text_lines__add(out, "  rank %d: wall %.3g s; on CPU %.3g s (%.1f%% of wall "
					     "time), off CPU %.3g s (estimated: wall - CPU of all its "
					     "threads, exact for one thread)",
					rank, r->wall_ns * 1e-9, r->cpu_ns * 1e-9,
					pct(r->cpu_ns, r->wall_ns), (r->wall_ns - r->cpu_ns) * 1e-9);
		else if (isfinite(r->wall_ns) && isfinite(r->cpu_ns))
			text_lines__add(out, "  rank %d: wall %.3g s; CPU %.3g s over several threads; "
					     "off-CPU time unavailable (%s)",
					rank, r->wall_ns * 1e-9, r->cpu_ns * 1e-9, R_RANK_OFF_THREADS);
		else if (isfinite(r->cpu_ns))
			text_lines__add(out, "  rank %d: CPU %.3g s; wall and off-CPU time unavailable "
					     "(%s)", rank, r->cpu_ns * 1e-9, R_RANK_NO_WALL);
	}
	if (tb->nr_counted > COUNTED_LINES)
		text_lines__add(out, "  ... and %zu more in the payload (time_budget.counted_ranks)",
				tb->nr_counted - COUNTED_LINES);
}

static int budget_lines(const struct time_budget *tb, const struct launch_time *lt,
			struct text_lines *out);

/* "  8 MPI runtime helper threads (2 per rank): ...; not counted above". */
static void helper_line(const struct time_budget *tb, struct text_lines *out)
{
	const struct helper_time *h = &tb->helpers;
	if (!h->threads)
		return;
	char per[64], where[320] = "";
	if (h->min_per_rank == h->max_per_rank)
		snprintf(per, sizeof(per), "%zu per rank", h->min_per_rank);
	else
		snprintf(per, sizeof(per), "%zu to %zu per rank over %zu ranks", h->min_per_rank,
			 h->max_per_rank, h->ranks);
	const struct offcpu_hotspot *top = h->nr_hot ? &h->hot[0] : NULL;
	if (top && top->attributed)
		snprintf(where, sizeof(where), ", blocked mostly in `%.200s` (%s, %.1f%% of their "
					       "off-CPU time)",
			 top->name, top->cause, pct(top->time_ns, h->offcpu_ns));
	text_lines__add(out, "  %zu MPI runtime helper thread%s (%s: progress, event loops): %.3g "
			     "thread-s, on CPU %.3g s, off CPU %.3g s (%.1f%% of their thread time)%s; not "
			     "counted above",
			h->threads, h->threads == 1 ? "" : "s", per, h->wall_ns * 1e-9,
			h->cpu_ns * 1e-9, h->offcpu_ns * 1e-9, pct(h->offcpu_ns, h->wall_ns), where);
}

/* "  on CPU by thread: 30153 xz 24.1 s, 30152 xz 17.3 s, ...": the
 * application's busiest threads, each with its tid and name (rank first
 * under MPI), so the page's threads table can be told apart here too. */
#define THREAD_LINE_MAX 6
static void thread_line(const struct time_budget *tb, const struct pivot *p,
			struct text_lines *out)
{
	const struct locus_time *top[THREAD_LINE_MAX];
	size_t n = 0;
	for (size_t i = 0; tb->available && tb->nr_app > 1 && i < tb->nr_loci; i++) {
		const struct locus_time *t = &tb->loci[i];
		if (t->helper)
			continue;
		size_t k = n < THREAD_LINE_MAX ? n++ : THREAD_LINE_MAX;
		for (; k > 0 && top[k - 1]->cpu_ns < t->cpu_ns; k--)
			if (k < THREAD_LINE_MAX)
				top[k] = top[k - 1];
		if (k < THREAD_LINE_MAX)
			top[k] = t;
	}
	if (n < 2)
		return;
	char line[THREAD_LINE_MAX * 128 + 32] = "  on CPU by thread:";
	size_t w = strlen(line);
	for (size_t i = 0; i < n && w < sizeof(line); i++) {
		const struct locus *l = &p->loci[top[i]->locus];
		char rank[24] = "";
		if (l->rank >= 0)
			snprintf(rank, sizeof(rank), "rank %d ", l->rank);
		w += (size_t)snprintf(line + w, sizeof(line) - w, "%s %s%lld%s%s %.3g s",
				      i ? "," : "", rank, (long long)l->thread, l->name ? " " : "",
				      l->name ? l->name : "", top[i]->cpu_ns * 1e-9);
	}
	if (tb->nr_app > n)
		text_lines__add(out, "%s; %zu more thread%s in the report", line, tb->nr_app - n,
				tb->nr_app - n == 1 ? "" : "s");
	else
		text_lines__add(out, "%s", line);
}

int time_view_lines(const struct time_budget *tb, const struct launch_time *lt,
		    const struct pivot *p, struct text_lines *out)
{
	int rc = budget_lines(tb, lt, out);
	thread_line(tb, p, out);
	counted_lines(tb, p, out);
	return rc < 0 || out->failed ? -1 : 0;
}

static int budget_lines(const struct time_budget *tb, const struct launch_time *lt,
			struct text_lines *out)
{
	if (!tb->available) {
		struct process_budget b;
		process_budget(lt, &b);
		if (isfinite(b.wall_ns) && isfinite(b.off_ns))
			text_lines__add(out, "time: wall %.3g s; on CPU %.3g s (%.1f%% of wall time), "
					     "off CPU %.3g s (%.1f%% of wall time) - estimated, process "
					     "level (wait4 rusage%s): not per thread, not attributed",
					b.wall_ns * 1e-9, b.cpu_ns * 1e-9, pct(b.cpu_ns, b.wall_ns),
					b.off_ns * 1e-9, pct(b.off_ns, b.wall_ns),
					lt->cpu_includes_collector ? ", perf's own CPU time included" : "");
		else if (isfinite(b.wall_ns) && isfinite(b.cpu_ns))
			text_lines__add(out, "time: wall %.3g s; CPU %.3g s over several threads "
					     "(wait4 rusage); off-CPU time unavailable: %s",
					b.wall_ns * 1e-9, b.cpu_ns * 1e-9, R_THREADS);
		else if (isfinite(b.wall_ns))
			text_lines__add(out, "time: wall %.3g s (estimated: the launch's duration); CPU "
					     "and off-CPU time per thread unavailable: %s",
					b.wall_ns * 1e-9, R_NO_SWITCHES);
		return out->failed ? -1 : 0;
	}
	double wall = tb->wall_ns * 1e-9, cpu = tb->cpu_ns * 1e-9, off = tb->offcpu_ns * 1e-9;
	if (tb->nr_app == 1)
		text_lines__add(out, "time: wall %.3g s; on CPU %.3g s (%.1f%% of wall time), off CPU "
				     "%.3g s (%.1f%% of wall time: %.3g s blocked, %.3g s preempted) - "
				     "measured, kernel context switches",
				wall, cpu, pct(cpu, wall), off, pct(off, wall),
				(tb->offcpu_ns - tb->preempted_ns) * 1e-9, tb->preempted_ns * 1e-9);
	else
		text_lines__add(out, "time: wall %.3g s over %zu %sthreads (%.3g thread-s); on CPU "
				     "%.3g s (%.1f%% of the threads' wall time), off CPU %.3g s "
				     "(%.1f%%: %.3g s blocked, %.3g s preempted) - measured, kernel "
				     "context switches",
				wall, tb->nr_app, tb->ranks ? "application " : "", (cpu + off), cpu,
				pct(cpu, cpu + off), off,
				pct(off, cpu + off), (tb->offcpu_ns - tb->preempted_ns) * 1e-9,
				tb->preempted_ns * 1e-9);
	size_t shown = 0;
	for (size_t i = 0; i < tb->nr_hot && shown < 3; i++) {
		const struct offcpu_hotspot *h = &tb->hot[i];
		if (!h->attributed)
			continue;
		text_lines__add(out, "  off CPU in `%s` (%s): %.3g s - %.1f%% of off-CPU time", h->name,
				h->cause, h->time_ns * 1e-9, pct(h->time_ns, tb->offcpu_ns));
		shown++;
	}
	if (tb->blocking_stacks && tb->unstacked_ns > 0)
		text_lines__add(out, "  %.3g s of the preempted time after sched_yield or a preemption "
				     "of user code: no call stack taken, by design (stacks of "
				     "blocking switch-outs only: a stack at each yield would cost the "
				     "rank more than the yield itself)",
				tb->unstacked_ns * 1e-9);
	if (!tb->have_stacks && tb->offcpu_ns - tb->preempted_ns > 0)
		text_lines__add(out, "  off-CPU time not attributed to functions: no scheduler call "
				     "stacks in this Run (the degradation offcpu-unattributed says "
				     "why; `nunatak doctor`)");
	helper_line(tb, out);
	return out->failed ? -1 : 0;
}
