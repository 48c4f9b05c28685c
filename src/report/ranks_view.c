// SPDX-License-Identifier: BSD-3-Clause
#include "report/ranks_view.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "analysis/imbalance.h"
#include "analysis/threads.h"
#include "report/summary.h"

/* "  threads: 8 application threads over 4 ranks; 4 MPI runtime helper
 * threads ...": said when the Run holds more thread Loci than ranks. */
static int render_threads(const struct rank_imbalance *ri, struct text_lines *out)
{
	if (ri->nr_threads + ri->nr_helpers <= ri->nr_sampled)
		return 0;
	char app[96] = "";
	if (ri->nr_threads > ri->nr_sampled)
		snprintf(app, sizeof(app), "%d application threads over the %d sampled ranks",
			 ri->nr_threads, ri->nr_sampled);
	else
		snprintf(app, sizeof(app), "one application thread per rank");
	if (!ri->nr_helpers)
		return text_lines__add(out, "  threads: %s", app);
	char share[48] = "";
	if (!isnan(ri->helper_fraction))
		snprintf(share, sizeof(share), ", %.1f%% of the sampled time", 100 * ri->helper_fraction);
	return text_lines__add(out,
			       "  threads: %s; %d MPI runtime helper thread%s seen beside them "
			       "(progress, event loops%s), not counted as application Loci",
			       app, ri->nr_helpers, ri->nr_helpers == 1 ? "" : "s", share);
}

int ranks_view_lines(const struct rank_imbalance *ri, struct text_lines *out)
{
	if (!ri->nr_rows)
		return 0;
	int missing = (int)ri->nr_rows - ri->nr_present;
	char extra[64] = "";
	if (missing > 0)
		snprintf(extra, sizeof(extra), ", %d left nothing", missing);
	char mpi[64] = "";
	if (!isnan(ri->mpi_fraction))
		snprintf(mpi, sizeof(mpi), "; MPI holds %.1f%% of the time", 100 * ri->mpi_fraction);
	const char *ranks = ri->nr_rows == 1 ? "rank" : "ranks";
	int rc;
	if (isnan(ri->imbalance))
		rc = text_lines__add(out, "%zu %s (%d sampled%s); imbalance unavailable: %s%s",
				     ri->nr_rows, ranks, ri->nr_sampled, extra,
				     ri->reason ? ri->reason : "no rank time", mpi);
	else
		rc = text_lines__add(out, "%zu %s (%d sampled%s); busiest rank %d at %.2fx the mean%s",
				     ri->nr_rows, ranks, ri->nr_sampled, extra, ri->busiest_rank,
				     ri->imbalance, mpi);
	if (rc == 0)
		rc = render_threads(ri, out);
	if (rc < 0 || isnan(ri->imbalance))
		return rc;
	if (!isnan(ri->app_imbalance) && !isnan(ri->total_imbalance) &&
	    ri->imbalance == ri->app_imbalance)
		rc = text_lines__add(out, "  measured on %s; on total time, waiting included: "
					  "rank %d at %.2fx; the kernel holds %.1f%%", ri->basis,
				     ri->total_busiest, ri->total_imbalance, 100 * ri->sys_fraction);
	else
		rc = text_lines__add(out, "  measured on %s", ri->basis);
	if (rc == 0 && ri->quality == QUALITY_ESTIMATED && ri->reason)
		rc = text_lines__add(out, "  busiest rank's %.2fx downgraded to estimated: %s",
				     ri->imbalance, ri->reason);
	return rc;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *row_json(const struct rank_row *row)
{
	double all = row->app_ns + row->mpi_ns + row->sys_ns;
	double frac = row->sampled && all > 0 ? row->mpi_ns / all : NAN;
	return json_pack("{s:i, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:i, s:i}",
			 "rank", row->rank,
			 "node", row->node ? json_string(row->node) : json_null(), "sampled",
			 row->sampled, "counted", row->counted, "time_ns", num_or_null(row->time_ns),
			 "time_source", row->time_source ? json_string(row->time_source) : json_null(),
			 "app_ns", num_or_null(row->app_ns), "mpi_ns", num_or_null(row->mpi_ns),
			 "sys_ns", num_or_null(row->sys_ns),
			 "mpi_fraction", num_or_null(frac), "samples", (json_int_t)row->samples,
			 "threads", row->nr_threads, "helper_threads", row->nr_helpers);
}

json_t *ranks_view_payload(const struct rank_imbalance *ri)
{
	if (!ri->nr_rows)
		return json_null();
	json_t *rows = json_array(), *unsampled = json_array(), *missing = json_array();
	for (size_t r = 0; r < ri->nr_rows; r++) {
		const struct rank_row *row = &ri->rows[r];
		json_array_append_new(rows, row_json(row));
		if (!row->present)
			json_array_append_new(missing, json_integer(row->rank));
		else if (!row->sampled)
			json_array_append_new(unsampled, json_integer(row->rank));
	}
	json_t *imb = json_pack(
		"{s:o, s:s, s:s, s:o, s:s, s:s}", "value", num_or_null(ri->imbalance), "unit",
		"ratio", "quality", quality__name(ri->quality), "reason",
		ri->reason ? json_string(ri->reason) : json_null(), "formula",
		"busiest rank's time / mean rank time", "basis", ri->basis);
	json_t *mpi = json_pack(
		"{s:o, s:s, s:s, s:o, s:s}", "value", num_or_null(ri->mpi_fraction), "unit", "ratio",
		"quality", isnan(ri->mpi_fraction) ? "unavailable" : "measured", "reason",
		isnan(ri->mpi_fraction) ? json_string("no rank was sampled") : json_null(),
		"formula", "samples in MPI runtime modules / all samples, over sampled ranks");
	json_t *helpers = json_pack("{s:i, s:o, s:s}", "count", ri->nr_helpers, "fraction",
				    num_or_null(ri->helper_fraction), "rule", THREADS_HELPER_RULE);
	return json_pack("{s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o}",
			 "imbalance", imb,
			 "mpi_fraction", mpi, "sys_fraction", num_or_null(ri->sys_fraction),
			 "busiest_rank", ri->busiest_rank, "world_size",
			 ri->world_size >= 0 ? json_integer(ri->world_size) : json_null(),
			 "unsampled", unsampled, "missing", missing, "total_imbalance",
			 num_or_null(ri->total_imbalance), "app_imbalance",
			 num_or_null(ri->app_imbalance), "rows", rows, "threads", ri->nr_threads,
			 "helper_threads", helpers);
}
