// SPDX-License-Identifier: BSD-3-Clause
#include "report/openmp_view.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "analysis/openmp.h"
#include "common/text.h"
#include "model/model.h"

#define CLOCK_OMP "wall clock (time-base samples + kernel context switches)"
#define R_SPIN_ONLY                                                                     \
	"spinning in the OpenMP runtime only (time-base samples): the time blocked in its " \
	"futex wait needs the context switches' call stacks (root; `nunatak doctor`)"
#define R_WORK_CPU                                                                       \
	"time-base samples in the outlined function only: the time preempted while working " \
	"needs the scheduler's call stacks (root)"

#define R_UNSTACKED                                                                      \
	"the threads' time preempted or in sched_yield has no call stack in this Run, "  \
	"by design (the stacks of blocking switch-outs only): spread over each thread's "  \
	"work and wait in proportion to them"
/* The reason of a figure built from the off-CPU stacks: without them, why
 * (none); with those of blocking switch-outs only, R_UNSTACKED. */
#define R_OFF(v, none) (!(v)->wait_measured ? (none) : (v)->unstacked_ns > 0 ? R_UNSTACKED : NULL)

#define R_SPLIT                                                                          \
	"the runtime's frames do not say which region a barrier wait served: the thread's "  \
	"wait split between the regions it took part in, in proportion to its deficit in "   \
	"each (the region's longest work minus its own)"

#define CLOCK_OMPT "CLOCK_MONOTONIC (OMPT callbacks of libomp)"

static json_t *time_json(const struct omp_view *v, double ns, enum quality q, const char *reason,
			 const char *formula)
{
	json_t *o = quality__json_clock(ns, "ns", q, reason, v->ompt ? CLOCK_OMPT : CLOCK_OMP);
	if (!o)
		return NULL;
	json_t *lin = json_array();
	json_array_append_new(lin, json_string(v->ompt ? "ompt" : "task-clock"));
	if (!v->ompt)
		json_array_append_new(lin, json_string("offcpu"));
	json_object_set_new(o, "lineage", lin);
	json_object_set_new(o, "formula", json_string(formula));
	return o;
}

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

#define R_NO_MPI "the MPI probe did not measure this rank (`nunatak doctor`: mpi)"
#define R_MPI_UNFINISHED "the rank never reached MPI_Finalize: figures stop at its last flush"

static json_t *mpi_json(double ns, enum quality q, const char *reason, const char *counter,
			const char *formula)
{
	json_t *o = quality__json_clock(ns, "ns", q, reason, "CLOCK_MONOTONIC (MPI probe)");
	if (!o)
		return NULL;
	json_t *lin = json_array();
	json_array_append_new(lin, json_string(counter));
	json_object_set_new(o, "lineage", lin);
	json_object_set_new(o, "formula", json_string(formula));
	return o;
}

/* rank x thread (under MPI): each rank's threads' region time and wait
 * beside its own time in MPI calls. */
static json_t *ranks_payload(const struct omp_view *v, enum quality q)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < v->nr_ranks; i++) {
		const struct omp_rank *r = &v->ranks[i];
		enum quality mq = !r->mpi_known       ? QUALITY_UNAVAILABLE
				  : r->mpi_estimated ? QUALITY_ESTIMATED
						     : QUALITY_MEASURED;
		const char *mr = !r->mpi_known ? R_NO_MPI : r->mpi_estimated ? R_MPI_UNFINISHED : NULL;
		json_t *row = json_pack("{s:i, s:i}", "rank", r->rank, "threads", r->nr_threads);
		json_object_set_new(row, "threads_time_ns",
				    time_json(v, r->threads_time_ns, q, R_OFF(v, R_SPIN_ONLY),
					      "sum over the rank's threads of work_ns + wait_ns"));
		json_object_set_new(row, "threads_wait_ns",
				    time_json(v, r->threads_wait_ns, q, R_OFF(v, R_SPIN_ONLY),
					      "sum over the rank's threads of wait_ns"));
		json_object_set_new(row, "mpi_time_ns",
				    mpi_json(r->mpi_time_ns, mq, mr, "mpi_time",
					     "sum of the rank's time in MPI calls"));
		json_object_set_new(row, "mpi_wall_ns",
				    mpi_json(r->mpi_wall_ns, mq, mr, "mpi_wall_time",
					     "MPI_Init's return to the rank's last profile write"));
		json_array_append_new(a, row);
	}
	return a ? a : json_array();
}

