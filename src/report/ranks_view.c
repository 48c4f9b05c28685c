// SPDX-License-Identifier: BSD-3-Clause
#include "report/ranks_view.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/imbalance.h"
#include "analysis/threads.h"
#include "report/mpi_json.h"
#include "report/summary.h"

/* "  threads: 8 application threads over 4 ranks; 4 MPI runtime helper
 * threads ...": said when the Run holds more thread Loci than ranks. */
/* What the verdict was measured on. */
static const char *basis(const struct rank_imbalance *ri)
{
	switch (ri->basis) {
	case IMBALANCE_BASIS_APP:
		return "application time (user code outside the MPI runtime and the kernel)";
	case IMBALANCE_BASIS_APP_INTERPOSED:
		return "application time (CPU time outside the MPI calls measured by interposition)";
	case IMBALANCE_BASIS_TOTAL:
	default:
		return "total time";
	}
}

/* Why the verdict is downgraded, into buf; NULL when it is measured. */
static const char *reason(const struct rank_imbalance *ri, char *buf, size_t cap)
{
	int n = ri->reason_n, of = ri->reason_of;
	switch (ri->reason) {
	case IMBALANCE_REASON_TOO_FEW:
		snprintf(buf, cap, "%d of %d rank%s %s a time: imbalance needs two", n, of,
			 of == 1 ? "" : "s", n == 1 ? "has" : "have");
		return buf;
	case IMBALANCE_REASON_SAMPLED_SUBSET:
		snprintf(buf, cap, "over the %d sampled ranks of %d: the others were only counted or "
				   "left nothing", n, of);
		return buf;
	case IMBALANCE_REASON_TIMED_SUBSET:
		snprintf(buf, cap, "over the %d ranks of %d that have a time: the others left nothing",
			 n, of);
		return buf;
	case IMBALANCE_REASON_MIXED_CLOCKS:
		snprintf(buf, cap, "counted task-clock on %d of %d ranks, sampled time on the others",
			 n, of);
		return buf;
	case IMBALANCE_REASON_INTERPOSED:
		snprintf(buf, cap, "each rank's CPU time times its share of wall clock outside MPI "
				   "calls: %d of %d ranks %s only counted, so the MPI runtime's share "
				   "cannot be split off their samples", n, of, n == 1 ? "was" : "were");
		return buf;
	case IMBALANCE_REASON_WORLD_UNBELIEVABLE:
		snprintf(buf, cap, "the manifest announces %d ranks for a Run holding %d Loci: not a "
				   "Run nunatak wrote (the announced size is ignored)", n, of);
		return buf;
	case IMBALANCE_REASON_RANK_UNBELIEVABLE:
		snprintf(buf, cap, "a Locus of rank %d in a Run holding %d Loci: not a Run nunatak "
				   "wrote (no rank view)", n, of);
		return buf;
	case IMBALANCE_REASON_SEPARATE_WORLDS:
		snprintf(buf, cap, "each rank's own MPI says its MPI_COMM_WORLD holds %d rank%s, the "
				   "launch numbered %d: separate jobs, whose ranks are not compared "
				   "(launcher and MPI library do not match: mpi-separate-worlds)",
			 n, n == 1 ? "" : "s", of);
		return buf;
	case IMBALANCE_REASON_NONE:
	default:
		return NULL;
	}
}

/* "4 separate 1-rank MPI worlds" / "6 ranks in 3 separate 2-rank MPI
 * worlds": what the launch really was when the ranks' own worlds are smaller. */
static void worlds_text(const struct rank_imbalance *ri, char *buf, size_t cap)
{
	const char *w = ri->own_worlds == 1 ? "world" : "worlds";
	if (ri->own_world_size == 1)
		snprintf(buf, cap, "%d separate 1-rank MPI %s", ri->own_worlds, w);
	else
		snprintf(buf, cap, "%zu ranks in %d separate %d-rank MPI %s", ri->nr_rows,
			 ri->own_worlds, ri->own_world_size, w);
}

