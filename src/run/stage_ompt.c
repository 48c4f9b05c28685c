// SPDX-License-Identifier: BSD-3-Clause
/* nunatak's OMPT tool (lib/ompt/nunatak_ompt.c) for LLVM's libomp: named in
 * OMP_TOOL_LIBRARIES before launch, its profiles ingested after. Only
 * libomp reads the variable (GCC's libgomp has no tool interface), and
 * libomp asks the program for its own tool first, so the tool is loaded
 * only into a program that runs libomp without a tool of its own. A user's
 * OMP_TOOL_LIBRARIES or OMP_TOOL=disabled is kept as it is: the tool is
 * then not added (announced), and the regions come from the frames. */
#include "run/stages.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "analysis/openmp.h"
#include "run/pipeline.h"
#include "common/alloc.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "doctor/doctor.h"
#include "ingest/ompt.h"
#include "model/machine.h"
#include "model/model.h"
#include "regions/lines_symbolize.h"

#define TOOLS_VAR "OMP_TOOL_LIBRARIES"
#define DIR_VAR "NUNATAK_OMPT_DIR"

/* Why the tool is not added, or NULL. */
static const char *not_added(const struct run_state *s)
{
	const char *user = getenv(TOOLS_VAR), *tool = getenv("OMP_TOOL");
	if (user && *user)
		return TOOLS_VAR " is set: the user's OpenMP tool is kept";
	if (tool && !strcasecmp(tool, "disabled"))
		return "OMP_TOOL=disabled is set";
	if (s->req->multi_pass)
		return "--multi-pass runs the application several times";
	return NULL;
}

int run_ompt_env(struct run_state *s, struct err *e)
{
	if (!s->rundir.collect_dir || s->replay)
		return 0;
	const char *why = not_added(s);
	char *lib = why ? NULL : doctor_ompt_library();
	if (why || !lib || strchr(lib, ':')) {
		console__debug(s->con, 1, "OMPT tool not added (%s): libomp's regions come from "
			       "the samples' frames", why ? why : lib ? "its path holds ':'"
								 : "libnunatak_ompt.so not found");
		if (why && strncmp(why, "--multi", 7))
			console__info(s->con, "%s: nunatak's OMPT tool is not added; LLVM libomp's "
				      "parallel regions are read from the samples' frames", why);
		xfree(lib);
		return 0;
	}
	s->env.ompt_dir = xasprintf("%s/ompt", s->rundir.collect_dir);
	s->env.ompt[0] = xasprintf(TOOLS_VAR "=%s", lib);
	s->env.ompt[1] = s->env.ompt_dir ? xasprintf(DIR_VAR "=%s", s->env.ompt_dir) : NULL;
	xfree(lib);
	if (!s->env.ompt[0] || !s->env.ompt[1])
		return err_oom(e);
	if (fs_mkdir_p(s->env.ompt_dir) < 0) { /* the tool would have nowhere to write */
		console__debug(s->con, 1, "OMPT tool not added: cannot create %s", s->env.ompt_dir);
		return 0;
	}
	size_t k = 0;
	while (s->env.set[k])
		k++;
	s->env.set[k++] = s->env.ompt[0];
	s->env.set[k++] = s->env.ompt[1];
	s->env.set[k] = NULL;
	return 0;
}

static bool runs_libomp(const struct pivot *p)
{
	for (size_t i = 0; i < p->nr_hotspots; i++) {
		const char *rt = omp_runtime_of(p->hotspots[i].module);
		if (rt && !strcmp(rt, "libomp"))
			return true;
	}
	return false;
}

