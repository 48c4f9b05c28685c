// SPDX-License-Identifier: BSD-3-Clause
/* The Machine's Ceilings before launch: the cached profile, else a
 * calibration on the first Run on this Machine (announced, bounded by
 * calibration.budget, skipped by --no-calibrate, calibration.on_first_run =
 * false or NUNATAK_NO_CALIBRATE=1), else the theoretical table. A Run whose
 * Machine lacks flops_dp or dram_bandwidth carries the named degradation
 * `ceilings-unavailable`, so --strict trips on it. */
#include "run/stages.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/doctor.h"
#include "exec/exec.h"
#include "machine/profile.h"
#include "machine/snapshot.h"

static void progress(void *ctx, const char *label, unsigned long done, unsigned long total)
{
	console__progress(ctx, label, done, total);
}

static void announce(void *ctx, const char *msg)
{
	console__info(ctx, "%s", msg);
}

static const struct ceiling *find(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (m->ceilings[i].name && !strcmp(m->ceilings[i].name, name) &&
		    m->ceilings[i].quality != QUALITY_UNAVAILABLE && m->ceilings[i].value > 0)
			return &m->ceilings[i];
	return NULL;
}

const char *run_calibration_skipped(const struct run_state *s)
{
	const char *env = getenv("NUNATAK_NO_CALIBRATE");
	if (s->req->no_calibrate)
		return "calibration skipped by --no-calibrate";
	if (!s->cfg->calibration_on_first_run)
		return "calibration skipped by calibration.on_first_run = false";
	if (env && env[0] && strcmp(env, "0") != 0)
		return "calibration skipped by NUNATAK_NO_CALIBRATE";
	return NULL;
}

static void tell_costs(struct run_state *s)
{
	const struct machine *m = s->machine;
	for (size_t i = 0; i < m->nr_costs; i++) {
		const struct ceiling *c = &m->costs[i];
		if (c->quality == QUALITY_UNAVAILABLE)
			console__info(s->con, "calibration: %s unavailable: %s", c->name,
				      c->reason ? c->reason : "?");
		else
			console__info(s->con, "calibration: %s %.3g us (%s%s%s)", c->name,
				      c->value * 1e6, quality__name(c->quality), c->reason ? ": " : "",
				      c->reason ? c->reason : "");
	}
}

static void tell(struct run_state *s, const struct profile_outcome *po)
{
	const struct machine *m = s->machine;
	if (po->source == PROFILE_RECORDED) {
		console__debug(s->con, 1, "Ceilings from the recording's meta.json");
		return;
	}
	if (po->source == PROFILE_CACHED) {
		size_t est = 0;
		for (size_t i = 0; i < m->nr_ceilings; i++)
			est += m->ceilings[i].quality != QUALITY_MEASURED;
		if (est)
			console__info(s->con, "Ceilings from the cached profile %s, %zu of them "
				      "estimated (their reasons are in the Run); `nunatak calibrate "
				      "--force` measures again", po->cache_path, est);
		else
			console__debug(s->con, 1, "Ceilings from the cached profile %s",
				       po->cache_path);
		if (po->costs_added) {
			tell_costs(s);
			if (po->stored)
				console__info(s->con, "calibration: cost per sample in %.1f s, "
					      "cached in %s", po->cal.total_s, po->cache_path);
			else if (po->not_stored)
				console__info(s->con, "calibration: cost per sample in %.1f s, "
					      "not cached: %s", po->cal.total_s, po->not_stored);
		}
		return;
	}
	if (!po->calibrated)
		return;
	for (size_t i = 0; i < m->nr_ceilings; i++)
		console__info(s->con, "calibration: %s %.4g %s (%s%s%s)", m->ceilings[i].name,
			      m->ceilings[i].value, m->ceilings[i].unit,
			      quality__name(m->ceilings[i].quality), m->ceilings[i].reason ? ": " : "",
			      m->ceilings[i].reason ? m->ceilings[i].reason : "");
	tell_costs(s);
	if (po->kept)
		console__info(s->con, "calibration: a Ceiling is a maximum: %s", po->kept);
	if (po->stored)
		console__info(s->con, "calibration: %.1f s, cached in %s", po->cal.total_s,
			      po->cache_path);
	else if (po->not_stored)
		console__info(s->con, "calibration: %.1f s, not cached: %s", po->cal.total_s,
			      po->not_stored);
}

