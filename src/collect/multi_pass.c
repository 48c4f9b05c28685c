// SPDX-License-Identifier: BSD-3-Clause
/* --multi-pass as a wrapper around the perf collector (collect/collector.h):
 * each pass of the plan (collect/passes.h) is its own perf collector and its
 * own collect_pass, which owns collect/pass-<i>/; the application runs once
 * per pass, and a pass that fails ends the passes (passes-skipped). */
#include "collect/collector.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/passes.h"
#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "ingest/aggregate.h"

struct passes_collector {
	struct collector base;
	const struct pass_plan *plan; /* borrowed */
	const struct perf_tool *perf; /* borrowed */
	int stacks, offcpu;
	struct collector *inner[PASSES_MAX];
	struct pass_outcome out[PASSES_MAX];
	char labels[PASSES_MAX][48];
	int nr;                /* outcomes filled: ran, or skipped */
	const char *refusal;   /* pass 0's perf refused to start: why (inner[0]'s) */
};

static const struct collector_ops passes_ops;

static struct passes_collector *of(const struct collector *c)
{
	return (struct passes_collector *)c;
}

static void skip_rest(struct passes_collector *m, const struct collect_env *env, int from)
{
	const struct pass_outcome *failed = &m->out[from - 1];
	int left = m->plan->nr - from;
	char msg[240];
	snprintf(msg, sizeof(msg),
		 "pass %d exited with %d%s: pass%s %d%s not run; their counters are unavailable",
		 from - 1, failed->res.exit_code, failed->res.term_signal ? " (killed)" : "",
		 left > 1 ? "es" : "", from, left > 1 ? " on" : "");
	env->degrade(env->run, DEG_PASSES_SKIPPED, msg, DEG_PASSES_SKIPPED_REMEDY);
	for (int k = from; k < m->plan->nr; k++)
		m->out[m->nr++] = (struct pass_outcome){.skipped = true, .res.exit_code = -1};
}

/* A later pass's perf refused to start (pass 0's did not): that pass runs
 * bare, said, and the passes go on. */
static int refused_later(struct passes_collector *m, const struct collect_env *env, int i,
			 struct exec_result *r, struct err *e)
{
	char msg[200];
	snprintf(msg, sizeof(msg), "pass %d: %s: no samples", i,
		 collector_perf__refusal(m->inner[i]));
	env->degrade(env->run, DEG_CPU_COLLECTION_FAILED, msg, DEG_CPU_COLLECTION_FAILED_REMEDY);
	collector__free(m->inner[i]);
	m->inner[i] = collector_bare__new();
	return m->inner[i] ? collector__launch(m->inner[i], env, &m->out[i].pass, r, e) : err_oom(e);
}

/* Pass i: its perf collector with the pass's counter group, its files,
 * the application once; perf script and buildid-list for a corpus entry. */
static int one_pass(struct passes_collector *m, const struct collect_env *env, int i,
		    struct err *e)
{
	struct pass_outcome *o = &m->out[i];
	m->nr = i + 1;
	int rc = collect_pass__init(&o->pass, env->collect_dir, i, true);
	if (rc < 0)
		return err_set(e, rc, ERR_RUN_CREATE, "cannot create %s/pass-%d", env->collect_dir, i);
	snprintf(m->labels[i], sizeof(m->labels[i]), "pass %d: %s", i, m->plan->labels[i]);
	o->pass.label = m->labels[i];
	m->inner[i] = collector_perf__new(m->perf, &m->plan->groups[i], m->stacks, m->offcpu);
	if (!m->inner[i])
		return err_oom(e);
	struct exec_result r = {0};
	rc = collector__launch(m->inner[i], env, &o->pass, &r, e);
	if (rc == 1 && i == 0) {
		m->refusal = collector_perf__refusal(m->inner[0]);
		return 1;
	}
	if (rc == 1)
		rc = refused_later(m, env, i, &r, e);
	if (collector_is_perf(m->inner[i])) { /* what the ladder kept */
		o->group = collector_perf__group(m->inner[i]);
		o->stacks = collector_perf__stacks(m->inner[i]);
	}
	o->counters = o->group != NULL;
	if (rc == 0 && o->pass.sampled && collector_is_perf(m->inner[i]) &&
	    (env->replay || env->recording))
		rc = collector__extract(m->inner[i], env, &o->pass, e);
	o->res = r;
	o->res.out = o->res.err = NULL; /* the scalars only */
	exec_result__release(&r);
	return rc;
}

static int passes_launch(struct collector *c, const struct collect_env *env,
			 struct collect_pass *p, struct exec_result *res, struct err *e)
{
	struct passes_collector *m = of(c);
	int rc = 0;
	for (int i = 0; rc == 0 && i < m->plan->nr; i++) {
		rc = one_pass(m, env, i, e);
		p->launched = p->launched || m->out[i].pass.launched;
		if (m->out[i].pass.launched) {
			if (!p->mono_start)
				p->mono_start = m->out[i].pass.mono_start;
			p->mono_end = m->out[i].pass.mono_end;
		}
		/* An interrupted pass ends the passes too, even one that the
		 * application's own SIGINT handler ended with exit 0. */
		const struct exec_result *r = &m->out[i].res;
		if (rc == 0 && (r->exit_code != 0 || r->term_signal || r->interrupted_by) &&
		    i + 1 < m->plan->nr) {
			skip_rest(m, env, i + 1);
			break;
		}
	}
	*res = m->out[0].res; /* the Run's outcome is pass 0's (no buffers) */
	return rc;
}

/* Each pass that sampled, from its own files, as pass_index i. */
static int passes_ingest(struct collector *c, const struct collect_env *env,
			 struct collect_pass *p, const struct ingest_opts *o, struct pivot *pivot,
			 struct collect_counts *out, struct err *e)
{
	(void)p;
	struct passes_collector *m = of(c);
	int rc = 0;
	for (int i = 0; rc == 0 && i < m->nr; i++) {
		if (m->out[i].skipped || !m->out[i].pass.sampled || !m->inner[i])
			continue;
		struct ingest_opts oi = *o;
		oi.pass_index = i;
		struct collect_counts n = {0};
		rc = collector__ingest(m->inner[i], env, &m->out[i].pass, &oi, pivot, &n, e);
		out->nr_samples += n.nr_samples;
		out->nr_switches += n.nr_switches;
	}
	return rc;
}

static const char *passes_refusal(const struct collector *c)
{
	return of(c)->refusal;
}

static void passes_free(struct collector *c)
{
	struct passes_collector *m = of(c);
	for (int i = 0; i < PASSES_MAX; i++) {
		collector__free(m->inner[i]);
		collect_pass__release(&m->out[i].pass);
	}
	xfree(m);
}

static const struct collector_ops passes_ops = {
	.name = "multi-pass", .launch = passes_launch, .ingest = passes_ingest,
	.refusal = passes_refusal, .free = passes_free};

struct collector *collector_passes__new(const struct pass_plan *plan,
					const struct perf_tool *perf, int stacks, int offcpu)
{
	struct passes_collector *m = xcalloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->base.ops = &passes_ops;
	m->plan = plan;
	m->perf = perf;
	m->stacks = stacks;
	m->offcpu = offcpu;
	return &m->base;
}

bool collector_is_passes(const struct collector *c)
{
	return c && c->ops == &passes_ops;
}

int collector_passes__nr(const struct collector *c)
{
	return of(c)->nr;
}

const struct pass_outcome *collector_passes__outcome(const struct collector *c, int i)
{
	return &of(c)->out[i];
}


