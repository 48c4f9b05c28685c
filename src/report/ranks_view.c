// SPDX-License-Identifier: BSD-3-Clause
#include "report/ranks_view.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "analysis/imbalance.h"
#include "report/summary.h"

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
	int rc;
	if (isnan(ri->imbalance))
		rc = text_lines__add(out, "ranks: %zu (%d sampled%s); imbalance unavailable: %s%s",
				     ri->nr_rows, ri->nr_sampled, extra,
				     ri->reason ? ri->reason : "no rank time", mpi);
	else
		rc = text_lines__add(out, "ranks: %zu (%d sampled%s); busiest rank %d at %.2fx the mean%s",
				     ri->nr_rows, ri->nr_sampled, extra, ri->busiest_rank,
				     ri->imbalance, mpi);
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
		rc = text_lines__add(out, "  downgraded to estimated: %s", ri->reason);
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
	return json_pack("{s:i, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "rank", row->rank,
			 "node", row->node ? json_string(row->node) : json_null(), "sampled",
			 row->sampled, "counted", row->counted, "time_ns", num_or_null(row->time_ns),
			 "time_source", row->time_source ? json_string(row->time_source) : json_null(),
			 "app_ns", num_or_null(row->app_ns), "mpi_ns", num_or_null(row->mpi_ns),
			 "sys_ns", num_or_null(row->sys_ns),
			 "mpi_fraction", num_or_null(frac), "samples", (json_int_t)row->samples);
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
	return json_pack("{s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "imbalance", imb,
			 "mpi_fraction", mpi, "sys_fraction", num_or_null(ri->sys_fraction),
			 "busiest_rank", ri->busiest_rank, "world_size",
			 ri->world_size >= 0 ? json_integer(ri->world_size) : json_null(),
			 "unsampled", unsampled, "missing", missing, "total_imbalance",
			 num_or_null(ri->total_imbalance), "app_imbalance",
			 num_or_null(ri->app_imbalance), "rows", rows);
}
