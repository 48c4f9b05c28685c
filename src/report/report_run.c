// SPDX-License-Identifier: BSD-3-Clause
#include "report/report_run.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/node_machines.h"
#include "common/signame.h"
#include "model/model.h"
#include "report/flame.h"
#include "report/payload.h"
#include "store/manifest.h"
#include "common/fsutil.h"
#include "store/pivot_db.h"

static void degradation_lines(const struct manifest *m, struct text_lines *t)
{
	for (size_t i = 0; i < m->degradations.n; i++) {
		const struct degradation *d = &m->degradations.v[i];
		text_lines__add(t, "degraded [%s]: %s - %s", d->name, d->message, d->remedy);
	}
}

/* How the application ended, as `run` said it: only when not by itself. */
static void outcome_line(const struct manifest *m, struct text_lines *t)
{
	char a[16], b[16];
	if (m->interrupted_by)
		text_lines__add(t, "application: interrupted by %s (exit %d%s%s): the Run holds what "
				"was collected until then", sig_name(m->interrupted_by, a, sizeof(a)),
				m->exit_code, m->term_signal ? ", ended by " : "",
				m->term_signal ? sig_name(m->term_signal, b, sizeof(b)) : "");
	else if (m->term_signal)
		text_lines__add(t, "application: ended by %s (exit %d)",
				sig_name(m->term_signal, a, sizeof(a)), m->exit_code);
}

/* --multi-pass: the witness spread and the DRAM bound, as the run said them. */
static void multi_pass_lines(const struct manifest *m, struct text_lines *t)
{
	const json_t *mp = m->multi_pass;
	if (!mp)
		return;
	const json_t *sp = json_object_get(json_object_get(mp, "witness_spread"), "value");
	if (json_is_number(sp))
		text_lines__add(t, "multi-pass: %zu passes; witness %s spread %.2f%% (threshold %.0f%%)",
				m->nr_passes, json_string_value(json_object_get(mp, "witness")),
				100 * json_number_value(sp),
				100 * json_number_value(json_object_get(mp, "threshold")));
	else
		text_lines__add(t, "multi-pass: %zu passes; witness spread unavailable",
				m->nr_passes);
	const json_t *b = json_object_get(mp, "dram_bound");
	const json_t *v = json_object_get(json_object_get(b, "dram_intensity_above"), "value");
	if (b && json_is_number(v))
		text_lines__add(t, "multi-pass: pass %lld recorded no DRAM fill: %s's DRAM intensity "
				   "is above %.3g flop/byte (estimated: demand fills only)",
				(long long)json_integer_value(json_object_get(b, "pass")),
				json_string_value(json_object_get(b, "hotspot")),
				json_number_value(v));
}

