// SPDX-License-Identifier: BSD-3-Clause
#include "machine/profile.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "machine/cache.h"
#include "machine/free_cpus.h"
#include "model/machine_identity.h"
#include "machine/snapshot.h"
#include "machine/theory.h"
#include "common/fsutil.h"

void profile_outcome__release(struct profile_outcome *o)
{
	if (!o)
		return;
	xfree(o->cache_path);
	xfree(o->not_stored);
	xfree(o->kept);
	calibrate_report__release(&o->cal);
	memset(o, 0, sizeof(*o));
}

static int first_cpu(const struct machine *m)
{
	return m->alloc.has_affinity && m->alloc.nr_affinity ? m->alloc.affinity_mask[0] : 0;
}

static void announce(const struct profile_opts *o, const struct machine *m, bool forced)
{
	char id[MACHINE_ID_SIZE] = "?";
	machine_identity(m, id);
	double budget = o->budget_s > 0 ? o->budget_s : CALIBRATION_DEFAULT_BUDGET_S;
	char *msg = xasprintf("calibrating Machine %s (%s): triad, fma_dp and fma_sp kernels and "
			      "the cost per sample, at most %g s, once per Machine%s",
			      id, forced ? "--force" : o->occasion ? o->occasion : "first Run on it",
			      budget, forced || o->occasion ? "" : "; --no-calibrate skips it");
	if (msg && o->announce)
		o->announce(o->ctx, msg);
	xfree(msg);
}

static int calibrate(struct machine *m, struct executor *x, const struct profile_opts *o,
		     const char *work_dir, struct profile_outcome *out, struct err *e)
{
	bool live = !o->replay;
	double llc = live ? machine_llc_bytes("/", m) : 0;
	struct calibrate_opts co = {
		.cc = o->cc,
		.sampler_lib = o->sampler_lib,
		.work_dir = work_dir,
		.replay = o->replay,
		.budget_s = o->budget_s,
		.max_freq_khz = live ? theory_read_max_freq_khz("/", first_cpu(m)) : -1,
		.cpuinfo = m->cpuinfo_text,
		.llc_bytes = llc,
		.triad_bytes = live ? calibration_triad_bytes(m, llc) : 0,
		.progress = o->progress,
		.progress_ctx = o->ctx,
	};
	int free_cpus[1024];
	if (live) { /* a loaded Machine: calibrate its free cores, honestly */
		int nr = machine_free_cpus("/", m, FREE_CPU_INTERVAL_S, free_cpus, 1024);
		co.free_cpus = free_cpus;
		co.nr_free_cpus = nr > 0 ? nr : 0;
	}
	out->calibrated = true;
	out->source = PROFILE_CALIBRATED;
	return machine_calibrate(m, x, &co, &out->cal, e);
}

static int replay_profile(struct machine *m, struct executor *x, const struct profile_opts *o,
			  struct profile_outcome *out, struct err *e)
{
	char tmpl[] = "/tmp/nunatak-cal-XXXXXX";
	if (!mkdtemp(tmpl))
		return err_set(e, -errno, ERR_CALIBRATION_IO, "cannot create a temporary folder: %s",
			       strerror(errno));
	announce(o, m, o->force);
	int rc = calibrate(m, x, o, tmpl, out, e);
	static const char *const files[] = {"kernel-v0.c", "kernel-v0"};
	for (int i = 0; i < 2; i++) {
		char *f = fs_join(tmpl, files[i]);
		if (f)
			unlink(f);
		xfree(f);
	}
	rmdir(tmpl);
	out->not_stored = xstrdup("a replayed Machine is never cached");
	return rc;
}

/* The Ceilings of the recording's meta.json machine object: 1 when taken. */
static int recorded_ceilings(struct machine *m, struct executor *x, struct err *e)
{
	const json_t *jm = json_object_get(executor__recorded_meta(x), "machine");
	const json_t *jc = json_object_get(jm, "ceilings");
	if (!json_is_array(jc) || json_array_size(jc) == 0)
		return 0;
	struct machine rec;
	machine__init(&rec);
	struct err ignored = {0};
	int rc = machine__from_json(&rec, jm, &ignored) == 0 && rec.nr_ceilings ? 1 : 0;
	if (rc == 1) {
		machine__clear_ceilings(m);
		machine__clear_costs(m);
		for (size_t i = 0; i < rec.nr_ceilings && rc == 1; i++)
			if (machine__add_ceiling(m, &rec.ceilings[i]))
				rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		for (size_t i = 0; i < rec.nr_costs && rc == 1; i++)
			if (machine__put_cost(m, &rec.costs[i]))
				rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	}
	machine__release(&rec);
	return rc;
}

