// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/imbalance.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "report/summary.h"

/*
 * Modules of MPI runtimes and their transports, by basename prefix. Open MPI
 * (libmpi, libopen-pal/-rte, libpmix, libprrte, mca_* components), MPICH and
 * derivatives (libmpich, libmpl, libpmi), UCX (libucp/ucs/uct/ucm), OFI
 * (libfabric), PSM/PSM2, verbs providers, HPE/Cray (libmpi_cray, libcxi),
 * shared-memory helpers (libxpmem, libknem) and collectives (libhcoll).
 */
static const char *const mpi_prefixes[] = {
	"libmpi",  "libopen-pal", "libopen-rte", "libpmix", "libprrte", "libpmi",
	"libmpich", "libmpl",     "libucp",      "libucs",  "libuct",   "libucm",
	"libfabric", "libpsm",    "libibverbs",  "libmlx",  "libcxi",   "libxpmem",
	"libknem",  "libhcoll",   "libevent",    "libhwloc", "mca_",    "libmca_",
};

bool imbalance_is_mpi_module(const char *module)
{
	if (!module)
		return false;
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	for (size_t i = 0; i < sizeof(mpi_prefixes) / sizeof(mpi_prefixes[0]); i++)
		if (strncmp(base, mpi_prefixes[i], strlen(mpi_prefixes[i])) == 0)
			return true;
	return false;
}

/* The time base: the first of task-clock, cpu-clock, cycles sampled on a Hotspot. */
static const char *time_base_of(const struct pivot *p)
{
	static const char *const order[] = {"task-clock", "cpu-clock", "cycles"};
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < p->nr_measurements; i++) {
			const struct measurement *m = &p->measurements[i];
			if (m->hotspot != PIVOT_NONE && m->counter && strcmp(m->counter, order[k]) == 0)
				return m->counter;
		}
	return NULL;
}

static int rank_of(const struct pivot *p, int64_t locus)
{
	if (locus < 0 || (size_t)locus >= p->nr_loci)
		return -1;
	return p->loci[locus].rank;
}

static int alloc_rows(const struct pivot *p, int world_size, struct rank_imbalance *ri)
{
	int max_rank = world_size - 1;
	for (size_t i = 0; i < p->nr_loci; i++)
		if (p->loci[i].rank > max_rank)
			max_rank = p->loci[i].rank;
	if (max_rank < 0)
		return 0;
	ri->rows = xcalloc((size_t)max_rank + 1, sizeof(*ri->rows));
	if (!ri->rows)
		return -ENOMEM;
	ri->nr_rows = (size_t)max_rank + 1;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		struct rank_row *row = &ri->rows[r];
		row->rank = (int)r;
		row->time_ns = row->app_ns = row->mpi_ns = row->sys_ns = NAN;
	}
	for (size_t i = 0; i < p->nr_loci; i++) {
		int r = p->loci[i].rank;
		if (r >= 0 && !ri->rows[r].present) {
			ri->rows[r].present = true;
			ri->rows[r].node = p->loci[i].node;
		}
	}
	return 0;
}

static void add_value(double *acc, double v)
{
	*acc = isnan(*acc) ? v : *acc + v;
}

static void accumulate(const struct pivot *p, struct rank_imbalance *ri, double *counted)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		int r = rank_of(p, m->locus);
		if (r < 0 || m->quality == QUALITY_UNAVAILABLE || !m->counter)
			continue;
		struct rank_row *row = &ri->rows[r];
		if (m->hotspot == PIVOT_NONE) {
			if (strcmp(m->counter, "task-clock") == 0) {
				add_value(&counted[r], m->value);
				row->counted = true;
			}
			continue;
		}
		if (!ri->time_base || strcmp(m->counter, ri->time_base) != 0)
			continue;
		const struct hotspot *h = &p->hotspots[m->hotspot];
		if (isnan(row->app_ns))
			row->app_ns = row->mpi_ns = row->sys_ns = 0;
		if (imbalance_is_mpi_module(h->module))
			row->mpi_ns += m->value;
		else if (!h->module || h->module[0] == '[')
			row->sys_ns += m->value;
		else
			row->app_ns += m->value;
		row->samples += m->sample_count > 0 ? m->sample_count : 0;
		row->sampled = true;
	}
}