/* The multi-pass DRAM bound (stage_passes.c), NaN without one. */
static double dram_bytes_below(const struct manifest *m)
{
	const json_t *v = json_object_get(json_object_get(m->multi_pass, "dram_bound"),
					  "dram_bytes_below");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The analysis as `run` computed it: the Run-wide placement against the
 * sum of its nodes' Ceilings when the manifest records nodes that are not
 * all the launch node (model/node_machines.h), else the launch Machine's.
 * nodes is filled from the manifest (empty when absent or unreadable); rc
 * holds the summed Ceilings a borrows. Returns 0 or -ENOMEM. */
static int analyse(const struct manifest *m, const struct pivot *p, struct node_machines *nodes,
		   struct run_ceilings *rc, struct analysis *a)
{
	struct err ne = {0};
	if (m->nodes && node_machines__from_json(nodes, m->nodes, &ne) < 0)
		memset(nodes, 0, sizeof(*nodes));
	if (node_machines__run_ceilings(nodes, rc) < 0)
		return -ENOMEM;
	const struct ceiling *c = rc->applies ? rc->c : m->machine.ceilings;
	size_t nc = rc->applies ? rc->n : m->machine.nr_ceilings;
	return analysis_run_bounded(p, c, nc, ANALYSIS_FLOOR_SAMPLES, dram_bytes_below(m), a);
}

int report_run(const char *run_dir, bool no_source, struct report_out *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	struct manifest m;
	struct pivot p;
	struct analysis a;
	bool have_a = false;
	manifest__init(&m);
	pivot__init(&p);
	int rc = manifest__read(&m, run_dir, e);
	char *db = fs_join(run_dir, PIVOT_DB_FILE);
	if (rc == 0 && !db)
		rc = err_oom(e);
	if (rc == 0 && m.status != RUN_STATUS_COMPLETE && !fs_exists(db))
		rc = err_set(e, -ENOENT, ERR_RUN_NOT_A_RUN,
			     "%s: this Run is %s (%s): it holds no measurements to report; its "
			     "manifest.json and collect/ keep what was written; run the application "
			     "again for a Run", run_dir, run_status__name(m.status),
			     m.status == RUN_STATUS_ABANDONED ? "interrupted twice"
							      : "post-processing did not finish");
	if (rc == 0)
		rc = pivot_db_read(&p, db, e);
	xfree(db);
	struct node_machines nodes;
	struct run_ceilings rcl;
	memset(&nodes, 0, sizeof(nodes));
	memset(&rcl, 0, sizeof(rcl));
	if (rc == 0) {
		rc = analyse(&m, &p, &nodes, &rcl, &a);
		have_a = rc == 0;
		if (rc < 0)
			err_set(e, rc, ERR_OOM, "out of memory");
	}
	if (rc == 0) {
		struct rank_imbalance ri;
		memset(&ri, 0, sizeof(ri));
		int rrc = imbalance_ranks(&p, m.world_size, &ri);
		struct summary_ctx ctx = {.nr_ranks = -1, .ranks = rrc == 0 ? &ri : NULL,
					  .app_wall_s = m.nr_passes ? m.passes[0].duration_s : 0,
					  .app_cpu_s = m.nr_passes && m.passes[0].cpu_user_s >= 0
							       ? m.passes[0].cpu_user_s +
									 m.passes[0].cpu_sys_s
							       : -1,
					  .cpu_includes_collector =
						  m.nr_passes && m.passes[0].cpu_includes_collector,
					  .nr_degradations = m.degradations.n,
					  .machine = &m.machine,
					  .cost = m.cost};
		for (size_t i = 0; !a.have_ceilings && i < m.degradations.n; i++)
			if (!strcmp(m.degradations.v[i].name, DEG_CEILINGS_UNAVAILABLE))
				ctx.ceilings_reason = m.degradations.v[i].message;
		ctx.nodes = nodes.n ? &nodes : NULL;
		rc = summary_render(&a, &p, &ctx, &out->lines);
		multi_pass_lines(&m, &out->lines);
		degradation_lines(&m, &out->lines);
		outcome_line(&m, &out->lines);
		json_t *mj = manifest__to_json(&m);
		out->payload = payload_build(mj, &p, &a, ctx.ranks, no_source);
		json_decref(mj);
		if (rrc == 0)
			rank_imbalance__release(&ri);
		if (rc == 0 && (!out->payload || out->lines.failed))
			rc = -ENOMEM;
		if (rc < 0)
			err_set(e, rc, ERR_OOM, "out of memory");
	}
	if (have_a)
		analysis__release(&a);
	run_ceilings__release(&rcl);
	node_machines__release(&nodes);
	pivot__release(&p);
	manifest__release(&m);
	if (rc < 0)
		report_out__release(out);
	return rc;
}

void report_out__release(struct report_out *out)
{
	text_lines__release(&out->lines);
	json_decref(out->payload);
	out->payload = NULL;
}

int report_export_stacks(const char *run_dir, const char *format, FILE *out, bool *from_stacks,
			 struct err *e)
{
	bool speedscope = strcmp(format, "speedscope") == 0;
	if (!speedscope && strcmp(format, "collapsed") != 0)
		return err_set(e, -EINVAL, ERR_USAGE,
			       "unknown report format '%s': expected collapsed, speedscope or "
			       "roofline-csv",
			       format);
	struct manifest m;
	struct pivot p;
	struct flame f;
	manifest__init(&m);
	pivot__init(&p);
	memset(&f, 0, sizeof(f));
	int rc = manifest__read(&m, run_dir, e);
	char *db = rc == 0 ? fs_join(run_dir, PIVOT_DB_FILE) : NULL;
	if (rc == 0)
		rc = db ? pivot_db_read(&p, db, e) : err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	xfree(db);
	if (rc == 0 && flame_build(&f, &p) < 0)
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	*from_stacks = f.from_stacks;
	if (rc == 0 && speedscope) {
		json_t *doc = flame_speedscope(&f, m.name ? m.name : "nunatak");
		if (!doc || json_dumpf(doc, out, JSON_COMPACT) != 0 || fputc('\n', out) == EOF)
			rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "could not write the speedscope file");
		json_decref(doc);
	} else if (rc == 0 && flame_write_collapsed(&f, out) < 0) {
		rc = err_set(e, -EIO, ERR_OUTPUT_WRITE, "could not write the collapsed stacks");
	}
	flame_release(&f);
	pivot__release(&p);
	manifest__release(&m);
	return rc;
}
