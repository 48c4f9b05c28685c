// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/imbalance.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/threads.h"
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

/* Thread Loci per rank: the application's, and the MPI runtime's helpers. */
static int count_threads(const struct pivot *p, struct rank_imbalance *ri)
{
	struct locus_roles roles;
	if (locus_roles(p, ri->time_base, &roles) < 0)
		return -ENOMEM;
	bool *sampled = xcalloc(p->nr_loci ? p->nr_loci : 1, sizeof(bool));
	if (!sampled) {
		locus_roles__release(&roles);
		return -ENOMEM;
	}
	for (size_t i = 0; ri->time_base && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE && m->locus >= 0 && (size_t)m->locus < p->nr_loci &&
		    m->counter && strcmp(m->counter, ri->time_base) == 0 && m->value > 0)
			sampled[m->locus] = true;
	}
	for (size_t l = 0; l < p->nr_loci; l++) {
		int r = p->loci[l].rank;
		if (r < 0 || (size_t)r >= ri->nr_rows || !sampled[l])
			continue;
		bool helper = locus_roles__is_helper(&roles, (int64_t)l);
		ri->rows[r].nr_helpers += helper;
		ri->rows[r].nr_threads += !helper;
		ri->nr_helpers += helper;
		ri->nr_threads += !helper;
	}
	if (roles.all_time > 0)
		ri->helper_fraction = roles.helper_time / roles.all_time;
	xfree(sampled);
	locus_roles__release(&roles);
	return 0;
}

int imbalance_ranks(const struct pivot *p, int world_size, struct rank_imbalance *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->world_size = world_size;
	ri->busiest_rank = ri->total_busiest = ri->app_busiest = -1;
	ri->imbalance = ri->total_imbalance = ri->app_imbalance = NAN;
	ri->mpi_fraction = ri->sys_fraction = ri->helper_fraction = NAN;
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
	if (count_threads(p, ri) < 0) {
		xfree(counted);
		return -ENOMEM;
	}
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
	return 0;
}

void rank_imbalance__release(struct rank_imbalance *ri)
{
	if (!ri)
		return;
	zfree(&ri->rows);
	zfree(&ri->reason);
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

int imbalance_render(const struct rank_imbalance *ri, struct text_lines *out)
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

json_t *imbalance_payload(const struct rank_imbalance *ri)
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
	json_t *helpers = json_pack(
		"{s:i, s:o, s:s}", "count", ri->nr_helpers, "fraction",
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