/* busiest / mean of the value picked by `app`, over rows that have one. */
static double ratio_over(const struct rank_imbalance *ri, bool app, int *busiest, int *n_out)
{
	double sum = 0, mx = -1;
	int n = 0;
	*busiest = -1;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		double v = app ? ri->rows[r].app_ns : ri->rows[r].time_ns;
		if (isnan(v))
			continue;
		sum += v;
		n++;
		if (v > mx) {
			mx = v;
			*busiest = (int)r;
		}
	}
	*n_out = n;
	if (n < 2 || !(sum > 0))
		return NAN;
	return mx / (sum / n);
}

static void set_reason(struct rank_imbalance *ri, const char *fmt, int a, int b)
{
	xfree(ri->reason);
	ri->reason = xasprintf(fmt, a, b);
}

static void verdict(struct rank_imbalance *ri)
{
	int n_total = 0, n_app = 0;
	ri->total_imbalance = ratio_over(ri, false, &ri->total_busiest, &n_total);
	ri->app_imbalance = ratio_over(ri, true, &ri->app_busiest, &n_app);
	bool use_app = !isnan(ri->app_imbalance) && !isnan(ri->mpi_fraction) &&
		       ri->mpi_fraction + ri->sys_fraction > IMBALANCE_MPI_SIGNIFICANT;
	ri->imbalance = use_app ? ri->app_imbalance : ri->total_imbalance;
	ri->busiest_rank = use_app ? ri->app_busiest : ri->total_busiest;
	ri->basis = use_app ? "application time (user code outside the MPI runtime and the kernel)"
			    : "total time";
	int n = use_app ? n_app : n_total;
	int all = (int)ri->nr_rows;
	ri->quality = QUALITY_MEASURED;
	if (isnan(ri->imbalance)) {
		ri->quality = QUALITY_UNAVAILABLE;
		set_reason(ri, "%d of %d ranks have a time: imbalance needs two", n, all);
	} else if (n < all) {
		ri->quality = QUALITY_ESTIMATED;
		set_reason(ri, use_app ? "over the %d sampled ranks of %d: the others were "
					 "only counted or left nothing"
				       : "over the %d ranks of %d that have a time: the others "
					 "left nothing",
			   n, all);
	} else if (!use_app && ri->nr_counted > 0 && ri->nr_counted < all) {
		ri->quality = QUALITY_ESTIMATED;
		set_reason(ri, "counted task-clock on %d of %d ranks, sampled time on the others",
			   ri->nr_counted, all);
	}
}

int imbalance_ranks(const struct pivot *p, int world_size, struct rank_imbalance *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->world_size = world_size;
	ri->busiest_rank = ri->total_busiest = ri->app_busiest = -1;
	ri->imbalance = ri->total_imbalance = ri->app_imbalance = NAN;
	ri->mpi_fraction = ri->sys_fraction = ri->mpi_measured = NAN;
	ri->mpi.dom_rank = -1;
	ri->quality = QUALITY_UNAVAILABLE;
	ri->basis = "total time";
	if (alloc_rows(p, world_size, ri) < 0)
		return -ENOMEM;
	if (!ri->nr_rows)
		return 0;
	ri->time_base = time_base_of(p);
	double *counted = xcalloc(ri->nr_rows, sizeof(double));
	if (!counted)
		return -ENOMEM;
	for (size_t r = 0; r < ri->nr_rows; r++)
		counted[r] = NAN;
	accumulate(p, ri, counted);
	double mpi = 0, app = 0, sys = 0;
	for (size_t r = 0; r < ri->nr_rows; r++) {
		struct rank_row *row = &ri->rows[r];
		ri->nr_present += row->present;
		ri->nr_sampled += row->sampled;
		ri->nr_counted += row->counted;
		if (row->counted) {
			row->time_ns = counted[r];
			row->time_source = "counted task-clock";
		} else if (row->sampled) {
			row->time_ns = row->app_ns + row->mpi_ns + row->sys_ns;
			row->time_source = "samples";
		}
		if (row->sampled) {
			mpi += row->mpi_ns;
			app += row->app_ns;
			sys += row->sys_ns;
		}
	}
	xfree(counted);
	if (mpi + app + sys > 0) {
		ri->mpi_fraction = mpi / (mpi + app + sys);
		ri->sys_fraction = sys / (mpi + app + sys);
	}
	verdict(ri);
	ri->pivot = p;
	if (mpi_view_build(p, ri->nr_rows, &ri->mpi) < 0)
		return -ENOMEM;
	double in_mpi = 0, wall = 0;
	for (size_t r = 0; r < ri->mpi.nr; r++)
		if (ri->mpi.ranks[r].measured && ri->mpi.ranks[r].wall_ns > 0) {
			in_mpi += ri->mpi.ranks[r].mpi_ns;
			wall += ri->mpi.ranks[r].wall_ns;
		}
	if (wall > 0)
		ri->mpi_measured = in_mpi / wall;
	return 0;
}

