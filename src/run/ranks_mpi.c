// SPDX-License-Identifier: BSD-3-Clause
#include "run/ranks_mpi.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "run/pipeline.h"
#include "run/ranks_srun.h"
#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "model/machine.h"
#include "mpi/abi.h"
#include "mpi/build.h"
#include "mpi/ldd_memo.h"
#include "mpi/netcache.h"
#include "mpi/netcache_scope.h"
#include "mpi/netprobe.h"
#include "mpi/stack.h"
#include "tools/version.h"

#define UNAVAILABLE DEG_MPI_ANALYSIS_UNAVAILABLE

/* provenance.dependencies[name] = the formatted version text. */
__attribute__((format(printf, 3, 4))) static void depend(struct run_state *s, const char *name,
							 const char *fmt, ...)
{
	char buf[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!s->prov.dependencies)
		s->prov.dependencies = json_object();
	if (s->prov.dependencies)
		json_object_set_new(s->prov.dependencies, name, json_string(buf));
}

static void stack_of(struct run_state *s, const char *launcher, struct mpi_stack *st)
{
	const char *argv[3];
	tool_argv_version(argv, launcher);
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 30, .cacheable = true};
	struct exec_result r = {0};
	struct err e = {0};
	mpi_stack_parse_version(NULL, st);
	if (executor__run(s->x, &rq, &r, &e) == 0) {
		mpi_stack_parse_version(r.out, st);
		if (strcmp(st->impl, "unknown") == 0)
			mpi_stack_parse_version(r.err, st);
	}
	exec_result__release(&r);
}

/* What the network Ceilings of this launch are cached under. */
struct net_keys {
	struct netcache_scope scope;
	char *stack, *shape_key;
};

/* The ping-pong, launched as the application will be: same prefix, so the
 * same allocation, nodes and transport. */
static void network_probe(struct run_state *s, const struct mpi_stack *st, const char *probe,
			  const struct net_keys *k)
{
	size_t n = 0;
	while (s->launch.prefix[n])
		n++;
	const char **argv = xcalloc(n + 3, sizeof(*argv));
	if (!argv)
		return;
	for (size_t i = 0; i < n; i++)
		argv[i] = s->launch.prefix[i];
	argv[n] = probe;
	argv[n + 1] = "3";
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 120};
	struct exec_result r = {0};
	struct err e = {0};
	if (!k)
		console__info(s->con, "measuring the network: rank 0 <-> last rank ping-pong");
	else if (k->scope.nodes)
		console__info(s->con, "measuring the network: rank 0 <-> last rank ping-pong "
			      "(nothing cached for this MPI stack and transport on nodes %s [%s]; "
			      "kept for later Runs)", k->scope.nodes, k->scope.nodes_from);
	else
		console__info(s->con, "measuring the network: rank 0 <-> last rank ping-pong "
			      "(nothing cached for a launch of this shape; its nodes are not known "
			      "before it starts [%s]; kept for the nodes it runs on)",
			      k->scope.why_unknown);
	int rc = executor__run(s->x, &rq, &r, &e);
	s->cost.netprobe_s = r.duration_s;
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
	else if (depend(s, "mpi", "%s %s", np.impl, np.version), netprobe_ceilings(&np, s->machine) <= 0)
		snprintf(why, sizeof(why), "the ping-pong probe measured nothing");
	if (why[0]) {
		run_state__degrade(s, DEG_NETWORK_CEILINGS_UNAVAILABLE, why,
				   DEG_NETWORK_CEILINGS_UNAVAILABLE_REMEDY);
	} else {
		netcache_nodes_canon(np.nodes);
		s->netceil.nodes = np.nodes[0] ? xstrdup(np.nodes) : NULL;
		s->netceil.at = (long long)time(NULL);
		char *l = s->netceil.nodes ? netcache_nodes_spaced(s->netceil.nodes) : NULL;
		s->netceil.source = l ? xasprintf("measured now by the ping-pong on nodes %s", l)
				      : xstrdup("measured now by the ping-pong (its nodes unsaid)");
		xfree(l);
	}
	if (!why[0] && s->netceil.nodes && k && !s->req->record_entry) {
		char *mpi = xasprintf("%s %s", np.impl, np.version);
		char *key = netcache_key(k->stack, k->scope.transport, s->netceil.nodes);
		if (key)
			(void)netcache_store(key, k->shape_key, s->machine, mpi, s->netceil.nodes);
		xfree(key);
		xfree(mpi);
	}
	exec_result__release(&r);
	xfree(argv);
}

