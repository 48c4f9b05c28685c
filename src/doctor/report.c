// SPDX-License-Identifier: BSD-3-Clause
// struct doctor_report: what the checks (tools.c, local.c) append to and
// doctor.c returns, apart from the driver so no check depends on it.
#include "doctor/doctor.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/alloc.h"
#include "model/model.h"

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
