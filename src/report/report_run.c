// SPDX-License-Identifier: BSD-3-Clause
#include "report/report_run.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/imbalance.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/model.h"
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
	if (rc == 0)
		rc = pivot_db_read(&p, db, e);
	xfree(db);
	if (rc == 0) {
		rc = analysis_run(&p, m.machine.ceilings, m.machine.nr_ceilings,
				  ANALYSIS_FLOOR_SAMPLES, &a);
		have_a = rc == 0;
		if (rc < 0)
			err_set(e, rc, ERR_OOM, "out of memory");
	}
	if (rc == 0) {
		struct rank_imbalance ri;
		memset(&ri, 0, sizeof(ri));
		int rrc = imbalance_ranks(&p, m.world_size, &ri);
		struct summary_ctx ctx = {.nr_ranks = -1, .ranks = rrc == 0 ? &ri : NULL};
		for (size_t i = 0; !a.have_ceilings && i < m.degradations.n; i++)
			if (!strcmp(m.degradations.v[i].name, "ceilings-unavailable"))
				ctx.ceilings_reason = m.degradations.v[i].message;
		rc = summary_render(&a, &p, &ctx, &out->lines);
		degradation_lines(&m, &out->lines);
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