json_t *openmp_view_payload(const struct omp_view *v, const struct pivot *p)
{
	if (!v->runtime)
		return json_null();
	enum quality q = v->wait_measured && !(v->unstacked_ns > 0) ? QUALITY_MEASURED
								    : QUALITY_ESTIMATED;
	json_t *o = json_pack(
		"{s:s, s:s}", "runtime", v->runtime, "method",
		v->ompt ? "nunatak's OMPT tool in libomp (OMP_TOOL_LIBRARIES): a region is the "
			  "call site of its fork, the file:line of the pragma; a thread's time in it "
			  "is its implicit task, wait the part in barriers, taskwaits and "
			  "taskgroups, work the rest; thread is the OpenMP thread number in the team"
		: !strcmp(v->runtime, "libgomp")
			? "libgomp has no OMPT: regions are its outlined functions "
			  "(<parent>._omp_fn.N); work is time in them, wait is time in libgomp "
			  "(spinning, or blocked or preempted while running it); OpenMP thread 0 is "
			  "the process's main thread, the others by thread id"
			: "libomp without an OMPT tool: regions are clang's outlined functions "
			  "(.omp_outlined.); work is time in them, wait is time in libomp "
			  "(spinning, or blocked or preempted while running it); OpenMP thread 0 "
			  "is the process's main thread, the others by thread id");
	json_t *regions = json_array();
	for (size_t r = 0; o && regions && r < v->nr_regions; r++) {
		const struct omp_region *rg = &v->regions[r];
		json_t *threads = json_array();
		for (size_t t = 0; threads && t < rg->nr_threads; t++) {
			const struct omp_thread *th = &rg->threads[t];
			const struct locus *lc = &p->loci[th->locus];
			json_t *row = json_pack("{s:i, s:I, s:s?}", "thread", th->thread, "tid",
						(json_int_t)lc->thread, "name", lc->name);
			if (lc->rank >= 0)
				json_object_set_new(row, "rank", json_integer(lc->rank));
			json_object_set_new(row, "work_ns",
					    time_json(v, th->work_ns, q, R_OFF(v, R_WORK_CPU),
						      v->ompt ? "implicit task - wait (OMPT)"
							      : "samples in the outlined function + preempted there"));
			json_object_set_new(row, "wait_ns",
					    time_json(v, th->wait_ns, th->wait_split ? QUALITY_ESTIMATED : q,
						      !v->wait_measured ? R_SPIN_ONLY
						      : th->wait_split	? R_SPLIT
									: R_OFF(v, NULL),
						      v->ompt ? "sync_region_wait: barriers, taskwait, taskgroup (OMPT)"
							      : "samples in the runtime + off-CPU time in a runtime stack"));
			json_array_append_new(threads, row);
		}
		json_t *row = json_pack("{s:s, s:s?, s:o, s:b, s:o}", "name", rg->name, "file",
					rg->file, "line",
					rg->line > 0 ? json_integer(rg->line) : json_null(),
					"line_is_pragma", rg->pragma, "threads",
					threads ? threads : json_array());
		bool split = false;
		for (size_t t = 0; t < rg->nr_threads; t++)
			split |= rg->threads[t].wait_split;
		json_object_set_new(row, "time_ns", time_json(v, rg->time_ns,
							      split ? QUALITY_ESTIMATED : q,
							      !v->wait_measured ? R_SPIN_ONLY
							      : split		? R_SPLIT
										: R_OFF(v, NULL),
							      "max over threads of work_ns + wait_ns"));
		json_object_set_new(row, "measured_by", json_string(v->ompt ? "ompt" : "frames"));
		json_array_append_new(regions, row);
	}
	json_object_set_new(o, "regions", regions ? regions : json_array());
	json_object_set_new(o, "ranks", ranks_payload(v, q));
	return o;
}

