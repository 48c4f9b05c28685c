// SPDX-License-Identifier: BSD-3-Clause
#include "regions/regions_inspect.h"

#include <errno.h>
#include <string.h>

#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/regions_run.h"
#include "regions/summary.h"
#include "regions/trace_set.h"

/* Summaries need no per-call storage: each rank's calls stream straight from
 * the mapped trace into the per-region accumulators. */
int regions_summarize(struct trace_set *ts, const struct rank_filter *rf, struct summary *s,
		      struct console *con, struct err *e)
{
	struct path_tree pt;
	size_t n = 0, slot = 0;
	path_tree__init(&pt);
	memset(s, 0, sizeof(*s));
	int rc = rank_filter__count(rf, ts, &n, e);
	if (rc == 0 && summary__init(s, n))
		rc = err_oom(e);
	for (size_t i = 0; rc == 0 && i < ts->nr_src; i++) {
		if (!rank_filter__has(rf, ts->src[i].rank))
			continue;
		struct rank_data rd;
		if ((rc = trace_set__load(ts, i, &rd, e)))
			break;
		struct call_sink sink = summary__sink(s);
		if (summary__begin_rank(s, slot, rd.rank, rd.nr_lanes, ts, &pt))
			rc = err_oom(e);
		if (rc == 0)
			rc = calls__stream(&rd, ts, &pt, &sink, e);
		if (rc == 0 && summary__end_rank(s))
			rc = err_oom(e);
		rank_data__release(&rd);
		slot++;
		if (con && con->terminal && n > 1)
			console__progress(con, "reading ranks", slot, n);
	}
	if (con && con->terminal && n > 1)
		console__progress_end(con, "reading ranks");
	path_tree__release(&pt);
	return rc;
}

int regions_inspect(struct trace_set *ts, const struct rank_filter *rf,
		    const struct summary_view *v, bool json, FILE *out, struct console *con,
		    struct err *e)
{
	struct summary s;
	int rc = regions_summarize(ts, rf, &s, con, e);
	if (rc == 0)
		rc = json ? summary__print_json(&s, ts, v, out, e)
			  : summary__print_table(&s, ts, v, out, e);
	summary__release(&s);
	return rc;
}
