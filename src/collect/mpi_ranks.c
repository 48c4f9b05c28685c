// SPDX-License-Identifier: BSD-3-Clause
/* The MPI ranks collector (collect/collector.h): the launcher runs the rank
 * shim before the application, once; each rank collects itself into
 * collect/rank-<N>/ (collect/rank_shim.h), ingested with the MPI calls the
 * interposition recorded. */
#include "collect/collector.h"

#include <errno.h>
#include <string.h>

#include "collect/rank_shim.h"
#include "common/alloc.h"
#include "common/argv.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "ingest/mpi.h"
#include "ingest/ranks.h"
#include "ingest/ranks_read.h"
#include "launch/split.h"
#include "model/model.h"

struct ranks_collector {
	struct collector base;
	char **shim;    /* the rank shim's argv (owned), NULL: uncollected */
	char **argv;    /* what runs: the launch wrapped around the shim (array
			   owned, strings borrowed), or the whole command */
	int world_size; /* -1 unknown */
	int threshold;
	/* the ranks' recordings read as their shims end, while the launcher
	 * still runs (ingest/ranks_read.h) */
	struct ranks_prefetch *ahead;
	/* the whole ingestion, made on that thread once every rank of the
	 * world had ended, before the launcher did (ranks_prefetch__start) */
	struct early_ingest {
		bool done;
		int rc;
		struct err e;
		struct pivot p;
		struct degradations d;
		struct ranks_summary sum;
		struct mpi_ingest_summary ms;
	} early;
};

/* On the read-ahead thread: what ranks_ingest does, into the collector's
 * own pivot (the Run's may not be touched before the launch returns). */
static void ingest_early(void *ctx, const char *collect_dir, struct rank_reads *rr)
{
	struct ranks_collector *r = ctx;
	struct early_ingest *x = &r->early;
	pivot__init(&x->p);
	x->rc = ingest_ranks_reads(collect_dir, r->world_size, rr, 1, &x->p, &x->d, &x->sum,
				   &x->e);
	if (x->rc == 0)
		x->rc = ingest_mpi(collect_dir, r->world_size, &x->p, &x->d, &x->ms, &x->e);
	x->done = true;
}

static void early_release(struct early_ingest *x)
{
	if (x->done) {
		pivot__release(&x->p);
		degradations__release(&x->d);
	}
	memset(x, 0, sizeof(*x));
}

static int ranks_launch(struct collector *c, const struct collect_env *env,
			struct collect_pass *p, struct exec_result *res, struct err *e)
{
	struct ranks_collector *r = (struct ranks_collector *)c;
	char *shown = argv_join((const char *const *)r->argv);
	if (!r->shim)
		console__info(env->con, "launching: %s", shown ? shown : r->argv[0]);
	else if (r->world_size > r->threshold || r->world_size < 0)
		console__info(env->con, "launching ranks (rank 0 and one rank per node sample beyond "
				        "%d ranks, the others count): %s", r->threshold,
			      shown ? shown : "");
	else
		console__info(env->con, "launching ranks (every rank samples up to %d ranks): %s",
			      r->threshold, shown ? shown : "");
	xfree(shown);
	/* Not in a replay: its files are the recording's, there from the start */
	ranks_prefetch__free(r->ahead);
	early_release(&r->early);
	r->ahead = r->shim && !env->replay ? ranks_prefetch__start(env->collect_dir, r->world_size,
								    ingest_early, r)
					   : NULL;
	return collect_run_ranks(env, p, r->argv, r->world_size, res, e);
}

