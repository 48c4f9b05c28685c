// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/mpi.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/mpi_profile.h"
#include "ingest/ranks.h"
#include "model/model.h"
#include "model/rank_list.h"
#include "common/fsutil.h"

#define MAX_PROFILE_BYTES (64u << 20)

struct rank_list {
	int *v;
	int n;
	size_t cap;
};

struct walk {
	const char *dir;
	struct pivot *p;
	int events_cap; /* per rank */
	struct rank_list missing, unfinished, dropped;
	/* ranks whose own MPI world is smaller than the world their launcher
	 * numbered them in (rank.json world_size): separate worlds */
	struct rank_list apart;
	int apart_world, apart_launched; /* the first such rank's two sizes */
	int launched; /* the ranks the launch made: announced, else its rank directories */
	char apart_runtime[16], apart_library[64];
	char unfinished_msg[200];
	char *unreadable; /* the first unreadable profile: its path and why, whole */
	struct mpi_ingest_summary *sum;
};

static int push(struct rank_list *l, int r)
{
	if (xgrow((void **)&l->v, &l->cap, (size_t)l->n + 1, sizeof(int)) < 0)
		return -ENOMEM;
	l->v[l->n++] = r;
	return 0;
}

static int measure_in(struct walk *w, int64_t locus, const char *counter, double v,
		      const char *unit, const char *reason)
{
	struct measurement m = {.hotspot = PIVOT_NONE, .locus = locus, .counter = (char *)counter,
				.value = v, .unit = (char *)unit,
				.quality = reason ? QUALITY_ESTIMATED : QUALITY_MEASURED,
				.reason = (char *)reason, .sample_count = -1, .coverage = -1};
	return pivot__add_measurement(w->p, &m) < 0 ? -ENOMEM : 0;
}

static int measure(struct walk *w, int64_t locus, const char *counter, double v,
		   const char *reason)
{
	return measure_in(w, locus, counter, v, "ns", reason);
}

/* The rank's own MPI_COMM_WORLD size (`mpi_world_size`, measured: the MPI
 * library said it), and whether it is smaller than the world its launcher
 * numbered it in (`launched`, rank.json's world_size, -1 unknown): an MPICH
 * program under Open MPI's mpirun is N singletons, not one N-rank job. */
static int add_world(struct walk *w, int64_t locus, int rank, const struct mpi_profile *mp,
		     int launched, const char *runtime)
{
	if (mp->world < 1)
		return 0;
	int rc = measure_in(w, locus, "mpi_world_size", (double)mp->world, "ranks", NULL);
	if (rc < 0 || launched < 1 || mp->world >= launched)
		return rc;
	if (!w->apart.n) {
		w->apart_world = mp->world;
		w->apart_launched = launched;
		snprintf(w->apart_runtime, sizeof(w->apart_runtime), "%s", runtime ? runtime : "");
		snprintf(w->apart_library, sizeof(w->apart_library), "%.63s", mp->library);
	}
	return push(&w->apart, rank);
}

static int cmp_longest(const void *a, const void *b)
{
	const struct mpi_prof_event *x = a, *y = b;
	return (x->duration_ns < y->duration_ns) - (x->duration_ns > y->duration_ns);
}

