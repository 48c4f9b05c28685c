// SPDX-License-Identifier: BSD-3-Clause
#include "regions/regions_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include "regions/trace_set.h"

int rank_filter__count(const struct rank_filter *f, const struct trace_set *ts, size_t *n,
		       struct err *e)
{
	*n = 0;
	for (size_t i = 0; i < ts->nr_src; i++)
		*n += rank_filter__has(f, ts->src[i].rank);
	for (size_t j = 0; f && j < f->nr; j++) {
		bool found = false;
		for (size_t i = 0; i < ts->nr_src && !found; i++)
			found = ts->src[i].rank == f->ranks[j];
		if (!found)
			return err_set(e, -ENOENT, ERR_USAGE,
				       "rank %" PRId32 " is not in the traces (ranks %" PRId32
				       "..%" PRId32 ")",
				       f->ranks[j], ts->src[0].rank, ts->src[ts->nr_src - 1].rank);
	}
	return 0;
}

int regions_for_each_rank(struct trace_set *ts, const struct rank_filter *f,
			  struct path_tree *pt, rank_visitor fn, void *ctx, struct console *con,
			  struct err *e)
{
	size_t slot = 0, total = 0;
	int rc = rank_filter__count(f, ts, &total, e);
	for (size_t i = 0; i < ts->nr_src && rc == 0; i++) {
		if (!rank_filter__has(f, ts->src[i].rank))
			continue;
		struct rank_data rd;
		struct calls c;
		if ((rc = trace_set__load(ts, i, &rd, e)))
			break;
		rc = calls__build(&c, &rd, ts, pt, e);
		if (rc == 0) {
			rc = fn(ctx, slot++, &rd, &c, e);
			calls__release(&c);
		}
		rank_data__release(&rd);
		if (con && con->terminal && total > 1)
			console__progress(con, "reading ranks", slot, total);
	}
	if (con && con->terminal && total > 1)
		console__progress_end(con, "reading ranks");
	return rc;
}

int regions_min_start(struct trace_set *ts, const struct rank_filter *f, int64_t *min,
		      struct err *e)
{
	bool any = false;
	*min = 0;
	for (size_t i = 0; i < ts->nr_src; i++) {
		if (!rank_filter__has(f, ts->src[i].rank))
			continue;
		struct rank_data rd;
		int rc = trace_set__load(ts, i, &rd, e);
		if (rc)
			return rc;
		for (size_t r = 0; r < rd.nr_regions; r++)
			for (int64_t k = 0; k < rd.regions[r].nr_calls; k++) {
				int64_t s = spt_load_i64(rd.regions[r].starts + 8 * k, rd.swap);
				if (!any || s < *min)
					*min = s;
				any = true;
			}
		rank_data__release(&rd);
	}
	return 0;
}
