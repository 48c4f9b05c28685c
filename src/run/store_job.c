// SPDX-License-Identifier: BSD-3-Clause
/* pivot.sqlite written on a thread while the page renders (stages.h,
 * run_store_job_*): the two read the pivot, never write it, and neither
 * forks; together ~25 ms of a 4-rank finish that grows with the ranks'
 * rows and views (issue 27). Every signal is blocked on the thread: they
 * stay the main thread's (the Run's Ctrl-C hold). */
#include "run/stages.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "run/pipeline.h"
#include "build_config.h"
#include "common/alloc.h"
#include "common/err.h"
#include "store/pivot_db.h"

struct run_store_job {
	pthread_t th;
	const struct pivot *p;
	char *db;
	int rc;
	struct err e;
};

static void *store_run(void *arg)
{
	struct run_store_job *j = arg;
	j->rc = pivot_db_write(j->p, j->db, "nunatak " NUNATAK_VERSION, &j->e);
	return NULL;
}

struct run_store_job *run_store_job_start(const struct pivot *p, const char *db)
{
	struct run_store_job *j = xcalloc(1, sizeof(*j));
	if (!j || !(j->db = xstrdup(db))) {
		xfree(j);
		return NULL;
	}
	j->p = p;
	sigset_t all, old;
	sigfillset(&all);
	int rc = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (rc == 0) {
		rc = pthread_create(&j->th, NULL, store_run, j);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (rc != 0) { /* the caller writes it itself */
		xfree(j->db);
		xfree(j);
		return NULL;
	}
	return j;
}

int run_store_job_join(struct run_store_job *j, struct err *e)
{
	if (!j)
		return 0;
	pthread_join(j->th, NULL);
	int rc = j->rc;
	if (e)
		*e = j->e;
	xfree(j->db);
	xfree(j);
	return rc;
}