static int cmp_start(const void *a, const void *b)
{
	const struct mpi_prof_event *x = a, *y = b;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int add_events(struct walk *w, int64_t locus, struct mpi_profile *mp)
{
	size_t keep = mp->nr_events;
	if (keep > (size_t)w->events_cap) { /* the longest calls stay */
		qsort(mp->events, mp->nr_events, sizeof(*mp->events), cmp_longest);
		keep = (size_t)w->events_cap;
		mp->dropped_events += (int64_t)(mp->nr_events - keep);
	}
	if (keep > 1) /* a profile without events has none to sort (and a NULL array) */
		qsort(mp->events, keep, sizeof(*mp->events), cmp_start);
	for (size_t i = 0; i < keep; i++) {
		const struct mpi_prof_event *ev = &mp->events[i];
		char attrs[96];
		if (ev->peer >= 0)
			snprintf(attrs, sizeof(attrs), "{\"bytes\": %lld, \"peer\": %d}",
				 (long long)ev->bytes, ev->peer);
		else
			snprintf(attrs, sizeof(attrs), "{\"bytes\": %lld}", (long long)ev->bytes);
		struct event e = {.locus = locus, .kind = (char *)"mpi", .name = ev->name,
				  .start_ns = ev->start_ns, .duration_ns = ev->duration_ns,
				  .attributes = attrs};
		if (pivot__add_event(w->p, &e) < 0)
			return -ENOMEM;
	}
	w->sum->nr_events += (long)keep;
	return 0;
}

/* Per polling function whose calls were not all timed, a `mpi_polled:<name>`
 * Measurement (the calls timed, measured), for the report to mark that
 * function's time estimated; why gets the reason for the rank's mpi_time
 * ("" when every call was timed). */
static int add_polled(struct walk *w, int64_t locus, const struct mpi_profile *mp, char *why,
		      size_t cap)
{
	int untimed = 0;
	why[0] = '\0';
	for (size_t i = 0; i < mp->nr_polled; i++) {
		const struct mpi_prof_polled *q = &mp->polled[i];
		if (q->timed >= q->calls)
			continue;
		char counter[96];
		snprintf(counter, sizeof(counter), "mpi_polled:%s", q->name);
		struct measurement m = {.hotspot = PIVOT_NONE, .locus = locus, .counter = counter,
					.value = (double)q->timed, .unit = (char *)"calls",
					.quality = QUALITY_MEASURED, .sample_count = -1,
					.coverage = -1};
		if (pivot__add_measurement(w->p, &m) < 0)
			return -ENOMEM;
		if (untimed++ == 0)
			snprintf(why, cap, "polling calls are timed 1 in %lld and the others' time "
				 "estimated from them (%s: %lld of %lld calls timed)",
				 (long long)(q->timed ? (q->calls + q->timed / 2) / q->timed : q->calls), q->name,
				 (long long)q->timed, (long long)q->calls);
	}
	return 0;
}

/* The probe's own cost on this rank: its per-call cost measured at
 * MPI_Init times the calls of each path (a polling call untimed, any other
 * call timed), per function (`mpi_probe_overhead:<function>`) and in all
 * (`mpi_probe_overhead`), ns, estimated. */
static int add_overhead(struct walk *w, int64_t locus, const struct mpi_profile *mp)
{
	static const char *const why = "the probe's cost per call, measured on the rank at "
				       "MPI_Init, times its calls";
	if (mp->cost_fast_ps < 0 || mp->cost_full_ps < 0)
		return 0;
	double total = 0;
	for (size_t i = 0; i < mp->nr_fns; i++) {
		const struct mpi_prof_fn *f = &mp->fns[i];
		int64_t fast = 0, full = f->calls;
		for (size_t k = 0; k < mp->nr_polled; k++)
			if (strcmp(mp->polled[k].name, f->name) == 0) {
				full = mp->polled[k].timed;
				fast = f->calls > full ? f->calls - full : 0;
			}
		double ns = ((double)fast * (double)mp->cost_fast_ps +
			     (double)full * (double)mp->cost_full_ps) / 1000;
		char counter[96];
		snprintf(counter, sizeof(counter), "mpi_probe_overhead:%s", f->name);
		if (ns > 0 && measure(w, locus, counter, ns, why) < 0)
			return -ENOMEM;
		total += ns;
	}
	return measure(w, locus, "mpi_probe_overhead", total, why);
}

/* The `coll` records: members as a rank list (each communicator's text made
 * once), NULL when its communicator was not placed or its list is
 * incomplete (a profile cut short). */
static int add_collectives(struct walk *w, int64_t locus, const struct mpi_profile *mp)
{
	char **text = xcalloc(mp->nr_ccomms + 1, sizeof(char *));
	int rc = text ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < mp->nr_colls; i++) {
		const struct mpi_prof_coll *c = &mp->colls[i];
		const struct mpi_prof_ccomm *cc = mpi_profile_ccomm(mp, c->comm);
		size_t k = cc ? (size_t)(cc - mp->ccomms) : 0;
		if (cc && !text[k] && !(text[k] = rank_list_format(cc->members, cc->nr)))
			rc = -ENOMEM;
		struct mpi_collective row = {.locus = locus, .name = c->name,
					     .members = cc ? text[k] : NULL, .size = cc ? cc->size : 0,
					     .root = cc ? c->root : -1, .calls = c->calls,
					     .time_ns = c->time_ns, .bytes = c->bytes};
		if (rc == 0 && pivot__add_mpi_collective(w->p, &row) < 0)
			rc = -ENOMEM;
	}
	for (size_t i = 0; text && i < mp->nr_ccomms; i++)
		xfree(text[i]);
	xfree(text);
	return rc;
}