#define RANK_LINES 8

/* Under MPI, a line per rank (the first RANK_LINES): its threads' OpenMP
 * wait beside its wait in MPI, and which of the two it is. */
static void rank_lines(const struct omp_view *v, const char *where, struct text_lines *out)
{
	for (size_t i = 0; i < v->nr_ranks && i < RANK_LINES; i++) {
		const struct omp_rank *r = &v->ranks[i];
		double omp = r->threads_time_ns > 0 ? r->threads_wait_ns / r->threads_time_ns : 0;
		double mpi = r->mpi_known && r->mpi_wall_ns > 0 ? r->mpi_time_ns / r->mpi_wall_ns : -1;
		char mpis[160] = "; its time in MPI was not measured";
		if (mpi >= 0)
			snprintf(mpis, sizeof(mpis), "; the rank waits %.1f%% of its wall time in MPI%s",
				 100 * mpi, r->mpi_estimated ? " (estimated: unfinished)" : "");
		const char *verdict = omp < 0.10 && (mpi < 0 || mpi < 0.10) ? "balanced"
				      : mpi < 0 || omp >= mpi		 ? "its threads are imbalanced"
									 : "it waits in MPI";
		text_lines__add(out, "OpenMP (%s%s): rank %d: its threads wait %.1f%% of their time in "
				     "%s%s%s (thread %d %.1f%%)%s: %s",
				v->runtime, v->ompt ? ", OMPT" : "", r->rank, 100 * omp,
				v->nr_regions == 1 ? "region `" : "", where, v->nr_regions == 1 ? "`" : "",
				r->worst_thread, 100 * r->worst_share, mpis, verdict);
	}
	if (v->nr_ranks > RANK_LINES)
		text_lines__add(out, "OpenMP: %zu more rank%s in the payload (openmp.ranks)",
				v->nr_ranks - RANK_LINES, v->nr_ranks - RANK_LINES == 1 ? "" : "s");
}

int openmp_view_lines(const struct omp_view *v, struct text_lines *out)
{
	if (!v->runtime || !v->nr_regions)
		return 0;
	const struct omp_region *big = &v->regions[0];
	for (size_t r = 1; r < v->nr_regions; r++)
		if (v->regions[r].time_ns > big->time_ns)
			big = &v->regions[r];
	const struct omp_thread *worst = NULL;
	double wf = 0;
	for (size_t t = 0; t < big->nr_threads; t++) {
		const struct omp_thread *th = &big->threads[t];
		double f = th->work_ns + th->wait_ns > 0 ? th->wait_ns / (th->work_ns + th->wait_ns) : 0;
		if (!worst || f > wf) {
			worst = th;
			wf = f;
		}
	}
	char where[300];
	if (big->file && big->line > 0)
		snprintf(where, sizeof(where), "%s:%d", base(big->file), big->line);
	else
		snprintf(where, sizeof(where), "%s", big->name);
	if (!worst)
		return 0;
	text_lines__add(out, "OpenMP (%s%s): thread %d waits %.1f%% of region `%s` at its barrier "
			     "(of its time in the region, wall clock; %zu region%s, %zu thread%s; %s)",
			v->runtime, v->ompt ? ", OMPT" : "", worst->thread, 100.0 * wf, where, v->nr_regions,
			v->nr_regions == 1 ? "" : "s", big->nr_threads, big->nr_threads == 1 ? "" : "s",
			!v->wait_measured ? "estimated: " R_SPIN_ONLY
			: worst->wait_split ? "estimated: " R_SPLIT
			: v->unstacked_ns > 0 ? "estimated: " R_UNSTACKED
					    : "measured");
	if (v->nr_ranks) {
		char all[64];
		snprintf(all, sizeof(all), "%zu regions", v->nr_regions);
		rank_lines(v, v->nr_regions == 1 ? where : all, out);
	}
	return out->failed ? -1 : 0;
}
