// SPDX-License-Identifier: BSD-3-Clause
#include "doctor/doctor.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/checks.h"
#include "common/config.h"
#include "exec/exec.h"
#include "tools/caps.h"
#include "tools/locate.h"

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
		 bool replay, struct attrib_tools *tools, struct degradations *out, struct err *e)
{
	int rc = attrib_locate(x, config__tool(cfg, "llvm-symbolizer"), config__tool(cfg, "addr2line"),
			       tools, e);
	if (rc < 0)
		return rc;
	const char *name = NULL;
	char *msg = NULL, *remedy = NULL;
	rc = attrib_tools__degradation(tools, &name, &msg, &remedy);
	if (rc > 0 && name)
		rc = degradations__add(out, name, msg, remedy);
	xfree(msg);
	xfree(remedy);
	if (rc < 0 || replay) /* the recorded binary is not on this machine */
		return rc < 0 ? oom(e) : 0;
	struct doctor_report r;
	memset(&r, 0, sizeof(r));
	rc = doctor_check_target(app_argv, &r);
	for (size_t i = 0; rc == 0 && i < r.degradations.n; i++) {
		const struct degradation *d = &r.degradations.v[i];
		if (degradations__add(out, d->name, d->message, d->remedy) < 0)
			rc = -ENOMEM;
	}
	doctor_report__release(&r);
	return rc < 0 ? oom(e) : 0;
}