static int add_profile(struct walk *w, int rank, const char *node, int term_signal,
		       struct mpi_profile *mp, const json_t *meta)
{
	int64_t locus = pivot__intern_locus(w->p, node, rank, -1);
	if (locus < 0)
		return -ENOMEM;
	const json_t *ws = json_object_get(meta, "world_size");
	int rc = add_world(w, locus, rank, mp,
			   json_is_integer(ws) ? (int)json_integer_value(ws) : w->launched,
			   json_string_value(json_object_get(meta, "runtime")));
	int64_t total = 0;
	for (size_t i = 0; rc == 0 && i < mp->nr_fns; i++) {
		const struct mpi_prof_fn *f = &mp->fns[i];
		struct mpi_call c = {.locus = locus, .name = f->name, .calls = f->calls,
				     .time_ns = f->time_ns, .bytes = f->bytes};
		total += f->time_ns;
		rc = pivot__add_mpi_call(w->p, &c) < 0 ? -ENOMEM : 0;
	}
	for (size_t i = 0; rc == 0 && i < mp->nr_sites; i++) {
		const struct mpi_prof_site *s = &mp->sites[i];
		struct mpi_site c = {.locus = locus, .name = s->name, .module = s->module,
				     .address = s->vaddr, .calls = s->calls,
				     .time_ns = s->time_ns, .bytes = s->bytes};
		rc = pivot__add_mpi_site(w->p, &c) < 0 ? -ENOMEM : 0;
	}
	for (size_t i = 0; rc == 0 && i < mp->nr_peers; i++) {
		const struct mpi_prof_peer *q = &mp->peers[i];
		struct mpi_peer c = {.locus = locus, .peer = q->rank >= 0 ? q->rank : -1,
				     .direction = (char *)(q->recv ? "recv" : "send"),
				     .calls = q->calls, .time_ns = q->time_ns, .bytes = q->bytes};
		rc = pivot__add_mpi_peer(w->p, &c) < 0 ? -ENOMEM : 0;
	}
	if (rc == 0)
		rc = add_collectives(w, locus, mp);
	const char *reason = NULL;
	bool finished = strcmp(mp->state, "finalized") == 0;
	if (!finished) {
		snprintf(w->unfinished_msg, sizeof(w->unfinished_msg),
			 "never reached MPI_Finalize (%s%s): MPI figures stop at the rank's last "
			 "flush", mp->state[0] ? mp->state : "unknown",
			 term_signal ? ", killed by a signal" : "");
		reason = "the rank never reached MPI_Finalize: figures stop at its last flush";
		w->sum->nr_unfinished++;
		rc = rc ? rc : push(&w->unfinished, rank);
	}
	char polled[200], both[600];
	if (rc == 0)
		rc = add_polled(w, locus, mp, polled, sizeof(polled));
	if (rc == 0)
		rc = add_overhead(w, locus, mp);
	if (rc == 0 && (polled[0] || mp->nr_skipped)) {
		snprintf(both, sizeof(both), "%s%s%s%s%s%s", reason ? reason : "",
			 reason && polled[0] ? "; " : "", polled,
			 (reason || polled[0]) && mp->nr_skipped ? "; " : "",
			 mp->nr_skipped ? mp->skipped[0] : "",
			 mp->nr_skipped ? " and the other calls left out of interposition "
					  "(mpi skip) are not counted" : "");
		rc = measure(w, locus, "mpi_time", (double)total, both);
	} else if (rc == 0) {
		rc = measure(w, locus, "mpi_time", (double)total, reason);
	}
	if (rc == 0)
		rc = measure(w, locus, "mpi_wall_time", (double)mp->wall_ns, reason);
	if (rc == 0)
		rc = add_events(w, locus, mp);
	if (rc == 0 && (mp->dropped_events > 0 || mp->dropped_sites > 0))
		rc = push(&w->dropped, rank);
	return rc;
}

