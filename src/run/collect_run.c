// SPDX-License-Identifier: BSD-3-Clause
/* One launch through the Run's collector (collect/collector.h): perf, the
 * preload sampler, bare, the MPI ranks, or the passes of --multi-pass. */
#include "run/stages.h"

#include <stdio.h>
#include <string.h>

#include "collect/collector.h"
#include "run/pipeline.h"
#include "common/degradation_kinds.h"
#include "common/err_codes.h"

/* perf refused to start at all and the application has not run yet: it
 * runs now - once - under the preload sampler (announced), or bare. */
static struct collector *after_refusal(struct run_state *s, const char *why)
{
	char msg[160];
	snprintf(msg, sizeof(msg), "%s", why);
	s->rejected = true;
	if (collector_fallback_preload(s, msg))
		return collector_preload__new(s->preload_lib);
	strncat(msg, ": no samples", sizeof(msg) - strlen(msg) - 1);
	run_state__degrade(s, DEG_CPU_COLLECTION_FAILED, msg, DEG_CPU_COLLECTION_FAILED_REMEDY);
	return collector_bare__new();
}

int collect_one_pass(struct run_state *s, struct collect_pass *p, struct exec_result *res,
		     struct err *e)
{
	struct collect_env env;
	run_state__collect_env(s, &env);
	int rc = collector__launch(s->coll, &env, p, res, e);
	if (collector_is_perf(s->coll)) { /* what the ladder kept */
		s->group = collector_perf__group(s->coll);
		s->stacks = collector_perf__stacks(s->coll);
	}
	if (rc == 1) {
		struct collector *next = after_refusal(s, collector__refusal(s->coll));
		collector__free(s->coll);
		s->coll = next;
		rc = next ? collector__launch(s->coll, &env, p, res, e) : err_oom(e);
	}
	s->launched = p->launched;
	s->t_app_launch = p->mono_start;
	s->t_app_stop = p->mono_end;
	return rc;
}
