// SPDX-License-Identifier: BSD-3-Clause
/* Stage "stacks": which call stacks perf records (collect/stacks.h), said
 * before the launch as `call stacks: <detail>`. */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"
#include "collect/stacks.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "exec/exec.h"
#include "machine/snapshot.h"

static int stage_stacks_decide(struct run_state *s, struct err *e);

static int forced(struct run_state *s, enum stacks_mode m)
{
	s->collect.stacks = m;
	if (m == STACKS_DWARF) {
		/* The asked rate is kept: the stack copy's size bounds the cost. */
		console__info(s->con, "--call-graph dwarf: stacks unwound from %d-byte copies of "
				      "the user stack at %d Hz (deeper stacks are cut short)",
			      STACKS_DWARF_COPY_BYTES, s->freq);
		return 0;
	}
	console__info(s->con, "call stacks: %s (--call-graph)", stacks_mode__name(m));
	return 0;
}

/* The target as objdump and ldd need it: a path ("./app", "/usr/bin/app"),
 * or the PATH lookup of a bare name (the name itself under replay). */
char *run_target_path(const struct run_state *s)
{
	const char *t = s->app && s->app[0] ? s->app[0] : s->target;
	char *path = NULL;
	if (!t)
		return NULL;
	if (strchr(t, '/') || s->replay || exec_which(t, &path) != 0)
		return xstrdup(t);
	return path;
}

/* The Run records what perf was asked (issue 24): the stack mode, the
 * rate it sampled at, and for dwarf the size of each user-stack copy. */
static void record_stacks(struct run_state *s)
{
	json_t *c = s->prov.effective_config;
	if (!c || !s->collect.stacks)
		return;
	json_object_set_new(c, "stacks.call_graph", json_string(stacks_mode__name(s->collect.stacks)));
	json_object_set_new(c, "stacks.sampling_frequency", json_integer(s->freq));
	if (s->collect.stacks == STACKS_DWARF)
		json_object_set_new(c, "stacks.dwarf_stack_copy_bytes",
				    json_integer(STACKS_DWARF_COPY_BYTES));
}

int stage_stacks(struct run_state *s, struct err *e)
{
	int rc = stage_stacks_decide(s, e);
	if (rc == 0)
		record_stacks(s);
	return rc;
}

static int stage_stacks_decide(struct run_state *s, struct err *e)
{
	/* Only perf records stacks; the preload sampler's degradation says so. */
	if (s->collect.collector != COLLECTOR_USE_PERF)
		return 0;
	if (s->req->call_graph) {
		enum stacks_mode m = STACKS_NONE;
		stacks_mode__parse(s->req->call_graph, &m); /* validated by cmd_run */
		return forced(s, m);
	}
	char *target = run_target_path(s);
	if (!target)
		return 0;
	struct stacks_decision d;
	double threshold = s->cfg && s->cfg->fp_threshold > 0 ? s->cfg->fp_threshold
							     : STACKS_FP_THRESHOLD;
	const char *cpu = s->machine ? s->machine->cpu_model : NULL;
	bool cache = !s->replay && !s->req->record_entry;
	int rc = stacks_ladder(s->x, config__tool(s->cfg, "objdump"), target, cpu, threshold, cache,
			       &d, e);
	xfree(target);
	if (rc < 0)
		return rc;
	s->collect.stacks = d.mode;
	if (s->replay && d.no_objdump) {
		/* An entry recorded before the ladder existed: no stack decision
		 * was recorded, and its perf record asked for none. */
		console__info(s->con, "call stacks: none (the recording holds no stack decision)");
		stacks_decision__release(&d);
		return 0;
	}
	console__info(s->con, "call stacks: %s", d.detail);
	if (d.mode == STACKS_NONE && d.reason[0])
		rc = run_state__degrade(s, DEG_CALL_STACKS_UNAVAILABLE, d.reason,
					DEG_CALL_STACKS_UNAVAILABLE_REMEDY);
	stacks_decision__release(&d);
	return rc;
}