/* A cached profile written before the cost per sample was measured with the
 * Ceilings: that cost alone is measured once, announced,
 * and stored with the cached Ceilings, which stay as they are (a few seconds:
 * the kernel is built if its binary is gone). Without it
 * every Run's overhead line stays unavailable until `calibrate --force`. */
static int add_costs(struct machine *m, struct executor *x, const struct profile_opts *o,
		     const char *dir, struct profile_outcome *out, struct err *e)
{
	char id[MACHINE_ID_SIZE];
	char *work = machine_identity(m, id) ? NULL : xasprintf("%s/kernels/%s", dir, id);
	if (!work)
		return -ENOMEM;
	if (o->announce) {
		char *msg = xasprintf("calibrating Machine %s: the cost per sample, once (its "
				      "cached profile predates it; its Ceilings stay); "
				      "--no-calibrate skips it", id);
		if (msg)
			o->announce(o->ctx, msg);
		xfree(msg);
	}
	struct calibrate_opts co = {.cc = o->cc, .sampler_lib = o->sampler_lib, .work_dir = work,
				    .progress = o->progress, .progress_ctx = o->ctx};
	int rc = machine_calibrate_costs(m, x, &co, &out->cal, e);
	xfree(work);
	if (rc < 0)
		return rc;
	out->costs_added = true;
	bool any = false;
	for (size_t i = 0; i < m->nr_costs; i++)
		any |= m->costs[i].quality != QUALITY_UNAVAILABLE;
	struct err se = {0};
	char *path = NULL;
	int s = any ? machine_cache_store(m, dir, &path, &se) : 0;
	xfree(path);
	out->stored = s == 1;
	if (s == 0)
		out->not_stored = xasprintf("no cost per sample was measured (%s): the next Run "
					    "tries again", out->cal.problem ? out->cal.problem : "?");
	else if (s < 0)
		out->not_stored = xstrdup(se.msg);
	return 0;
}

int machine_profile(struct machine *m, struct executor *x, const struct profile_opts *o,
		    struct profile_outcome *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	out->source = PROFILE_THEORY;
	if (o->replay && !o->force) {
		int rc = recorded_ceilings(m, x, e);
		if (rc) {
			out->source = PROFILE_RECORDED;
			return rc < 0 ? rc : 0;
		}
	}
	if (o->replay) {
		if (o->calibrate || o->force)
			return replay_profile(m, x, o, out, e);
		return theory_add_ceilings(m, -1, m->cpuinfo_text) < 0
			       ? err_set(e, -ENOMEM, ERR_OOM, "out of memory") : 0;
	}
	struct err ce = {0};
	char *dir = machine_cache_dir(&ce);
	int rc = 0;
	if (dir && !o->force) {
		rc = machine_cache_load_ceilings(m, dir, &ce);
		if (rc < 0)
			goto out;
		if (rc == 1) {
			out->source = PROFILE_CACHED;
			out->cache_path = machine_cache_path(m, dir);
			rc = m->nr_costs == 0 && o->calibrate ? add_costs(m, x, o, dir, out, e) : 0;
			goto out;
		}
	}
	if (!o->calibrate && !o->force) {
		rc = theory_add_ceilings(m, theory_read_max_freq_khz("/", first_cpu(m)),
					 m->cpuinfo_text) < 0 ? -ENOMEM : 0;
		goto out;
	}
	if (!dir) {
		/* No cache: calibrate in a temporary folder, and say it is not kept. */
		rc = replay_profile(m, x, o, out, e);
		xfree(out->not_stored);
		out->not_stored = xasprintf("%s", ce.msg);
		goto out;
	}
	char id[MACHINE_ID_SIZE];
	char *work = machine_identity(m, id) ? NULL : xasprintf("%s/kernels/%s", dir, id);
	announce(o, m, o->force);
	rc = work ? calibrate(m, x, o, work, out, e) : -ENOMEM;
	xfree(work);
	if (rc == 0) {
		/* A Ceiling is a maximum: a better cached one stays (--force too). */
		rc = machine_cache_keep_best(m, dir, &out->kept, &ce);
		rc = rc < 0 ? rc : 0;
	}
	if (rc == 0) {
		struct err se = {0};
		bool answered = out->cal.nr_measured + out->cal.nr_estimated > 0;
		int s = answered ? machine_cache_store(m, dir, &out->cache_path, &se) : 0;
		out->stored = s == 1;
		if (s == 0)
			out->not_stored = xasprintf("no kernel answered (%s): the next Run "
						    "calibrates again",
						    out->cal.problem ? out->cal.problem : "?");
		else if (s < 0)
			out->not_stored = xstrdup(se.msg);
	}
out:
	if (rc == -ENOMEM)
		err_set(e, rc, ERR_OOM, "out of memory");
	xfree(dir);
	return rc;
}