/* <collect>/rank-<N>/ written by the ranks themselves, and their MPI calls. */
static int ranks_ingest(struct collector *c, const struct collect_env *env,
			struct collect_pass *p, const struct ingest_opts *o, struct pivot *pivot,
			struct collect_counts *out, struct err *e)
{
	(void)p;
	(void)o;
	struct ranks_collector *r = (struct ranks_collector *)c;
	struct degradations d = {0};
	struct ranks_summary sum;
	memset(&sum, 0, sizeof(sum));
	struct mpi_ingest_summary ms;
	int rc;
	/* made before the launcher ended, from the files as they still are,
	 * into a pivot that had nothing before either: it stands */
	struct pivot none;
	pivot__init(&none);
	bool early = ranks_prefetch__stop_complete(r->ahead) && r->early.done &&
		     memcmp(pivot, &none, sizeof(none)) == 0;
	if (early) {
		*pivot = r->early.p;
		d = r->early.d;
		sum = r->early.sum;
		ms = r->early.ms;
		if ((rc = r->early.rc) != 0 && e)
			*e = r->early.e;
		memset(&r->early, 0, sizeof(r->early)); /* moved */
	} else {
		early_release(&r->early);
		rc = ingest_ranks_ahead(env->collect_dir, r->world_size, r->ahead, 0, pivot, &d,
					&sum, e);
		if (rc == 0)
			rc = ingest_mpi(env->collect_dir, r->world_size, pivot, &d, &ms, e);
	}
	if (r->ahead)
		console__debug(env->con, 1, "ranks: %d recording%s read while the launch ran%s",
			       ranks_prefetch__nr_read(r->ahead),
			       ranks_prefetch__nr_read(r->ahead) == 1 ? "" : "s",
			       early ? ", all ingested before it ended" : "");
	for (size_t i = 0; i < d.n; i++)
		env->degrade(env->run, d.v[i].name, d.v[i].message, d.v[i].remedy);
	degradations__release(&d);
	if (rc == 0) {
		out->nr_samples = sum.nr_samples;
		out->nr_switches = sum.nr_switches;
		out->nr_ranks = sum.world_size > 0 ? sum.world_size : sum.nr_ranks;
		out->nr_sampled_ranks = sum.nr_sampled;
		out->nr_clocked = sum.nr_clocked;
		out->clock_by_wall = sum.clock_by_wall;
		out->ranks_started = sum.first_started;
		out->ranks_ended = sum.last_ended;
	}
	return rc;
}

static void ranks_free(struct collector *c)
{
	struct ranks_collector *r = (struct ranks_collector *)c;
	ranks_prefetch__free(r->ahead); /* its thread joined: the early work is ours */
	early_release(&r->early);
	if (r->shim)
		xfree(r->argv); /* else it is the caller's command */
	rank_shim_argv__free(r->shim);
	xfree(r);
}

static const struct collector_ops ranks_ops = {
	.name = "mpi-ranks", .launch = ranks_launch, .ingest = ranks_ingest, .free = ranks_free};

struct collector *collector_mpi_ranks__new(const struct rank_shim_opts *o, char *const *prefix,
					   char *const *app, char *const *cmd, int world_size,
					   struct err *e)
{
	struct ranks_collector *r = xcalloc(1, sizeof(*r));
	if (!r) {
		err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		return NULL;
	}
	r->base.ops = &ranks_ops;
	r->world_size = world_size;
	r->threshold = o ? o->rank_threshold : 0;
	if (!o) {
		r->argv = (char **)cmd;
		return &r->base;
	}
	char *self = rank_shim_self_exe();
	r->shim = self ? rank_shim_argv(self, o) : NULL;
	xfree(self);
	struct launch_plan plan = {.prefix = prefix,
				   .nr_prefix = argv_count((const char *const *)prefix),
				   .app = app, .nr_app = argv_count((const char *const *)app)};
	r->argv = r->shim ? launch_plan__wrap(&plan, (const char *const *)r->shim) : NULL;
	if (!r->argv) {
		err_set(e, -ENOMEM, ERR_OOM, "cannot build the rank launch (/proc/self/exe "
			"unreadable or out of memory)");
		rank_shim_argv__free(r->shim);
		xfree(r);
		return NULL;
	}
	return &r->base;
}
