// SPDX-License-Identifier: BSD-3-Clause
/* The `collector` check: perf, the preload sampler, or nothing, and why. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/config.h"
#include "common/degradation_kinds.h"
#include "doctor/checks.h"
#include "doctor/doctor.h"
#include "doctor/offcpu.h"
#include "tools/caps.h"

void doctor_preload_message(const char *why_not_perf, int hz, char *msg, unsigned cap)
{
	snprintf(msg, cap,
		 "%s: libscope_profiler samples the application through LD_PRELOAD instead "
		 "(CPU-time timers, %d Hz requested, at most the kernel's tick rate; time "
		 "only: no hardware counters, no call stacks)",
		 why_not_perf, hz);
}

static const struct doctor_check *find(const struct doctor_report *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

/* Drops the degradation named `name` (the stand-in replaces it). */
static void drop(struct degradations *d, const char *name)
{
	for (size_t i = 0; i < d->n;) {
		if (strcmp(d->v[i].name, name) != 0) {
			i++;
			continue;
		}
		xfree(d->v[i].name);
		xfree(d->v[i].message);
		xfree(d->v[i].remedy);
		memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof(d->v[0]));
		d->n--;
	}
}

/* Why perf will not sample, from the checks already made, or NULL. */
static const char *why_not_perf(const struct doctor_report *r)
{
	const struct doctor_check *c = find(r, "cpu-collector");
	if (!c || c->status == DOCTOR_MISSING)
		return c && c->detail ? c->detail : "perf not found";
	c = find(r, "perf-permissions");
	if (c && c->status == DOCTOR_MISSING)
		return c->detail;
	return NULL;
}

int doctor_check_collector(const struct config *cfg, bool replay, struct doctor_report *r)
{
	const char *why = why_not_perf(r);
	int hz = cfg && cfg->sampling_frequency_hz > 0 ? cfg->sampling_frequency_hz : 997;
	if (!why)
		return doctor_report__add(r, "collector", DOCTOR_OK,
					  "perf: `nunatak run` samples with perf (--collector "
					  "preload would use the preload sampler instead)",
					  NULL, NULL, NULL);
	char *lib = replay ? NULL : doctor_preload_library();
	char detail[600], msg[512];
	int rc;
	if (lib) {
		char *why_copy = xstrdup(why);
		doctor_preload_message(why_copy ? why_copy : "perf cannot sample", hz, msg,
				       sizeof(msg));
		snprintf(detail, sizeof(detail),
			 "preload sampler (%s via LD_PRELOAD), because %s: time only, at "
			 "most the kernel's tick rate", lib, why_copy ? why_copy : "perf cannot sample");
		xfree(why_copy);
		drop(&r->degradations, DEG_CPU_COLLECTION_UNAVAILABLE);
		rc = doctor_report__add(r, "collector", DOCTOR_WARNING, detail, DEG_CPU_COLLECTION_PRELOAD_REMEDY,
					DEG_CPU_COLLECTION_PRELOAD, msg);
	} else {
		snprintf(detail, sizeof(detail),
			 "none: %s, and libscope_profiler.so is not beside nunatak: no CPU "
			 "samples", why);
		rc = doctor_report__add(r, "collector", DOCTOR_MISSING, detail,
					"install perf, or install nunatak completely (cmake "
					"--install) for the preload sampler",
					NULL, NULL);
	}
	xfree(lib);
	return rc;
}

int doctor_check_offcpu(const struct caps *caps, struct doctor_report *r)
{
	enum offcpu_mechanism m = offcpu_mechanism(caps, caps->perf.present && !caps->sampling_blocked);
	char detail[900], why[160] = "";
	/* which switch-outs get a stack, as each perf launch decides it */
	bool blocking = m == OFFCPU_STACKS && offcpu_blocking_usable(why, sizeof(why));
	if (m != OFFCPU_STACKS)
		snprintf(detail, sizeof(detail), "%s: %s", offcpu_mechanism__name(m),
			 offcpu_mechanism__describe(m));
	else
		snprintf(detail, sizeof(detail), "%s: %s; a single process: %s; %s%s%s",
			 offcpu_mechanism__name(m), offcpu_mechanism__describe(m), OFFCPU_EVERY_SAYS,
			 blocking ? OFFCPU_BLOCKING_SAYS : OFFCPU_RANKS_EVERY_SAYS,
			 blocking ? "" : ": ", blocking ? "" : why);
	return doctor_report__add(r, "offcpu", m == OFFCPU_STACKS ? DOCTOR_OK : DOCTOR_WARNING,
				  detail, offcpu_mechanism__remedy(m), NULL, NULL);
}
