// SPDX-License-Identifier: BSD-3-Clause
#include "run/ranks_mpi.h"

#include <errno.h>
#include <string.h>

#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "model/machine.h"
#include "mpi/build.h"
#include "mpi/netprobe.h"
#include "mpi/stack.h"
#include "tools/version.h"

#define UNAVAILABLE DEG_MPI_ANALYSIS_UNAVAILABLE

static void stack_of(struct run_state *s, const char *launcher, struct mpi_stack *st)
{
	const char *argv[3];
	tool_argv_version(argv, launcher);
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 30, .cacheable = true};
	struct exec_result r = {0};
	struct err e = {0};
	mpi_stack_parse_version(NULL, st);
	if (executor__run(s->x, &rq, &r, &e) == 0)
		mpi_stack_parse_version(r.out && strstr(r.out, "MPI") ? r.out : r.err, st);
	exec_result__release(&r);
}

/* The ping-pong, launched as the application will be: same prefix, so the
 * same allocation, nodes and transport. */
static void network_probe(struct run_state *s, const struct mpi_stack *st, const char *probe)
{
	size_t n = 0;
	while (s->prefix[n])
		n++;
	const char **argv = xcalloc(n + 3, sizeof(*argv));
	if (!argv)
		return;
	for (size_t i = 0; i < n; i++)
		argv[i] = s->prefix[i];
	argv[n] = probe;
	argv[n + 1] = "3";
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 120};
	struct exec_result r = {0};
	struct err e = {0};
	console__info(s->con, "measuring the network: rank 0 <-> last rank ping-pong");
	int rc = executor__run(s->x, &rq, &r, &e);
	struct netprobe np;
	char why[320] = "";
	if (rc != 0 || r.exit_code != 0 || !r.out || netprobe_parse(r.out, &np) != 0 ||
	    !np.complete)
		snprintf(why, sizeof(why), "the ping-pong probe failed (exit %d): %.160s",
			 r.exit_code, r.err && *r.err ? r.err : "no output");
	else if (np.ranks < 2)
		snprintf(why, sizeof(why), "a single rank: no peer to measure the network with");
	else if (strcmp(np.impl, st->impl) != 0 && strcmp(st->impl, "unknown") != 0)
		snprintf(why, sizeof(why), "mpicc built for %s, the launcher is %s", np.impl,
			 st->impl);
	else if (netprobe_ceilings(&np, s->machine) <= 0)
		snprintf(why, sizeof(why), "the ping-pong probe measured nothing");
	if (why[0])
		run_state__degrade(s, DEG_NETWORK_CEILINGS_UNAVAILABLE, why,
				   DEG_NETWORK_CEILINGS_UNAVAILABLE_REMEDY);
	exec_result__release(&r);
	xfree(argv);
}

char *collect_mpi_prepare(struct run_state *s, struct err *e)
{
	/* A replay starts nothing: no probe to build, no rank to inject into. */
	if (s->replay || !s->launcher)
		return NULL;
	struct mpi_stack st;
	stack_of(s, s->launcher, &st);
	char *mpicc = mpi_stack_mpicc(s->launcher,
				      s->cfg ? config__tool(s->cfg, "mpicc") : NULL);
	if (!mpicc) {
		err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		return NULL;
	}
	mpi_stack_key(&st, mpicc);
	struct mpi_probes pr;
	char *lib = NULL;
	if (mpi_build(s->x, &st, mpicc, &pr, e) < 0)
		goto out;
	if (pr.built)
		console__info(s->con, "built nunatak's MPI probes with %s (%s %s) in %s", mpicc,
			      st.impl, st.version, pr.dir);
	if (pr.pingpong && s->machine)
		network_probe(s, &st, pr.pingpong);
	else
		run_state__degrade(s, DEG_NETWORK_CEILINGS_UNAVAILABLE,
				   pr.reason ? pr.reason : "the ping-pong probe could not be built",
				   "install the MPI compiler wrapper of this MPI (mpicc) or set "
				   "tools.mpicc");
	if (pr.lib) {
		lib = pr.lib;
		pr.lib = NULL;
	} else {
		char msg[400];
		snprintf(msg, sizeof(msg), "the MPI interposition library could not be built: %s; "
			 "MPI time is only estimated from samples",
			 pr.reason ? pr.reason : "unknown reason");
		run_state__degrade(s, UNAVAILABLE, msg,
				   "install the MPI compiler wrapper of this MPI (mpicc, e.g. "
				   "libopenmpi-dev or libmpich-dev) or set tools.mpicc");
	}
out:
	mpi_probes__release(&pr);
	xfree(mpicc);
	return lib;
}