/* The headline of separate worlds: never "N ranks", never an imbalance. */
static int apart_line(const struct rank_imbalance *ri, const char *extra, const char *mpi,
		      struct text_lines *out)
{
	char worlds[96];
	worlds_text(ri, worlds, sizeof(worlds));
	return text_lines__add(out, "%s, not one %zu-rank job (launcher and MPI library do not "
			       "match: each rank's own MPI says its world holds %d rank%s; "
			       "mpi-separate-worlds below; %d sampled%s); imbalance across them "
			       "not computed: separate jobs are not compared%s",
			       worlds, ri->nr_rows, ri->own_world_size,
			       ri->own_world_size == 1 ? "" : "s", ri->nr_sampled, extra, mpi);
}

static int render_threads(const struct rank_imbalance *ri, struct text_lines *out)
{
	if (ri->nr_threads + ri->nr_helpers <= ri->nr_sampled)
		return 0;
	char app[96] = "";
	if (ri->nr_threads > ri->nr_sampled)
		snprintf(app, sizeof(app), "%d application threads over the %d sampled rank%s",
			 ri->nr_threads, ri->nr_sampled, ri->nr_sampled == 1 ? "" : "s");
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

/* The reason of the first interposed rank whose MPI time is estimated
 * (it never finalized, its polling calls were timed 1 in N), or NULL. */
static const char *mpi_estimated_reason(const struct rank_imbalance *ri)
{
	for (size_t r = 0; r < ri->mpi.nr; r++)
		if (ri->mpi.ranks[r].measured && ri->mpi.ranks[r].quality == QUALITY_ESTIMATED)
			return ri->mpi.ranks[r].reason ? ri->mpi.ranks[r].reason : "estimated";
	return NULL;
}

static void calls_text(int64_t n, char *out, size_t cap)
{
	if (n >= 1000000)
		snprintf(out, cap, "%.1f M", (double)n / 1e6);
	else if (n >= 1000)
		snprintf(out, cap, "%.1f k", (double)n / 1e3);
	else
		snprintf(out, cap, "%lld", (long long)n);
}

/* When nunatak's PMPI probe costs a rank more than MPI_VIEW_PROBE_SHARE of
 * its time: how much, the calls that cost it, and the option leaving them
 * out of interposition. */
static int probe_line(const struct mpi_view *v, struct text_lines *out)
{
	if (v->probe_rank < 0 || !(v->probe_fraction > MPI_VIEW_PROBE_SHARE) || !v->nr_probe_calls)
		return 0;
	char calls[256] = "", names[200] = "";
	for (int k = 0; k < v->nr_probe_calls; k++) {
		char n[32];
		size_t a = strlen(calls), b = strlen(names);
		calls_text(v->probe_calls[k].calls, n, sizeof(n));
		snprintf(calls + a, sizeof(calls) - a, "%s%s call%s of %s", k ? ", " : "", n,
			 v->probe_calls[k].calls == 1 ? "" : "s", v->probe_calls[k].name);
		snprintf(names + b, sizeof(names) - b, "%s%s", k ? "," : "", v->probe_calls[k].name);
	}
	return text_lines__add(out, "  nunatak's MPI probe took %.1f%% of rank %d's time (estimated: "
			       "its cost per call, measured at MPI_Init, times %s); to leave "
			       "those calls out of the measurement: nunatak run --mpi-skip %s "
			       "(docs/mpi.md)", 100 * v->probe_fraction, v->probe_rank, calls,
			       names);
}

/* Who talks to whom: point-to-point (measured), collectives (estimated). */
static int comm_lines(const struct rank_imbalance *ri, struct text_lines *out)
{
	char comm[200], coll[400];
	int rc = 0;
	if (ri->own_world_size > 0)
		return text_lines__add(out, "  who talks to whom: not placed: each separate world "
				       "numbers its ranks from 0, so peers and communicator members "
				       "are not the launch's ranks");
	mpi_comm_matrix_line(ri->pivot, (int)ri->nr_rows, comm, sizeof(comm));
	if (comm[0])
		rc = text_lines__add(out, "  %s", comm);
	mpi_comm_coll_line(ri->pivot, (int)ri->nr_rows, coll, sizeof(coll));
	if (rc == 0 && coll[0])
		rc = text_lines__add(out, "  %s", coll);
	return rc;
}

int ranks_view_lines(const struct rank_imbalance *ri, struct text_lines *out)
{
	char why_buf[256];
	const char *why = reason(ri, why_buf, sizeof(why_buf));
	if (!ri->nr_rows) /* a reason here: the Run's ranks were not believable */
		return why ? text_lines__add(out, "ranks: unavailable: %s", why) : 0;
	int missing = (int)ri->nr_rows - ri->nr_present;
	char extra[64] = "";
	if (missing > 0)
		snprintf(extra, sizeof(extra), ", %d left nothing", missing);
	char mpi[96] = "";
	if (!isnan(ri->mpi_measured))
		snprintf(mpi, sizeof(mpi), "; MPI holds %.1f%% of the time (%s in MPI calls), "
					   "wall clock",
			 100 * ri->mpi_measured,
			 ri->mpi.nr_measured < (int)ri->nr_rows || mpi_estimated_reason(ri)
				 ? "estimated" : "measured");
	else if (!isnan(ri->mpi_fraction))
		snprintf(mpi, sizeof(mpi), "; MPI holds %.1f%% of the time (estimated from samples), "
					   "sampled CPU time",
			 100 * ri->mpi_fraction);
	const char *ranks = ri->nr_rows == 1 ? "rank" : "ranks";
	int rc;
	if (ri->own_world_size > 0)
		rc = apart_line(ri, extra, mpi, out);
	else if (isnan(ri->imbalance))
		rc = text_lines__add(out, "%zu %s (%d sampled%s); imbalance unavailable: %s%s",
				     ri->nr_rows, ranks, ri->nr_sampled, extra,
				     why ? why : "no rank time", mpi);
	else
		rc = text_lines__add(out, "%zu %s (%d sampled%s); busiest rank %d at %.2fx the mean%s",
				     ri->nr_rows, ranks, ri->nr_sampled, extra, ri->busiest_rank,
				     ri->imbalance, mpi);
	/* the share quoted is the named site's, never all of the call's */
	char all[80] = "";
	if (ri->mpi.dom_fraction - ri->mpi.dom_site_fraction >= 0.005)
		snprintf(all, sizeof(all), "; %.0f%% at all its sites", 100 * ri->mpi.dom_fraction);
	if (rc == 0 && ri->mpi.dom_rank >= 0 && ri->mpi.dom_call && ri->mpi.dom_site[0])
		rc = text_lines__add(out, "  rank %d waits %.0f%% of its time in `%s` at `%s`%s "
				     "(wall clock)", ri->mpi.dom_rank,
				     100 * ri->mpi.dom_site_fraction, ri->mpi.dom_call,
				     ri->mpi.dom_site, all);
	else if (rc == 0 && ri->mpi.dom_rank >= 0 && ri->mpi.dom_call)
		rc = text_lines__add(out, "  rank %d waits %.0f%% of its time in `%s` (wall clock)",
				     ri->mpi.dom_rank, 100 * ri->mpi.dom_fraction, ri->mpi.dom_call);
	if (rc == 0)
		rc = probe_line(&ri->mpi, out);
	if (rc == 0 && ri->pivot)
		rc = comm_lines(ri, out);
	if (rc == 0 && ri->periods_exact)
		rc = text_lines__add(out, "  rank times: counted task-clock on %d rank%s, the sum of "
				     "their task-clock samples' periods on the %d sampled (the same "
				     "count, short of one period a thread)",
				     ri->nr_counted, ri->nr_counted == 1 ? "" : "s",
				     (int)ri->nr_rows - ri->nr_counted);
	if (rc == 0)
		rc = render_threads(ri, out);
	if (rc < 0 || isnan(ri->imbalance))
		return rc;
	const char *clock = ri->basis == IMBALANCE_BASIS_APP_INTERPOSED ? "CPU time x wall-clock share"
							       : "sampled CPU time";
	if (!isnan(ri->app_imbalance) && !isnan(ri->total_imbalance) &&
	    ri->imbalance == ri->app_imbalance)
		rc = text_lines__add(out, "  measured on %s, %s; on total time, waiting included: "
					  "rank %d at %.2fx; the kernel holds %.1f%%", basis(ri), clock,
				     ri->total_busiest, ri->total_imbalance, 100 * ri->sys_fraction);
	else
		rc = text_lines__add(out, "  measured on %s, %s", basis(ri), clock);
	if (rc == 0 && ri->busiest_node >= 0)
		rc = text_lines__add(out, "  %zu nodes; busiest node %s (%d rank%s) at %.2fx the mean "
				     "node, on the ranks' %s", ri->nr_nodes,
				     ri->nodes[ri->busiest_node].node,
				     ri->nodes[ri->busiest_node].nr_ranks,
				     ri->nodes[ri->busiest_node].nr_ranks == 1 ? "" : "s", ri->node_imbalance,
				     ri->basis != IMBALANCE_BASIS_TOTAL ? "application time" : "total time");
	if (rc == 0 && ri->quality == QUALITY_ESTIMATED && why)
		rc = text_lines__add(out, "  busiest rank's %.2fx downgraded to estimated: %s",
				     ri->imbalance, why);
	return rc;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

#define R_NOT_SAMPLED "this rank left no samples"

/* A sampled time of a row: CPU time from perf samples of the time base. */
static json_t *sampled_ns(const struct rank_row *row, double ns)
{
	return quality__json_clock(ns, "ns", QUALITY_MEASURED,
				   row->present ? R_NOT_SAMPLED : "this rank left nothing",
				   CLOCK_SAMPLED);
}

/* The row's MPI time: measured by interposition when the rank left a profile
 * (wall clock, and its fraction of the rank's MPI_Init..MPI_Finalize wall
 * time), else the sampled estimate (CPU time), labelled as such. */
static json_t *row_mpi(const struct rank_imbalance *ri, const struct rank_row *row,
		       json_t **mpi_ns, json_t **frac)
{
	const struct mpi_rank_time *t = (size_t)row->rank < ri->mpi.nr ? &ri->mpi.ranks[row->rank]
								       : NULL;
	double all = row->app_ns + row->mpi_ns + row->sys_ns;
	if (t && t->measured && t->wall_ns > 0) {
		*mpi_ns = quality__json_clock(t->mpi_ns, "ns", t->quality, t->reason, CLOCK_WALL);
		*frac = quality__json_clock(t->mpi_ns / t->wall_ns, "ratio", t->quality, t->reason,
					    CLOCK_WALL);
		return json_pack("{s:s, s:s, s:o, s:o}", "source", "interposition", "quality",
				 quality__name(t->quality), "reason",
				 t->reason ? json_string(t->reason) : json_null(), "wall_ns",
				 quality__json_clock(t->wall_ns, "ns", QUALITY_MEASURED, NULL,
						     CLOCK_WALL));
	}
	static const char est[] = "no MPI profile for this rank: share of its samples in MPI "
				  "runtime modules, which misses waits spent in the kernel";
	static const char none[] = "no MPI profile and no samples for this rank";
	bool have = row->sampled && all > 0;
	*mpi_ns = quality__json_clock(row->mpi_ns, "ns", QUALITY_ESTIMATED, have ? est : none,
				      CLOCK_SAMPLED);
	*frac = quality__json_clock(have ? row->mpi_ns / all : NAN, "ratio", QUALITY_ESTIMATED,
				    have ? est : none, CLOCK_SAMPLED);
	if (!have)
		return json_pack("{s:n, s:s, s:s, s:o}", "source", "quality", "unavailable",
				 "reason", none, "wall_ns",
				 quality__json(NAN, "ns", QUALITY_UNAVAILABLE,
					       "no MPI profile for this rank"));
	return json_pack("{s:s, s:s, s:s, s:o}", "source", "samples in MPI runtime modules",
			 "quality", "estimated", "reason", est, "wall_ns",
			 quality__json(NAN, "ns", QUALITY_UNAVAILABLE, "no MPI profile for this rank"));
}

/* At scale a row's MPI calls are in the payload for the first ranks (those
 * the page lists) and the named ones only: 4096 ranks' calls and sites would
 * make the page megabytes larger for rows nobody sees. */
#define RANKS_VIEW_MPI_ROWS 64

static bool calls_kept(const struct rank_imbalance *ri, const struct rank_row *row)
{
	return ri->nr_rows <= RANKS_VIEW_MPI_ROWS || row->rank < RANKS_VIEW_MPI_ROWS ||
	       row->rank == ri->busiest_rank || row->rank == ri->total_busiest ||
	       row->rank == ri->mpi.dom_rank;
}

static json_t *row_json(const struct rank_imbalance *ri, const struct rank_row *row)
{
	json_t *mpi_ns, *frac;
	json_t *mpi = row_mpi(ri, row, &mpi_ns, &frac);
	json_t *calls = !calls_kept(ri, row) ? json_null()
			: ri->pivot	     ? mpi_calls_json(ri->pivot, row->rank)
					     : json_array();
	bool counted = row->time_source && strcmp(row->time_source, "samples") != 0;
	json_t *time = quality__json_clock(row->time_ns, "ns", QUALITY_MEASURED,
					   "this rank was neither sampled nor counted",
					   counted ? "counted CPU time (task-clock)" : CLOCK_SAMPLED);
	json_t *o = json_pack("{s:i, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:i, s:i}",
			 "rank", row->rank, "node",
			 row->node ? json_string(row->node) : json_null(), "sampled", row->sampled,
			 "counted", row->counted, "time_ns", time,
			 "time_source", row->time_source ? json_string(row->time_source) : json_null(),
			 "app_ns", sampled_ns(row, row->app_ns), "mpi_ns", mpi_ns,
			 "sys_ns", sampled_ns(row, row->sys_ns), "mpi_fraction", frac,
			 "samples", (json_int_t)row->samples, "mpi", mpi, "mpi_calls", calls, "threads", row->nr_threads,
			 "helper_threads", row->nr_helpers);
	/* An unsampled rank's app_ns and sys_ns are omitted: always unavailable
	 * with R_NOT_SAMPLED on the sampled clock, which the reader restores
	 * (docs/mpi.md); 250 bytes a row, a megabyte of a 4096-rank page. */
	if (o && row->present && isnan(row->app_ns))
		json_object_del(o, "app_ns");
	if (o && row->present && isnan(row->sys_ns))
		json_object_del(o, "sys_ns");
	return o;
}

/* The Run's MPI share: measured when ranks were interposed (estimated when
 * a rank's is), else the sampled estimate, downgraded with its reason. */
static json_t *mpi_share(const struct rank_imbalance *ri)
{
	if (!isnan(ri->mpi_measured)) {
		int all = (int)ri->nr_rows, n = ri->mpi.nr_measured;
		const char *est = mpi_estimated_reason(ri);
		char reason[400];
		if (n < all)
			snprintf(reason, sizeof(reason), "measured on %d of %d ranks: the others left "
				 "no MPI profile", n, all);
		else if (est)
			snprintf(reason, sizeof(reason), "%s", est);
		bool estimated = n < all || est;
		return json_pack("{s:f, s:s, s:s, s:o, s:s, s:s}", "value", ri->mpi_measured,
				 "unit", "ratio", "quality", estimated ? "estimated" : "measured",
				 "reason", estimated ? json_string(reason) : json_null(), "formula",
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

/* {rank, fraction, calls[{name, calls, ns}], option} or null: where the
 * probe costs the largest share of a rank's time. */
static json_t *probe_json(const struct mpi_view *v)
{
	if (v->probe_rank < 0 || !v->nr_probe_calls)
		return json_null();
	static const char why[] = "the probe's cost per call, measured on the rank at MPI_Init, "
				  "times its calls";
	json_t *calls = json_array();
	char names[200] = "";
	for (int k = 0; calls && k < v->nr_probe_calls; k++) {
		size_t b = strlen(names);
		snprintf(names + b, sizeof(names) - b, "%s%s", k ? "," : "", v->probe_calls[k].name);
		json_array_append_new(calls, json_pack("{s:s, s:I, s:o}", "name",
						       v->probe_calls[k].name, "calls",
						       (json_int_t)v->probe_calls[k].calls, "ns",
						       quality__json_clock(v->probe_calls[k].ns, "ns",
									   QUALITY_ESTIMATED, why,
									   CLOCK_WALL)));
	}
	char option[240];
	snprintf(option, sizeof(option), "--mpi-skip %s", names);
	return json_pack("{s:i, s:o, s:b, s:o, s:s}", "rank", v->probe_rank, "fraction",
			 quality__json_clock(v->probe_fraction, "ratio", QUALITY_ESTIMATED, why,
					     CLOCK_WALL),
			 "stated", v->probe_fraction > MPI_VIEW_PROBE_SHARE, "calls",
			 calls ? calls : json_null(), "option", option);
}

static json_t *dominant_json(const struct rank_imbalance *ri)
{
	if (ri->mpi.dom_rank < 0 || !ri->mpi.dom_call)
		return json_null();
	bool known = (size_t)ri->mpi.dom_rank < ri->mpi.nr;
	enum quality q = known ? ri->mpi.ranks[ri->mpi.dom_rank].quality : QUALITY_UNAVAILABLE;
	const char *why = known && ri->mpi.ranks[ri->mpi.dom_rank].reason
				  ? ri->mpi.ranks[ri->mpi.dom_rank].reason
				  : "the rank's MPI time is unknown";
	/* The site's share carries the same Quality as the call's (one clock). */
	return json_pack("{s:i, s:s, s:o, s:o, s:o}", "rank", ri->mpi.dom_rank, "call",
			 ri->mpi.dom_call, "fraction",
			 quality__json_clock(ri->mpi.dom_fraction, "ratio", q, why, CLOCK_WALL),
			 "site",
			 ri->mpi.dom_site[0] ? json_string(ri->mpi.dom_site) : json_null(),
			 "site_fraction",
			 ri->mpi.dom_site[0]
				 ? quality__json_clock(ri->mpi.dom_site_fraction, "ratio", q, why, CLOCK_WALL)
				 : json_null());
}

/* node > rank: [{node, ranks, time_ns, value_ns}] and the node imbalance;
 * the times are Quality values (a node's sum is estimated when some of its
 * ranks have no value, unavailable when none has). */
static json_t *node_time(double v, int valued, int ranks, const char *clock)
{
	if (isnan(v))
		return quality__json_clock(NAN, "ns", QUALITY_UNAVAILABLE,
					   "no rank on this node has a time", clock);
	return quality__json_clock(v, "ns", valued < ranks ? QUALITY_ESTIMATED : QUALITY_MEASURED,
				   valued < ranks ? "summed over the node's ranks that have a time"
						  : NULL,
				   clock);
}

static json_t *nodes_json(const struct rank_imbalance *ri)
{
	const char *clock = ri->basis == IMBALANCE_BASIS_APP_INTERPOSED ? "CPU time x wall-clock share"
									: CLOCK_SAMPLED;
	json_t *a = json_array();
	for (size_t k = 0; a && k < ri->nr_nodes; k++) {
		const struct node_row *n = &ri->nodes[k];
		json_t *ranks = json_array();
		int timed = 0;
		for (size_t r = 0; ranks && r < ri->nr_rows; r++)
			if (ri->rows[r].node && strcmp(ri->rows[r].node, n->node) == 0) {
				json_array_append_new(ranks, json_integer((json_int_t)r));
				timed += !isnan(ri->rows[r].time_ns);
			}
		json_array_append_new(
			a, json_pack("{s:s, s:o, s:o, s:o}", "node", n->node, "ranks",
				     ranks ? ranks : json_array(), "time_ns",
				     node_time(n->time_ns, timed, n->nr_ranks, CLOCK_SAMPLED),
				     "value_ns", node_time(n->value_ns, n->nr_valued, n->nr_ranks, clock)));
	}
	char why_buf[320];
	const char *why = reason(ri, why_buf, sizeof(why_buf));
	bool have = ri->busiest_node >= 0;
	json_t *imb = json_pack(
		"{s:o, s:o, s:s, s:s, s:o}", "value", num_or_null(ri->node_imbalance), "busiest_node",
		have ? json_string(ri->nodes[ri->busiest_node].node) : json_null(), "basis",
		basis(ri), "quality", quality__name(have ? ri->quality : QUALITY_UNAVAILABLE),
		"reason",
		have ? (why ? json_string(why) : json_null())
		     : json_string("fewer than two nodes have a time"));
	return json_pack("{s:o, s:o}", "rows", a ? a : json_array(), "imbalance",
			 imb ? imb : json_null());
}

json_t *ranks_view_payload(const struct rank_imbalance *ri)
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
	char why_buf[256];
	const char *why = reason(ri, why_buf, sizeof(why_buf));
	json_t *imb = json_pack(
		"{s:o, s:s, s:s, s:o, s:s, s:s}", "value", num_or_null(ri->imbalance), "unit",
		"ratio", "quality", quality__name(ri->quality), "reason",
		why ? json_string(why) : json_null(), "formula",
		"busiest rank's time / mean rank time", "basis", basis(ri));
	json_t *mpi = mpi_share(ri);
	json_t *helpers = json_pack("{s:i, s:o, s:s}", "count", ri->nr_helpers, "fraction",
				    quality__json_clock(ri->helper_fraction, "ratio",
							QUALITY_MEASURED, "no samples",
							CLOCK_SAMPLED),
				    "rule", THREADS_HELPER_RULE);
	static const char no_split[] = "no rank was sampled: no split of its time";
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, "
			      "s:o, s:i, s:o}",
			 "nodes", nodes_json(ri), "mpi_dominant", dominant_json(ri), "mpi_probe",
			 probe_json(&ri->mpi), "mpi_timeline",
			 ri->pivot ? mpi_timeline_json(ri->pivot) : json_null(), "comm_matrix",
			 ri->pivot && !ri->own_world_size
				 ? mpi_comm_matrix_json(ri->pivot, (int)ri->nr_rows)
				 : json_null(),
			 "imbalance", imb,
			 "mpi_fraction", mpi, "sys_fraction",
			 quality__json_clock(ri->sys_fraction, "ratio", QUALITY_MEASURED, no_split,
					     CLOCK_SAMPLED),
			 "busiest_rank", ri->busiest_rank, "world_size",
			 ri->world_size >= 0 ? json_integer(ri->world_size) : json_null(),
			 "unsampled", unsampled, "missing", missing, "total_imbalance",
			 quality__json_clock(ri->total_imbalance, "ratio", ri->quality,
					     why ? why : no_split, CLOCK_SAMPLED),
			 "app_imbalance",
			 quality__json_clock(ri->app_imbalance, "ratio", ri->quality,
					     why ? why : no_split, CLOCK_SAMPLED),
			 "rows", rows, "threads", ri->nr_threads,
			 "helper_threads", helpers);
	if (o && ri->own_world_size > 0) {
		char worlds[96];
		worlds_text(ri, worlds, sizeof(worlds));
		json_object_set_new(o, "separate_worlds",
				    json_pack("{s:s, s:i, s:i, s:i, s:s}", "text", worlds, "worlds",
					      ri->own_worlds, "world_size", ri->own_world_size,
					      "reporting", ri->own_reporting, "reason", why ? why : ""));
	}
	int omitted = 0;
	for (size_t r = 0; r < ri->nr_rows; r++)
		omitted += !calls_kept(ri, &ri->rows[r]);
	if (o && omitted)
		json_object_set_new(
			o, "mpi_calls_omitted",
			json_pack("{s:i, s:s}", "rows", omitted, "reason",
				  "rows[].mpi_calls is null beyond the first 64 ranks but for the "
				  "busiest and the dominant call's: every rank's calls stay in the "
				  "Run's pivot (table mpi_calls)"));
	return o;
}