void rank_imbalance__release(struct rank_imbalance *ri)
{
	if (!ri)
		return;
	zfree(&ri->rows);
	zfree(&ri->reason);
	mpi_view__release(&ri->mpi);
	ri->nr_rows = 0;
}

double imbalance_hotspot(const struct pivot *p, int64_t hotspot, const char *time_base,
			 int *busiest)
{
	*busiest = -1;
	int max_rank = -1;
	for (size_t i = 0; i < p->nr_loci; i++)
		if (p->loci[i].rank > max_rank)
			max_rank = p->loci[i].rank;
	if (max_rank < 0 || !time_base)
		return NAN;
	double *per = xcalloc((size_t)max_rank + 1, sizeof(double));
	if (!per)
		return NAN;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		int r = rank_of(p, m->locus);
		if (m->hotspot == hotspot && r >= 0 && m->counter &&
		    m->quality != QUALITY_UNAVAILABLE && strcmp(m->counter, time_base) == 0)
			per[r] += m->value;
	}
	double mx = 0, mn = INFINITY;
	for (int r = 0; r <= max_rank; r++) {
		if (!(per[r] > 0))
			continue;
		if (per[r] > mx) {
			mx = per[r];
			*busiest = r;
		}
		mn = per[r] < mn ? per[r] : mn;
	}
	xfree(per);
	return mx > 0 ? mx / mn : NAN;
}