static int one_rank(struct walk *w, int rank, struct err *e)
{
	char *meta = xasprintf("%s/rank-%d/rank.json", w->dir, rank);
	char *prof = xasprintf("%s/rank-%d/mpi-profile.txt", w->dir, rank);
	json_t *j = meta ? json_load_file(meta, 0, NULL) : NULL;
	const char *node = json_string_value(json_object_get(j, "node"));
	bool expected = json_is_string(json_object_get(j, "mpi_profile"));
	int sig = (int)json_integer_value(json_object_get(j, "term_signal"));
	char *text = NULL;
	size_t len = 0;
	int rc = meta && prof ? 0 : -ENOMEM;
	w->sum->nr_expected += expected;
	/* A rank whose shim died (the launcher kills every rank's process group
	 * when one rank dies) has no rank.json; the profile its application
	 * wrote is still its own measured data: it is read, and ingest/ranks.c
	 * declares the rank `ranks-incomplete` rather than missing. */
	if (rc == 0 && fs_read_file(prof, MAX_PROFILE_BYTES, &text, &len) != 0) {
		if (expected && json_integer_value(json_object_get(j, "exit_code")) != 127)
			rc = push(&w->missing, rank);
		goto out;
	}
	struct mpi_profile mp = {0};
	struct err pe = {0};
	int prc = rc == 0 ? mpi_profile_parse(text, len, &mp, &pe) : 0;
	if (prc == -ENOMEM) {
		rc = -ENOMEM;
	} else if (prc < 0) {
		if (!w->unreadable && !(w->unreadable = xasprintf("%s: %s", prof, pe.msg)))
			rc = -ENOMEM;
	} else if (rc == 0) {
		w->sum->nr_profiled++;
		rc = add_profile(w, rank, node ? node : mp.node[0] ? mp.node : "unknown", sig, &mp,
				 j);
	}
	mpi_profile__release(&mp);
out:
	json_decref(j);
	xfree(text);
	xfree(meta);
	xfree(prof);
	return rc < 0 ? err_set(e, rc, ERR_OOM, "out of memory") : 0;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int rank_dirs(const char *dir, struct rank_list *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		char *end = NULL;
		long r = strncmp(de->d_name, "rank-", 5) == 0 ? strtol(de->d_name + 5, &end, 10) : -1;
		if (end && end != de->d_name + 5 && !*end && r >= 0 && r < (1L << 24))
			rc = push(out, (int)r);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, (size_t)out->n, sizeof(int), cmp_int);
	return rc;
}

/* Who numbered the ranks, from rank.json's runtime (lib/rank_env.c names). */
static const char *launcher_words(const char *runtime)
{
	static const struct {
		const char *rt, *words;
	} known[] = {
		{"openmpi", "Open MPI's launcher (it set OMPI_COMM_WORLD_RANK/SIZE)"},
		{"pmi", "a PMI launcher (MPICH's Hydra, or srun --mpi=pmi2: it set PMI_RANK/SIZE)"},
		{"pmix", "a PMIx launcher (srun --mpi=pmix, or Open MPI's own: it set PMIX_RANK)"},
		{"slurm", "srun (it set SLURM_PROCID/SLURM_NTASKS)"},
		{"mvapich", "MVAPICH's launcher (it set MV2_COMM_WORLD_RANK/SIZE)"},
	};
	for (size_t i = 0; runtime && i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(runtime, known[i].rt) == 0)
			return known[i].words;
	return "the launcher";
}

/* The MPI family a library version string names ("Open MPI v4.1.4, ...",
 * "MPICH Version: 4.0"), or NULL. */
static const char *library_family(const char *library)
{
	if (strstr(library, "Open MPI"))
		return "Open MPI";
	if (strstr(library, "MPICH"))
		return "MPICH";
	return NULL;
}

/* `mpi-separate-worlds`: the ranks' own MPI worlds are smaller than the
 * launch (an MPICH program under Open MPI's mpirun runs as N singletons). */
static int declare_apart(struct walk *w, struct degradations *d)
{
	char list[160], msg[900], remedy[300];
	const char *fam = library_family(w->apart_library);
	int wsz = w->apart_world;
	snprintf(msg, sizeof(msg),
		 "launcher and MPI library do not match: %s numbered %d ranks, but the MPI "
		 "library of rank%s %s (%s) says its MPI_COMM_WORLD holds %d rank%s: they ran as "
		 "separate %d-rank worlds, not one %d-rank job, so imbalance across them and "
		 "who talks to whom are not computed",
		 launcher_words(w->apart_runtime), w->apart_launched, w->apart.n > 1 ? "s" : "",
		 ranks_format_list(w->apart.v, w->apart.n, list, sizeof(list)),
		 fam ? fam : w->apart_library[0] ? w->apart_library : "unnamed", wsz,
		 wsz == 1 ? "" : "s", wsz, w->apart_launched);
	if (fam && strcmp(fam, "MPICH") == 0)
		snprintf(remedy, sizeof(remedy), "launch the program with MPICH's own launcher "
			 "(mpirun.mpich or mpiexec.hydra; under Slurm, srun --mpi=pmi2)");
	else if (fam)
		snprintf(remedy, sizeof(remedy), "launch the program with Open MPI's own launcher "
			 "(mpirun.openmpi; under Slurm, srun --mpi=pmix)");
	else
		snprintf(remedy, sizeof(remedy), "%s", DEG_MPI_SEPARATE_WORLDS_REMEDY);
	return degradations__add(d, DEG_MPI_SEPARATE_WORLDS, msg, remedy);
}