static void utc(long long t, char *buf, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, cap, "an unknown date");
}

/* The network Ceilings of this node set, MPI stack and transport from the
 * cache (mpi/netcache.h): true when found, said, and added to the Machine,
 * estimated until run_netceil_check finds the application on the nodes
 * they were measured on. When the launch names no nodes, the node set a
 * launch of the same shape measured on last. A recording measures, so that
 * it holds the probe. */
static bool network_cached(struct run_state *s, const struct net_keys *k)
{
	if (s->req->record_entry)
		return false;
	char *nodes = k->scope.nodes ? xstrdup(k->scope.nodes) : netcache_shape_nodes(k->shape_key);
	char *key = nodes ? netcache_key(k->stack, k->scope.transport, nodes) : NULL;
	struct netcache_hit h;
	bool hit = key && netcache_load(key, &h) == 1;
	xfree(key);
	xfree(nodes);
	if (!hit)
		return false;
	char at[40], *l = netcache_nodes_spaced(h.nodes);
	utc(h.measured_at, at, sizeof(at));
	char *reason = xasprintf("cached from a Run at %s on nodes %s, not yet checked against "
				 "this Run's nodes", at, l ? l : h.nodes);
	if (!reason || netcache_hit__add(&h, s->machine, QUALITY_ESTIMATED, reason) <= 0) {
		xfree(reason);
		xfree(l);
		netcache_hit__release(&h);
		return false;
	}
	/* why no ping-pong runs; where the Ceilings came from and their Quality
	 * are said once, by the summary, after the check against the ranks' nodes */
	console__info(s->con, "network Ceilings from the cache %s for nodes %s (%s%s); no ping-pong",
		      h.path, l ? l : h.nodes,
		      k->scope.nodes ? "the nodes of this launch, from " : "",
		      k->scope.nodes ? k->scope.nodes_from
				     : "the nodes a launch of this shape ran on last; checked once "
				       "the ranks have run");
	if (h.mpi)
		depend(s, "mpi", "%s", h.mpi);
	s->cost.netprobe_cached = true;
	s->cost.netprobe_s = 0;
	s->netceil = (struct run_netceil){h.nodes, h.measured_at, true, h.ceilings,
					  xasprintf("cached from a Run at %s on nodes %s", at,
						    l ? l : h.nodes)};
	h.nodes = NULL;
	h.ceilings = NULL;
	netcache_hit__release(&h);
	xfree(reason);
	xfree(l);
	return true;
}

/* What the loader resolves for `path` (ldd, through the execution boundary;
 * its answer kept between Runs while nothing it depends on changed,
 * mpi/ldd_memo.h, except under recording or replay). */
static enum mpi_abi_status ldd_abi(struct run_state *s, const char *path, struct mpi_abi *abi)
{
	*abi = (struct mpi_abi){0};
	char *both = ldd_memo_run(s->x, path, !s->replay && !s->req->record_entry);
	enum mpi_abi_status st = both ? mpi_abi_from_ldd(both, abi) : MPI_ABI_NOT_DYNAMIC;
	xfree(both);
	return st;
}

