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
	s->collect.rejected = true;
	if (collector_fallback_preload(s, msg))
		return collector_preload__new(s->collect.preload_lib);
	strncat(msg, ": no samples", sizeof(msg) - strlen(msg) - 1);
	run_state__degrade(s, DEG_CPU_COLLECTION_FAILED, msg, DEG_CPU_COLLECTION_FAILED_REMEDY);
	return collector_bare__new();
}

int collect_one_pass(struct run_state *s, struct collect_pass *p, struct exec_result *res,
		     struct err *e)
{
	struct collect_env env;
	run_state__collect_env(s, &env);
	int rc = collector__launch(s->collect.coll, &env, p, res, e);
	if (collector_is_perf(s->collect.coll)) { /* what the ladder kept */
		s->collect.group = collector_perf__group(s->collect.coll);
		s->collect.stacks = collector_perf__stacks(s->collect.coll);
	}
	if (rc == 1) {
		struct collector *next = after_refusal(s, collector__refusal(s->collect.coll));
		collector__free(s->collect.coll);
		s->collect.coll = next;
		rc = next ? collector__launch(s->collect.coll, &env, p, res, e) : err_oom(e);
	}
	s->launched = p->launched;
	s->cost.app_launch = p->mono_start;
	s->cost.app_stop = p->mono_end;
	return rc;
}
