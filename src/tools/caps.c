// SPDX-License-Identifier: BSD-3-Clause
#include "tools/caps.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static void degrade(struct caps *c, const char *remedy)
{
	c->sampling_blocked = true;
	c->degradation.name = DEG_CPU_COLLECTION_UNAVAILABLE;
	c->degradation.remedy = remedy;
}

/* A recording carries what its replay reads back here and in the manifest:
 * whether sampling was blocked, and the collector that answered (executor__
 * annotate is a no-op for other executors). */
static int record_caps(const struct caps *c, struct executor *x, struct err *e)
{
	if (c->replay)
		return 0;
	json_t *col = json_array();
	if (col && c->perf.present)
		json_array_append_new(col, json_pack("{s:s, s:s}", "tool", "perf", "version",
						     c->perf.version.text));
	json_t *meta = col ? json_pack("{s:b, s:o}", "sampling_blocked",
				       perf_sampling_forbidden(c->paranoid, c->root),
				       "collectors", col)
			   : NULL;
	int rc = meta ? executor__annotate(x, meta) : -ENOMEM;
	json_decref(meta);
	if (rc == -ENOMEM)
		return err_oom(e);
	return rc < 0 ? err_set(e, rc, ERR_EXEC_RECORD, "cannot write the recording's meta.json")
		      : 0;
}

int caps_probe(struct caps *c, struct executor *x, const char *perf, struct err *e)
{
	memset(c, 0, sizeof(*c));
	c->perf.path = xstrdup(perf);
	char **argv = perf_argv_version(perf);
	if (!argv || !c->perf.path) {
		perf_argv__free(argv);
		caps__release(c);
		return err_oom(e);
	}
	struct exec_request rq = {.argv = (const char *const *)argv, .capture_stdout = true,
				  .capture_stderr = true, .timeout_s = 30, .cacheable = true};
	struct exec_result res = {0};
	int rc = executor__run(x, &rq, &res, e);
	perf_argv__free(argv);
	if (rc < 0) {
		caps__release(c);
		return rc;
	}
	c->perf_exit = res.exit_code;
	c->perf.present = res.exit_code == 0 && perf_parse_version(res.out, &c->perf.version) == 0;
	exec_result__release(&res);

	const json_t *meta = executor__recorded_meta(x);
	c->replay = meta != NULL;
	c->root = !meta && geteuid() == 0;
	c->paranoid = meta ? (json_is_true(json_object_get(meta, "sampling_blocked")) ? 3 : 2)
			   : read_paranoid();
	if (!c->perf.present) {
		snprintf(c->degradation.message, sizeof(c->degradation.message), "%s",
			 CAPS_PERF_MISSING_MSG);
		degrade(c, CAPS_PERF_MISSING_REMEDY);
	} else if (perf_sampling_forbidden(c->paranoid, c->root)) {
		snprintf(c->degradation.message, sizeof(c->degradation.message),
			 "perf %s found, but kernel.perf_event_paranoid=%d forbids unprivileged "
			 "profiling",
			 c->perf.version.text, c->paranoid);
		degrade(c, CAPS_PARANOID_REMEDY);
	}
	return record_caps(c, x, e);
}

void caps__release(struct caps *c)
{
	zfree(&c->perf.path);
}