/* The application's MPI library; false with why[] when nunatak cannot be sure. */
static bool app_abi(struct run_state *s, struct mpi_abi *abi, char *why, size_t cap)
{
	const char *name = s->launch.app && s->launch.app[0] ? s->launch.app[0] : NULL;
	char *path = NULL;
	if (!name || exec_which(name, &path) != 0) {
		snprintf(why, cap, "the application `%s` was not found from here, so the MPI it "
			 "links is unknown", name ? name : "");
		return false;
	}
	enum mpi_abi_status st = ldd_abi(s, path, abi);
	if (st == MPI_ABI_NOT_DYNAMIC)
		snprintf(why, cap, "`%s` is not a dynamically linked program (ldd: a script, a "
			 "static program, or ldd missing), so the MPI it links is unknown", path);
	else if (st == MPI_ABI_NONE)
		snprintf(why, cap, "`%s` links no MPI library the loader resolves (an MPI loaded "
			 "at run time, as by Python's mpi4py, is not interposed)", path);
	else if (!abi->path[0])
		snprintf(why, cap, "the loader does not find %s, which `%s` needs", abi->soname,
			 path);
	xfree(path);
	return st == MPI_ABI_FOUND && abi->path[0];
}

/* The MPI compiler wrapper for the application's MPI: tools.mpicc when set,
 * else the family's own (mpicc.openmpi, mpicc.mpich) when installed, else the
 * launcher's. The build is checked against the application's soname anyway. */
static char *abi_mpicc(struct run_state *s, const struct mpi_abi *abi)
{
	const char *conf = s->cfg ? config__tool(s->cfg, "mpicc") : NULL;
	if (conf && *conf && strcmp(conf, "mpicc") != 0)
		return xstrdup(conf);
	const char *own = mpi_family_mpicc(abi->family);
	char *found = NULL;
	if (own && exec_which(own, &found) == 0) {
		xfree(found);
		return xstrdup(own);
	}
	return mpi_stack_mpicc(s->launch.launcher, conf);
}

/* A built probe links the application's MPI (same soname), else why[]. */
static bool probe_matches(struct run_state *s, const char *probe, const struct mpi_abi *app,
			  const char *mpicc, char *why, size_t cap)
{
	struct mpi_abi got;
	if (ldd_abi(s, probe, &got) != MPI_ABI_FOUND) {
		snprintf(why, cap, "the probe %s built with %s links no MPI library the loader "
			 "resolves", probe, mpicc);
		return false;
	}
	if (strcmp(got.soname, app->soname) != 0) {
		snprintf(why, cap, "%s builds for %s (%s), the application links %s (%s)", mpicc,
			 got.soname, mpi_family_name(got.family), app->soname,
			 mpi_family_name(app->family));
		return false;
	}
	return true;
}

static void unavailable(struct run_state *s, const char *why)
{
	char msg[900];
	snprintf(msg, sizeof(msg), "nunatak injects nothing into the ranks: %s; MPI time is only "
		 "estimated from samples", why);
	run_state__degrade(s, UNAVAILABLE, msg,
			   "set tools.mpicc to the MPI compiler wrapper of the MPI the application "
			   "links (e.g. mpicc.openmpi for libmpi.so.40, mpicc.mpich for "
			   "libmpich.so.12)");
}

/* The mpi_f08 Fortran bindings the application calls (docs/mpi.md "mpi_f08"):
 * 2 when MPI_Init itself goes through them (it imports mpi_init[_thread]_f08*),
 * 1 when other calls do (an f08 import, or Open MPI's libmpi_usempif08 among
 * what the loader resolves), 0 none. `sym` gets the import that said so. */
static int f08_bindings(const struct mpi_abi *abi, const char *app, char *sym, size_t cap)
{
	struct elf_info elf = {0};
	struct err e = {0};
	int level = abi->f08 ? 1 : 0;
	snprintf(sym, cap, "%s", abi->f08 ? "libmpi_usempif08" : "");
	if (app && elf_info__read(&elf, app, ELF_READ_IMPORTS, &e) == 0) {
		for (size_t i = 0; i < elf.nr_imports && level < 2; i++) {
			const char *n = elf.imports[i];
			if (strncasecmp(n, "mpi_", 4) != 0 || !(strstr(n, "_f08") || strstr(n, "_F08")))
				continue;
			level = strncasecmp(n, "mpi_init_f08", 12) == 0 ||
						strncasecmp(n, "mpi_init_thread_f08", 19) == 0
					? 2
					: 1;
			snprintf(sym, cap, "%s", n);
		}
	}
	elf_info__release(&elf);
	return level;
}

