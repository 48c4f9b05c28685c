// SPDX-License-Identifier: BSD-3-Clause
#include "report/unresolved_view.h"

#include <jansson.h>
#include <string.h>

#include "common/alloc.h"
#include "model/model.h"

static const char *base_of(const char *m)
{
	const char *b = m ? strrchr(m, '/') : NULL;
	return b ? b + 1 : m ? m : "";
}

const char *runtime_of_module(const char *module)
{
	static const char *const mpi[] = {"libmpi", "mca_", "libopen-pal", "libopen-rte",
					  "libpmix", "libprrte", "libucp", "libuct", "libucs",
					  "libucm", "libfabric", "libpsm", "libhcoll", "libmlx",
					  "libmpich", "libmpl", "libhwloc"};
	static const char *const omp[] = {"libgomp", "libiomp", "libomp"};
	const char *b = base_of(module);
	for (size_t i = 0; i < sizeof(mpi) / sizeof(mpi[0]); i++)
		if (!strncmp(b, mpi[i], strlen(mpi[i])))
			return "the MPI runtime";
	for (size_t i = 0; i < sizeof(omp) / sizeof(omp[0]); i++)
		if (!strncmp(b, omp[i], strlen(omp[i])))
			return "the OpenMP runtime";
	return NULL;
}

static int lowest_pass(const struct pivot *p, const char *tb)
{
	int lo = -1;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE && m->counter && !strcmp(m->counter, tb) &&
		    (lo < 0 || m->pass_index < lo))
			lo = m->pass_index;
	}
	return lo;
}

size_t unresolved_by_module(const struct pivot *p, const char *time_base, double total,
			    struct unresolved_module *v, size_t cap)
{
	size_t n = 0;
	if (!time_base || !(total > 0) || !cap)
		return 0;
	int pass = lowest_pass(p, time_base);
	double *t = xcalloc(p->nr_hotspots + 1, sizeof(*t));
	/* Every module first, then the largest cap of them: keeping the first
	 * cap met in Hotspot order named a 0.0% module in place of the 20% one
	 * (seen on LAMMPS: "28.6% ... unresolved: libevent_core 0.0%, ..."). */
	struct unresolved_module *all = xcalloc(p->nr_hotspots + 1, sizeof(*all));
	if (!t || !all) {
		xfree(t);
		xfree(all);
		return 0;
	}
	for (size_t i = 0; i < p->nr_measurements; i++) { /* one pass: linear */
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot >= 0 && (size_t)m->hotspot < p->nr_hotspots && m->counter &&
		    !strcmp(m->counter, time_base) && m->pass_index == pass &&
		    m->quality != QUALITY_UNAVAILABLE && m->value > 0)
			t[m->hotspot] += m->value;
	}
	for (size_t h = 0; h < p->nr_hotspots; h++) {
		const struct hotspot *hs = &p->hotspots[h];
		if (hs->level != RESOLUTION_UNRESOLVED || !(t[h] > 0))
			continue;
		size_t k = 0;
		while (k < n && strcmp(base_of(all[k].module), base_of(hs->module)))
			k++;
		if (k == n)
			all[n++] = (struct unresolved_module){hs->module, 0, 0,
							      runtime_of_module(hs->module)};
		all[k].share += t[h] / total;
		all[k].nr_addresses++;
	}
	xfree(t);
	for (size_t i = 1; i < n; i++) /* largest first, stable: modules are few */
		for (size_t j = i; j > 0 && all[j].share > all[j - 1].share; j--) {
			struct unresolved_module x = all[j];
			all[j] = all[j - 1];
			all[j - 1] = x;
		}
	n = n < cap ? n : cap;
	memcpy(v, all, n * sizeof(*v));
	xfree(all);
	return n;
}

const char *unresolved_remedy(bool runtime)
{
	return runtime ? "runtime time, not the application's: install the runtime's debug "
			 "symbols (the distribution's -dbgsym or -dbg packages, or debuginfod) "
			 "to name it"
		       : "install the modules' debug symbols (-dbgsym / -dbg packages, or "
			 "debuginfod), or rebuild with -g, to name it";
}

json_t *unresolved_modules_json(const struct pivot *p, const char *time_base, double total)
{
	json_t *arr = json_array();
	struct unresolved_module *v = xcalloc(p->nr_hotspots + 1, sizeof(*v));
	size_t n = v ? unresolved_by_module(p, time_base, total, v, p->nr_hotspots) : 0;
	for (size_t i = 0; arr && i < n; i++)
		json_array_append_new(
			arr, json_pack("{s:s, s:s, s:I, s:o, s:s?, s:s}", "module", base_of(v[i].module),
				       "path", v[i].module ? v[i].module : "",
				       "addresses", (json_int_t)v[i].nr_addresses, "share",
				       quality__json(v[i].share, "ratio", QUALITY_MEASURED, NULL),
				       "runtime", v[i].runtime,
				       "remedy", unresolved_remedy(v[i].runtime != NULL)));
	xfree(v);
	return arr;
}
