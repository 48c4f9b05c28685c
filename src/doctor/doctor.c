// SPDX-License-Identifier: BSD-3-Clause
#include "doctor/doctor.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/checks.h"
#include "exec/exec.h"
#include "tools/caps.h"

const char *doctor_status__name(enum doctor_status s)
{
	return s == DOCTOR_OK ? "ok" : s == DOCTOR_WARNING ? "warning" : "missing";
}

int doctor_report__add(struct doctor_report *r, const char *name, enum doctor_status status,
		       const char *detail, const char *remedy, const char *degradation_name,
		       const char *degradation_message)
{
	if (xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return -ENOMEM;
	struct doctor_check *c = &r->v[r->n];
	memset(c, 0, sizeof(*c));
	c->status = status;
	c->name = xstrdup(name);
	c->detail = xstrdup(detail ? detail : "");
	c->remedy = remedy ? xstrdup(remedy) : NULL;
	r->n++; /* counted now so release frees a partial entry */
	if (!c->name || !c->detail || (remedy && !c->remedy))
		return -ENOMEM;
	if (degradation_name && degradation_message &&
	    degradations__add(&r->degradations, degradation_name, degradation_message,
			      remedy ? remedy : "") < 0)
		return -ENOMEM;
	return 0;
}

void doctor_report__release(struct doctor_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		xfree(r->v[i].name);
		xfree(r->v[i].detail);
		xfree(r->v[i].remedy);
	}
	xfree(r->v);
	degradations__release(&r->degradations);
	memset(r, 0, sizeof(*r));
}

static int oom(struct err *e)
{
	return err_set(e, -ENOMEM, ERR_OOM, "out of memory while checking this machine");
}

int doctor_full(struct executor *x, const struct config *cfg, const char *const *app_argv,
		struct doctor_report *out, struct err *e)
{
	struct caps caps = {0};
	int rc;
	memset(out, 0, sizeof(*out));
	if ((rc = doctor_check_perf(x, cfg, out, &caps, e)) < 0 ||
	    (rc = doctor_check_permissions(&caps, out)) < 0 ||
	    (rc = doctor_check_counters(x, cfg, caps.perf.present, out, e)) < 0 ||
	    (rc = doctor_check_llvm(x, cfg, out, e)) < 0 ||
	    (rc = doctor_check_tools(x, cfg, out, e)) < 0 ||
	    (rc = doctor_check_local(cfg, out)) < 0 ||
	    (rc = doctor_check_target(app_argv, out)) < 0)
		rc = rc == -ENOMEM ? oom(e) : rc;
	caps__release(&caps);
	return rc < 0 ? rc : 0;
}

int doctor_light(struct executor *x, const struct config *cfg, const char *const *app_argv,
		 struct degradations *out)
{
	struct doctor_report r;
	struct err e = {0};
	struct caps caps = {0};
	int rc;
	memset(&r, 0, sizeof(r));
	if ((rc = doctor_check_perf(x, cfg, &r, &caps, &e)) == 0 &&
	    (rc = doctor_check_permissions(&caps, &r)) == 0 &&
	    (rc = doctor_check_llvm(x, cfg, &r, &e)) == 0 && !executor__recorded_meta(x))
		rc = doctor_check_target(app_argv, &r);
	for (size_t i = 0; rc == 0 && i < r.degradations.n; i++) {
		const struct degradation *d = &r.degradations.v[i];
		if (degradations__add(out, d->name, d->message, d->remedy) < 0)
			rc = -ENOMEM;
	}
	doctor_report__release(&r);
	caps__release(&caps);
	return rc;
}

json_t *doctor_report__json(const struct doctor_report *r)
{
	json_t *checks = json_array(), *degr = degradations__to_json(&r->degradations);
	for (size_t i = 0; checks && i < r->n; i++) {
		const struct doctor_check *c = &r->v[i];
		if (json_array_append_new(checks, json_pack("{s:s, s:s, s:s, s:s?}", "name", c->name,
							     "status", doctor_status__name(c->status),
							     "detail", c->detail, "remedy",
							     c->remedy)) < 0)
			goto fail;
	}
	if (checks && degr)
		return json_pack("{s:o, s:o}", "checks", checks, "degradations", degr);
fail:
	json_decref(checks);
	json_decref(degr);
	return NULL;
}