int run_ompt_ingest(struct run_state *s, struct err *e)
{
	if (!s->env.ompt_dir || !s->launched)
		return 0;
	char host[256] = "localhost";
	if (s->machine && s->machine->hostname)
		snprintf(host, sizeof(host), "%s", s->machine->hostname);
	else
		gethostname(host, sizeof(host) - 1);
	struct degradations d = {0};
	int nr = 0;
	int rc = ingest_ompt(s->env.ompt_dir, s->launch.mpi ? NULL : host, &s->pivot, &d, &nr, e);
	for (size_t i = 0; i < d.n; i++)
		run_state__degrade(s, d.v[i].name, d.v[i].message, d.v[i].remedy);
	if (rc == 0 && nr == 0 && d.n == 0 && runs_libomp(&s->pivot))
		run_state__degrade(s, DEG_OPENMP_TOOL_SILENT,
				   "the application ran LLVM libomp but the OMPT tool left no "
				   "profile (a program ending in _exit() or killed, or one with an "
				   "OpenMP tool of its own): its regions are read from the samples' "
				   "frames",
				   DEG_OPENMP_TOOL_SILENT_REMEDY);
	degradations__release(&d);
	if (rc == 0 && nr)
		console__debug(s->con, 1, "OMPT: %d profile(s), %zu region rows", nr,
			       s->pivot.nr_omp_sites);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The distinct addresses of mod's sites, sorted (*n of them). */
static uint64_t *site_addresses(const struct pivot *p, const char *mod, size_t *n)
{
	uint64_t *addr = xcalloc(p->nr_omp_sites + 1, sizeof(*addr));
	size_t k = 0;
	for (size_t i = 0; addr && i < p->nr_omp_sites; i++)
		if (p->omp_sites[i].module && !strcmp(p->omp_sites[i].module, mod))
			addr[k++] = p->omp_sites[i].address;
	if (!addr)
		return NULL;
	qsort(addr, k, sizeof(*addr), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || addr[u - 1] != addr[i])
			addr[u++] = addr[i];
	*n = u;
	return addr;
}

/* The sites of one module named from its call's answers. */
static int name_sites(struct pivot *p, const struct lines_job *j)
{
	for (size_t i = 0; i < p->nr_omp_sites; i++) {
		struct omp_site *o = &p->omp_sites[i];
		const uint64_t *hit = o->module && !strcmp(o->module, j->module) && !o->function
					      ? bsearch(&o->address, j->vaddrs, j->n, sizeof(*j->vaddrs),
							cmp_u64)
					      : NULL;
		const struct sym_loc *l = hit ? &j->out[hit - j->vaddrs] : NULL;
		if (!l || !l->function)
			continue;
		o->function = xstrdup(l->function);
		o->file = l->file ? xstrdup(l->file) : NULL;
		o->line = l->line;
		if (!o->function || (l->file && !o->file))
			return -ENOMEM;
	}
	return 0;
}

/* The modules to ask: each absolute module whose first site is unnamed,
 * once, in the order of its first site (a recording's order). */
static size_t modules_to_ask(const struct pivot *p, const char **mods)
{
	size_t nm = 0;
	for (size_t i = 0; i < p->nr_omp_sites; i++) {
		const char *mod = p->omp_sites[i].module;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->omp_sites[j].module && mod && !strcmp(p->omp_sites[j].module, mod);
		if (!seen && mod && mod[0] == '/' && !p->omp_sites[i].function)
			mods[nm++] = mod;
	}
	return nm;
}

/* Every module's sites in one batch of the symbolizer, cached address by
 * address as the MPI call sites' (mpi/sites.c): a warm Run of the same
 * build starts no symbolizer for them, a cold one a single process for all
 * modules (one process per module and Run before). */
int run_ompt_symbolize(struct run_state *s, const struct lines_run *run, struct err *e)
{
	struct pivot *p = &s->pivot;
	if (!s->tools || !p->nr_omp_sites)
		return 0;
	const char **mods = xcalloc(p->nr_omp_sites + 1, sizeof(*mods));
	size_t nm = mods ? modules_to_ask(p, mods) : 0;
	struct lines_job *jobs = mods ? xcalloc(nm + 1, sizeof(*jobs)) : NULL;
	int rc = jobs ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < nm; i++) {
		jobs[i].module = mods[i];
		jobs[i].vaddrs = site_addresses(p, mods[i], &jobs[i].n);
		jobs[i].out = jobs[i].vaddrs ? xcalloc(jobs[i].n + 1, sizeof(*jobs[i].out)) : NULL;
		if (!jobs[i].out)
			rc = -ENOMEM;
	}
	struct err se = {0};
	if (rc == 0 && nm && lines_symbolize_many(s->x, s->tools, jobs, nm, true, run, &se) == 0)
		for (size_t i = 0; rc == 0 && i < nm; i++)
			if (jobs[i].rc == 0)
				rc = name_sites(p, &jobs[i]);
	if (se.errnum == -ENOMEM)
		rc = -ENOMEM;
	lines_jobs__free(jobs, nm);
	xfree(mods);
	return rc < 0 ? err_oom(e) : 0;
}