static int declare(struct walk *w, struct degradations *d)
{
	char list[160], msg[512];
	int rc = w->apart.n ? declare_apart(w, d) : 0;
	if (rc >= 0 && w->missing.n) {
		snprintf(msg, sizeof(msg),
			 "%d rank%s left no MPI profile (%s): the application did not load "
			 "nunatak's MPI library (MPI linked statically, or not an MPI program), "
			 "called MPI_Init through the mpi_f08 Fortran bindings (which bypass the "
			 "profiling interface) or died before MPI_Init; MPI time there is only "
			 "estimated from samples",
			 w->missing.n, w->missing.n > 1 ? "s" : "",
			 ranks_format_list(w->missing.v, w->missing.n, list, sizeof(list)));
		rc = degradations__add(d, DEG_MPI_ANALYSIS_UNAVAILABLE, msg,
				       DEG_MPI_ANALYSIS_UNAVAILABLE_REMEDY);
	}
	if (rc >= 0 && w->unfinished.n) {
		snprintf(msg, sizeof(msg), "rank%s %s %s", w->unfinished.n > 1 ? "s" : "",
			 ranks_format_list(w->unfinished.v, w->unfinished.n, list, sizeof(list)),
			 w->unfinished_msg);
		rc = degradations__add(d, DEG_MPI_RANK_UNFINISHED, msg,
				       DEG_MPI_RANK_UNFINISHED_REMEDY);
	}
	if (rc >= 0 && w->unreadable)
		rc = degradations__add(d, DEG_MPI_PROFILE_UNREADABLE, w->unreadable,
				       DEG_MPI_PROFILE_UNREADABLE_REMEDY);
	if (rc >= 0 && w->dropped.n) {
		snprintf(msg, sizeof(msg),
			 "rank%s %s made more MPI calls or call sites than the bounded event and "
			 "site tables hold: totals per function stay exact, the timeline shows the "
			 "longest calls only", w->dropped.n > 1 ? "s" : "",
			 ranks_format_list(w->dropped.v, w->dropped.n, list, sizeof(list)));
		rc = degradations__add(d, DEG_MPI_EVENTS_DROPPED, msg, DEG_MPI_EVENTS_DROPPED_REMEDY);
	}
	return rc < 0 ? -ENOMEM : 0;
}

int ingest_mpi(const char *collect_dir, int world_size, struct pivot *p,
	       struct degradations *d, struct mpi_ingest_summary *out, struct err *e)
{
	*out = (struct mpi_ingest_summary){0};
	struct walk w = {.dir = collect_dir, .p = p, .sum = out};
	struct rank_list dirs = {0};
	int rc = rank_dirs(collect_dir, &dirs);
	int ranks = world_size > dirs.n ? world_size : dirs.n;
	w.launched = ranks > 1 ? ranks : -1;
	w.events_cap = ranks > 0 ? MPI_EVENTS_PER_RUN / ranks : MPI_EVENTS_PER_RANK;
	if (w.events_cap > MPI_EVENTS_PER_RANK)
		w.events_cap = MPI_EVENTS_PER_RANK;
	if (w.events_cap < MPI_EVENTS_RANK_FLOOR)
		w.events_cap = MPI_EVENTS_RANK_FLOOR;
	for (int i = 0; rc == 0 && i < dirs.n; i++)
		rc = one_rank(&w, dirs.v[i], e);
	if (rc == 0 && declare(&w, d) < 0)
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	else if (rc == -ENOMEM && !e->msg[0])
		err_set(e, rc, ERR_OOM, "out of memory");
	xfree(dirs.v);
	xfree(w.missing.v);
	xfree(w.unfinished.v);
	xfree(w.dropped.v);
	xfree(w.apart.v);
	xfree(w.unreadable);
	return rc;
}