/* Announced before the launch: true (nothing to inject) when MPI_Init goes
 * through mpi_f08, whose bindings bypass the profiling interface. */
static bool f08_unmeasured(struct run_state *s, const struct mpi_abi *abi)
{
	const char *name = s->launch.app && s->launch.app[0] ? s->launch.app[0] : NULL;
	char *path = NULL, sym[128], msg[900];
	if (!name || exec_which(name, &path) != 0)
		return false;
	int level = f08_bindings(abi, path, sym, sizeof(sym));
	const char *how = "the mpi_f08 Fortran bindings of this MPI (%s, %s) call its PMPI_* "
			  "layer directly, bypassing the MPI_* profiling interface nunatak "
			  "interposes on";
	char bypass[300];
	snprintf(bypass, sizeof(bypass), how, mpi_family_name(abi->family), abi->soname);
	if (level == 2)
		snprintf(msg, sizeof(msg), "nunatak injects nothing into the ranks: `%s` calls "
			 "MPI_Init through mpi_f08 (it imports %s) and %s, so no MPI call is "
			 "measured; MPI time is only estimated from samples (time inside the MPI "
			 "library)", path, sym, bypass);
	else if (level == 1)
		snprintf(msg, sizeof(msg), "`%s` uses mpi_f08 (%s): %s, so its mpi_f08 calls are "
			 "missing from the measured MPI time, which covers the other bindings only",
			 path, sym, bypass);
	if (level)
		run_state__degrade(s, UNAVAILABLE, msg,
				   "for MPI measurement build with `use mpi` instead of `use mpi_f08` "
				   "(same calls, measured); sampling still shows the time spent in the "
				   "MPI library");
	xfree(path);
	return level == 2;
}

/* The keys of this launch (mpi/netcache_scope.h): false on ENOMEM. */
static bool net_keys_of(struct run_state *s, const struct mpi_stack *launcher,
			const struct mpi_abi *abi, const char *pingpong, struct net_keys *k)
{
	*k = (struct net_keys){0};
	const char *host = s->machine && s->machine->hostname ? s->machine->hostname : "";
	if (netcache_scope_of(s->launch.prefix, launcher->impl, environ, host, &k->scope) < 0)
		return false;
	k->stack = xasprintf("%s %s | %s %s | probe v%d %s", launcher->impl, launcher->version,
			     abi->soname, abi->path, MPI_PROBES_VERSION, pingpong ? pingpong : "");
	k->shape_key = k->stack ? netcache_shape_key(k->stack, k->scope.transport, k->scope.shape)
				: NULL;
	return k->shape_key != NULL;
}

static void net_keys__release(struct net_keys *k)
{
	netcache_scope__release(&k->scope);
	xfree(k->stack);
	xfree(k->shape_key);
}

/* The ping-pong, unless the launcher is another MPI than the application's:
 * its ranks would not form one world. */