static int degrade(struct run_state *s, const struct profile_outcome *po, const char *why)
{
	bool peak = find(s->machine, "flops_dp"), bw = find(s->machine, "dram_bandwidth");
	if (peak && bw)
		return 0;
	if (!why)
		why = po->cal.problem ? po->cal.problem : "no calibration answered";
	char *msg = xasprintf("the Machine carries no %s Ceiling, so no Hotspot can be placed on "
			      "the roofline: %s",
			      !peak && !bw ? "flops_dp or dram_bandwidth" : !peak ? "flops_dp"
										: "dram_bandwidth",
			      why);
	const char *remedy = po->cal.problem && !s->req->no_calibrate
				     ? "install a C compiler (or set [tools] cc), then run `nunatak "
				       "calibrate` once on this Machine"
				     : "run `nunatak calibrate` once on this Machine (inside the job "
				       "allocation): every later Run reads its cached Ceilings";
	int rc = msg ? run_state__degrade(s, DEG_CEILINGS_UNAVAILABLE, msg, remedy) : -12;
	xfree(msg);
	return rc;
}

int stage_calibrate(struct run_state *s, struct err *e)
{
	const char *why = run_calibration_skipped(s);
	char *sampler_lib = s->replay || why ? NULL : doctor_preload_library();
	struct profile_opts o = {.calibrate = why == NULL,
				 .replay = s->replay,
				 .cc = config__tool(s->cfg, "cc"),
				 .sampler_lib = sampler_lib,
				 .budget_s = s->cfg->calibration_budget_s,
				 .progress = progress,
				 .announce = announce,
				 .ctx = s->con};
	struct profile_outcome po;
	memset(&po, 0, sizeof(po));
	int rc = machine_profile(s->machine, s->x, &o, &po, e);
	xfree(sampler_lib);
	if (rc < 0 && rc != -ENOMEM) {
		/* The cache cannot be written (a read-only or full file system, a
		 * path through a file): the Run goes on without measured Ceilings. */
		char *msg = xasprintf("the Machine's Ceilings could not be calibrated or cached: "
				      "%s", e->msg[0] ? e->msg : strerror(-rc));
		memset(e, 0, sizeof(*e));
		rc = msg ? run_state__degrade(s, DEG_CEILINGS_UNAVAILABLE, msg,
					      DEG_CEILINGS_UNAVAILABLE_REMEDY)
			 : -ENOMEM;
		xfree(msg);
		if (rc < 0)
			err_set(e, rc, ERR_OOM, "out of memory");
		profile_outcome__release(&po);
		return rc;
	}
	if (po.calibrated) {
		console__progress_end(s->con, "calibration");
		s->cost.calibrate_s = po.cal.total_s;
	}
	if (rc == 0 && !s->replay) {
		/* A recording keeps the Ceilings this Run used (cached ones included,
		 * which no invocation shows), so its replay places like the Run did. */
		json_t *meta = json_pack("{s:o}", "machine", machine__to_json(s->machine));
		if (meta && executor__annotate(s->x, meta) < 0)
			console__warn(s->con, "the recording's meta.json could not be updated "
					      "with the Machine's Ceilings");
		json_decref(meta);
	}
	if (rc == 0) {
		tell(s, &po);
		rc = degrade(s, &po, why);
		if (rc < 0)
			err_set(e, rc, ERR_OOM, "out of memory");
	}
	profile_outcome__release(&po);
	return rc;
}
