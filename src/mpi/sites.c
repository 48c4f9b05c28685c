// SPDX-License-Identifier: BSD-3-Clause
#include "mpi/sites.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/model.h"
#include "regions/lines_symbolize.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The distinct addresses of module's sites, sorted. */
static uint64_t *addresses_of(const struct pivot *p, const char *module, size_t *n)
{
	uint64_t *v = xcalloc(p->nr_mpi_sites + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; v && i < p->nr_mpi_sites; i++)
		if (p->mpi_sites[i].module && strcmp(p->mpi_sites[i].module, module) == 0)
			v[k++] = p->mpi_sites[i].address;
	if (!v)
		return NULL;
	qsort(v, k, sizeof(*v), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	*n = u;
	return v;
}

static int name_sites(struct pivot *p, const char *module, const uint64_t *addr, size_t n,
		      const struct sym_loc *loc, size_t *named)
{
	for (size_t i = 0; i < p->nr_mpi_sites; i++) {
		struct mpi_site *s = &p->mpi_sites[i];
		if (!s->module || strcmp(s->module, module) != 0 || s->function)
			continue;
		const uint64_t *hit = bsearch(&s->address, addr, n, sizeof(*addr), cmp_u64);
		const struct sym_loc *l = hit ? &loc[hit - addr] : NULL;
		if (!l || !l->function)
			continue;
		s->function = xstrdup(l->function);
		s->file = l->file ? xstrdup(l->file) : NULL;
		s->line = l->line;
		if (!s->function || (l->file && !s->file))
			return -ENOMEM;
		(*named)++;
	}
	return 0;
}

/* The modules to ask: each absolute module with an unnamed site, once, in
 * the order of its first site (a recording's order). */
static size_t modules_to_ask(const struct pivot *p, const char **mods)
{
	size_t nm = 0;
	for (size_t i = 0; i < p->nr_mpi_sites; i++) {
		const char *mod = p->mpi_sites[i].module;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->mpi_sites[j].module && mod && strcmp(p->mpi_sites[j].module, mod) == 0;
		if (!seen && mod && mod[0] == '/' && !p->mpi_sites[i].function)
			mods[nm++] = mod;
	}
	return nm;
}

/* Every module's sites in one batch of the symbolizer, cached address by
 * address: a warm Run of the same build starts no symbolizer for them, a
 * cold one a single process for all modules (issue 27: two processes of
 * ~50 ms each were a quarter of an MPI Run's finish). */
int mpi_sites_symbolize(struct pivot *p, struct executor *x, const struct attrib_tools *t,
			const struct lines_run *run, struct degradations *d, struct err *e)
{
	size_t named = 0, total = p->nr_mpi_sites;
	const char **mods = xcalloc(total + 1, sizeof(*mods));
	size_t nm = mods ? modules_to_ask(p, mods) : 0;
	struct lines_job *jobs = mods ? xcalloc(nm + 1, sizeof(*jobs)) : NULL;
	int rc = jobs ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < nm; i++) {
		jobs[i].module = mods[i];
		uint64_t *addr = addresses_of(p, mods[i], &jobs[i].n);
		jobs[i].vaddrs = addr;
		jobs[i].out = addr ? xcalloc(jobs[i].n + 1, sizeof(*jobs[i].out)) : NULL;
		if (!jobs[i].out)
			rc = -ENOMEM;
	}
	struct err se = {0};
	if (rc == 0 && t && nm && lines_symbolize_many(x, t, jobs, nm, true, run, &se) == 0)
		for (size_t i = 0; rc == 0 && i < nm; i++)
			if (jobs[i].rc == 0)
				rc = name_sites(p, jobs[i].module, jobs[i].vaddrs, jobs[i].n,
						jobs[i].out, &named);
	if (se.errnum == -ENOMEM)
		rc = -ENOMEM;
	lines_jobs__free(jobs, nm);
	xfree(mods);
	if (rc < 0)
		return err_set(e, rc, ERR_OOM, "out of memory");
	if (total && !named)
		degradations__add(d, DEG_MPI_SITES_UNRESOLVED,
				  "no MPI call site could be named: sites are shown as "
				  "module+address",
				  DEG_MPI_SITES_UNRESOLVED_REMEDY);
	return 0;
}
