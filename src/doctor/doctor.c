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
	    (rc = doctor_check_collector(cfg, executor__recorded_meta(x) != NULL, out)) < 0 ||
	    (rc = doctor_check_offcpu(&caps, out)) < 0 ||
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