int imbalance_render(const struct rank_imbalance *ri, struct text_lines *out)
{
	if (!ri->nr_rows)
		return 0;
	int missing = (int)ri->nr_rows - ri->nr_present;
	char extra[64] = "";
	if (missing > 0)
		snprintf(extra, sizeof(extra), ", %d left nothing", missing);
	char mpi[96] = "";
	if (!isnan(ri->mpi_measured))
		snprintf(mpi, sizeof(mpi), "; MPI holds %.1f%% of the time (measured in MPI calls)",
			 100 * ri->mpi_measured);
	else if (!isnan(ri->mpi_fraction))
		snprintf(mpi, sizeof(mpi), "; MPI holds %.1f%% of the time (estimated from samples)",
			 100 * ri->mpi_fraction);
	int rc;
	if (isnan(ri->imbalance))
		rc = text_lines__add(out, "ranks: %zu (%d sampled%s); imbalance unavailable: %s%s",
				     ri->nr_rows, ri->nr_sampled, extra,
				     ri->reason ? ri->reason : "no rank time", mpi);
	else
		rc = text_lines__add(out, "ranks: %zu (%d sampled%s); busiest rank %d at %.2fx the mean%s",
				     ri->nr_rows, ri->nr_sampled, extra, ri->busiest_rank,
				     ri->imbalance, mpi);
	if (rc == 0 && ri->mpi.dom_rank >= 0 && ri->mpi.dom_call)
		rc = text_lines__add(out, "  rank %d waits %.0f%% of its time in `%s`%s%s%s",
				     ri->mpi.dom_rank, 100 * ri->mpi.dom_fraction, ri->mpi.dom_call,
				     ri->mpi.dom_site[0] ? " at `" : "", ri->mpi.dom_site,
				     ri->mpi.dom_site[0] ? "`" : "");
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

/* The row's MPI time: measured by interposition when the rank left a profile,
 * else the sampled estimate, labelled as such. */
static json_t *row_mpi(const struct rank_imbalance *ri, const struct rank_row *row,
		       double *mpi_ns, double *frac)
{
	const struct mpi_rank_time *t = (size_t)row->rank < ri->mpi.nr ? &ri->mpi.ranks[row->rank]
								       : NULL;
	double all = row->app_ns + row->mpi_ns + row->sys_ns;
	if (t && t->measured && t->wall_ns > 0) {
		*mpi_ns = t->mpi_ns;
		*frac = t->mpi_ns / t->wall_ns;
		return json_pack("{s:s, s:s, s:o, s:f}", "source", "interposition", "quality",
				 quality__name(t->quality), "reason",
				 t->reason ? json_string(t->reason) : json_null(), "wall_ns",
				 t->wall_ns);
	}
	*mpi_ns = row->mpi_ns;
	*frac = row->sampled && all > 0 ? row->mpi_ns / all : NAN;
	if (isnan(*frac))
		return json_pack("{s:n, s:s, s:s, s:n}", "source", "quality", "unavailable",
				 "reason", "no MPI profile and no samples for this rank", "wall_ns");
	return json_pack("{s:s, s:s, s:s, s:n}", "source", "samples in MPI runtime modules",
			 "quality", "estimated", "reason",
			 "no MPI profile for this rank: share of its samples in MPI runtime "
			 "modules, which misses waits spent in the kernel",
			 "wall_ns");
}

static json_t *row_json(const struct rank_imbalance *ri, const struct rank_row *row)
{
	double mpi_ns, frac;
	json_t *mpi = row_mpi(ri, row, &mpi_ns, &frac);
	json_t *calls = ri->pivot ? mpi_view_calls_json(ri->pivot, row->rank) : json_array();
	return json_pack("{s:i, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}",
			 "rank", row->rank, "node",
			 row->node ? json_string(row->node) : json_null(), "sampled", row->sampled,
			 "counted", row->counted, "time_ns", num_or_null(row->time_ns),
			 "time_source", row->time_source ? json_string(row->time_source) : json_null(),
			 "app_ns", num_or_null(row->app_ns), "mpi_ns", num_or_null(mpi_ns),
			 "sys_ns", num_or_null(row->sys_ns), "mpi_fraction", num_or_null(frac),
			 "samples", (json_int_t)row->samples, "mpi", mpi, "mpi_calls", calls);
}

/* The Run's MPI share: measured when ranks were interposed, else the
 * sampled estimate, downgraded with its reason. */
static json_t *mpi_share(const struct rank_imbalance *ri)
{
	if (!isnan(ri->mpi_measured)) {
		int all = (int)ri->nr_rows, n = ri->mpi.nr_measured;
		char reason[160];
		snprintf(reason, sizeof(reason), "measured on %d of %d ranks: the others left no "
			 "MPI profile", n, all);
		return json_pack("{s:f, s:s, s:s, s:o, s:s, s:s}", "value", ri->mpi_measured,
				 "unit", "ratio", "quality", n < all ? "estimated" : "measured",
				 "reason", n < all ? json_string(reason) : json_null(), "formula",
				 "time inside MPI calls / time from MPI_Init to MPI_Finalize, summed "
				 "over ranks (interposition)", "source", "interposition");
	}
	bool none = isnan(ri->mpi_fraction);
	return json_pack("{s:o, s:s, s:s, s:s, s:s, s:s}", "value", num_or_null(ri->mpi_fraction),
			 "unit", "ratio", "quality", none ? "unavailable" : "estimated", "reason",
			 none ? "no rank was sampled and none left an MPI profile"
			      : "no MPI profile (interposition unavailable): share of samples in "
				"MPI runtime modules, which misses waits spent in the kernel",
			 "formula", "samples in MPI runtime modules / all samples, over sampled ranks",
			 "source", "samples");
}

static json_t *dominant_json(const struct rank_imbalance *ri)
{
	if (ri->mpi.dom_rank < 0 || !ri->mpi.dom_call)
		return json_null();
	return json_pack("{s:i, s:s, s:f, s:o}", "rank", ri->mpi.dom_rank, "call",
			 ri->mpi.dom_call, "fraction", ri->mpi.dom_fraction, "site",
			 ri->mpi.dom_site[0] ? json_string(ri->mpi.dom_site) : json_null());
}

json_t *imbalance_payload(const struct rank_imbalance *ri)
{
	if (!ri->nr_rows)
		return json_null();
	json_t *rows = json_array(), *unsampled = json_array(), *missing = json_array();
	for (size_t r = 0; r < ri->nr_rows; r++) {
		const struct rank_row *row = &ri->rows[r];
		json_array_append_new(rows, row_json(ri, row));
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
	json_t *mpi = mpi_share(ri);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "mpi_dominant", dominant_json(ri), "mpi_timeline",
			 ri->pivot ? mpi_view_timeline_json(ri->pivot) : json_null(), "imbalance", imb,
			 "mpi_fraction", mpi, "sys_fraction", num_or_null(ri->sys_fraction),
			 "busiest_rank", ri->busiest_rank, "world_size",
			 ri->world_size >= 0 ? json_integer(ri->world_size) : json_null(),
			 "unsampled", unsampled, "missing", missing, "total_imbalance",
			 num_or_null(ri->total_imbalance), "app_imbalance",
			 num_or_null(ri->app_imbalance), "rows", rows);
}