static void network(struct run_state *s, const struct mpi_stack *launcher,
		    const struct mpi_abi *abi, const char *pingpong, const char *why)
{
	enum mpi_family lf = mpi_family_of_impl(launcher->impl);
	char msg[700];
	if (lf != MPI_FAMILY_UNKNOWN && abi->family != MPI_FAMILY_UNKNOWN && lf != abi->family) {
		console__warn(s->con, "the launcher is %s's, the application links %s (%s): its "
			      "ranks may start as separate 1-rank MPI worlds (said after the "
			      "run); launch it with %s's own launcher", launcher->impl,
			      mpi_family_name(abi->family), abi->soname,
			      mpi_family_name(abi->family));
		snprintf(msg, sizeof(msg), "the launcher is %s's, the application links %s: no "
			 "ping-pong across two MPIs", launcher->impl, mpi_family_name(abi->family));
		run_state__degrade(s, DEG_NETWORK_CEILINGS_UNAVAILABLE, msg,
				   "launch the application with its own MPI's launcher");
	} else if (pingpong && s->machine) {
		struct net_keys k;
		bool keyed = net_keys_of(s, launcher, abi, pingpong, &k);
		if (!keyed || !network_cached(s, &k))
			network_probe(s, launcher, pingpong, keyed ? &k : NULL);
		net_keys__release(&k);
	} else {
		run_state__degrade(s, DEG_NETWORK_CEILINGS_UNAVAILABLE,
				   why && *why ? why : "the ping-pong probe could not be built",
				   "set tools.mpicc to the MPI compiler wrapper of the application's "
				   "MPI");
	}
}

char *collect_mpi_prepare(struct run_state *s, struct err *e)
{
	/* A replay starts nothing: no probe to build, no rank to inject into. */
	if (s->replay || !s->launch.launcher)
		return NULL;
	struct mpi_stack st, pst;
	struct mpi_abi abi;
	char why[700] = "";
	stack_of(s, s->launch.launcher, &st);
	if (!app_abi(s, &abi, why, sizeof(why))) {
		unavailable(s, why);
		network(s, &st, &abi, NULL, why);
		return NULL;
	}
	if (srun_mpi_mismatch(s, &abi)) /* said, with the remedy: nothing to inject */
		return NULL;
	char *mpicc = abi_mpicc(s, &abi);
	char *keyed = mpicc ? xasprintf("%s|%s", mpicc, abi.path) : NULL;
	if (!keyed) {
		xfree(mpicc);
		err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		return NULL;
	}
	/* cached per MPI ABI: the soname, where it resolves, the wrapper */
	snprintf(pst.impl, sizeof(pst.impl), "%s", mpi_family_name(abi.family));
	snprintf(pst.version, sizeof(pst.version), "%s", abi.soname);
	mpi_stack_key(&pst, keyed);
	depend(s, "mpi_library", "%s (%s) %s", abi.soname, mpi_family_name(abi.family), abi.path);
	char *cc_path = NULL;
	depend(s, "mpicc", "%s", exec_which(mpicc, &cc_path) == 0 ? cc_path : mpicc);
	xfree(cc_path);
	struct mpi_probes pr;
	char *lib = NULL;
	if (mpi_build(s->x, &pst, mpicc, &pr, e) < 0)
		goto out;
	if (pr.built)
		console__info(s->con, "built nunatak's MPI probes with %s for %s (%s) in %s", mpicc,
			      abi.soname, mpi_family_name(abi.family), pr.dir);
	char pwhy[700] = "";
	if (pr.pingpong && !probe_matches(s, pr.pingpong, &abi, mpicc, pwhy, sizeof(pwhy))) {
		xfree(pr.pingpong);
		pr.pingpong = NULL;
	}
	network(s, &st, &abi, pr.pingpong, pwhy[0] ? pwhy : pr.reason);
	if (f08_unmeasured(s, &abi))
		goto out;
	if (pr.lib && probe_matches(s, pr.lib, &abi, mpicc, why, sizeof(why))) {
		lib = pr.lib;
		pr.lib = NULL;
		xfree(s->prov.mpi_probe);
		s->prov.mpi_probe = xasprintf("v%d for %s", MPI_PROBES_VERSION, abi.soname);
	} else {
		if (!why[0])
			snprintf(why, sizeof(why), "the MPI interposition library could not be "
				 "built: %s", pr.reason ? pr.reason : "unknown reason");
		unavailable(s, why);
	}
out:
	mpi_probes__release(&pr);
	xfree(keyed);
	xfree(mpicc);
	return lib;
}
