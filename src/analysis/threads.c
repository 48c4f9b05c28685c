// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/threads.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"

/*
 * Modules of MPI runtimes and their transports, by basename prefix. Open MPI
 * (libmpi, libopen-pal/-rte, libpmix, libprrte, mca_* components), MPICH and
 * derivatives (libmpich, libmpl, libpmi), UCX (libucp/ucs/uct/ucm), OFI
 * (libfabric), PSM/PSM2, verbs providers, HPE/Cray (libmpi_cray, libcxi),
 * shared-memory helpers (libxpmem, libknem) and collectives (libhcoll).
 * Also "[mpi:", the pseudo-modules of samples in nunatak's own PMPI probe,
 * named after the MPI call it wraps (ingest/injected.h).
 */
static const char *const mpi_prefixes[] = {
	"libmpi",  "libopen-pal", "libopen-rte", "libpmix", "libprrte", "libpmi",
	"libmpich", "libmpl",     "libucp",      "libucs",  "libuct",   "libucm",
	"libfabric", "libpsm",    "libibverbs",  "libmlx",  "libcxi",   "libxpmem",
	"libknem",  "libhcoll",   "libevent",    "libhwloc", "mca_",    "libmca_",
	"[mpi:",
};

bool threads_is_mpi_module(const char *module)
{
	if (!module)
		return false;
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	for (size_t i = 0; i < sizeof(mpi_prefixes) / sizeof(mpi_prefixes[0]); i++)
		if (strncmp(base, mpi_prefixes[i], strlen(mpi_prefixes[i])) == 0)
			return true;
	return false;
}

/* The C runtime, by basename prefix: a progress thread's poll()/epoll_wait()
 * wrappers and its locks live there. libm is not in the list: it is the
 * application's arithmetic. */
static const char *const crt_prefixes[] = {"libc.so", "libc-", "libpthread", "ld-linux",
					   "ld-", "libdl", "librt"};

bool threads_is_runtime_module(const char *module)
{
	if (!module || module[0] == '[')
		return true;
	if (threads_is_mpi_module(module))
		return true;
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	for (size_t i = 0; i < sizeof(crt_prefixes) / sizeof(crt_prefixes[0]); i++)
		if (strncmp(base, crt_prefixes[i], strlen(crt_prefixes[i])) == 0)
			return true;
	return false;
}

int locus_roles(const struct pivot *p, const char *time_base, struct locus_roles *out)
{
	memset(out, 0, sizeof(*out));
	if (!p->nr_loci)
		return 0;
	double *all = xcalloc(p->nr_loci, sizeof(double));
	double *rt = xcalloc(p->nr_loci, sizeof(double));
	out->helper = xcalloc(p->nr_loci, sizeof(bool));
	if (!all || !rt || !out->helper) {
		xfree(all);
		xfree(rt);
		zfree(&out->helper);
		return -ENOMEM;
	}
	out->nr_loci = p->nr_loci;
	for (size_t i = 0; time_base && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || (size_t)m->hotspot >= p->nr_hotspots || m->locus < 0 ||
		    (size_t)m->locus >= p->nr_loci || !m->counter ||
		    m->quality == QUALITY_UNAVAILABLE || strcmp(m->counter, time_base) != 0 ||
		    !(m->value > 0))
			continue;
		all[m->locus] += m->value;
		if (threads_is_runtime_module(p->hotspots[m->hotspot].module))
			rt[m->locus] += m->value;
	}
	for (size_t l = 0; l < p->nr_loci; l++) {
		const struct locus *lo = &p->loci[l];
		if (!(all[l] > 0))
			continue;
		out->all_time += all[l];
		bool helper = lo->rank >= 0 && lo->pid > 0 && lo->thread >= 0 &&
			      lo->thread != lo->pid && rt[l] >= THREADS_HELPER_SHARE * all[l];
		out->helper[l] = helper;
		if (helper) {
			out->nr_helpers++;
			out->helper_time += all[l];
		} else {
			out->nr_app++;
		}
	}
	xfree(all);
	xfree(rt);
	return 0;
}

void locus_roles__release(struct locus_roles *r)
{
	if (!r)
		return;
	zfree(&r->helper);
	memset(r, 0, sizeof(*r));
}
