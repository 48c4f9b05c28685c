// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/threads.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"
#include "ingest/switches.h"

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

/* What one Locus did, read from the pivot: time-base samples (all, in
 * runtime code), its context-switch budget, and its off-CPU time with a
 * call stack (all, in stacks without a frame of the application). */
struct evidence {
	double samples, samples_rt;
	double wall, cpu;
	double stacked, stacked_rt;
};

static bool valid_locus(const struct pivot *p, int64_t l)
{
	return l >= 0 && (size_t)l < p->nr_loci;
}

static void read_samples(const struct pivot *p, const char *time_base, struct evidence *ev)
{
	for (size_t i = 0; time_base && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || (size_t)m->hotspot >= p->nr_hotspots ||
		    !valid_locus(p, m->locus) || !m->counter ||
		    m->quality == QUALITY_UNAVAILABLE || strcmp(m->counter, time_base) != 0 ||
		    !(m->value > 0))
			continue;
		ev[m->locus].samples += m->value;
		if (threads_is_runtime_module(p->hotspots[m->hotspot].module))
			ev[m->locus].samples_rt += m->value;
	}
}

/* The Locus-level budgets ingest/switches.c writes (wall and CPU time). */
static void read_budgets(const struct pivot *p, struct evidence *ev)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE || !valid_locus(p, m->locus) || !m->counter ||
		    !(m->value >= 0))
			continue;
		if (!strcmp(m->counter, TIME_WALL_COUNTER))
			ev[m->locus].wall += m->value;
		else if (!strcmp(m->counter, TIME_CPU_COUNTER))
			ev[m->locus].cpu += m->value;
	}
}

/* Off-CPU stacks (blocked and preempted): a stack with a frame outside the
 * runtime modules is the application's. Frames are read once. */
static int read_stacks(const struct pivot *p, struct evidence *ev)
{
	/* 0: no frame, 1: runtime frames only, 2: a frame of the application */
	unsigned char *kind = xcalloc(p->nr_stacks + 1, 1);
	if (!kind)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_stack_frames; i++) {
		const struct stack_frame *f = &p->stack_frames[i];
		if (f->stack < 0 || (size_t)f->stack >= p->nr_stacks)
			continue;
		unsigned char k = threads_is_runtime_module(f->module) ? 1 : 2;
		if (k > kind[f->stack])
			kind[f->stack] = k;
	}
	for (size_t s = 0; s < p->nr_stacks; s++) {
		const struct stack *st = &p->stacks[s];
		if (!kind[s] || !valid_locus(p, st->locus) || !st->counter || !(st->value > 0) ||
		    (strcmp(st->counter, OFFCPU_COUNTER) && strcmp(st->counter, OFFCPU_PREEMPTED_COUNTER)))
			continue;
		ev[st->locus].stacked += st->value;
		if (kind[s] == 1)
			ev[st->locus].stacked_rt += st->value;
	}
	xfree(kind);
	return 0;
}

/* The rule of threads.h for one Locus. */
static bool is_helper(const struct locus *lo, const struct evidence *e)
{
	if (lo->rank < 0 || lo->pid <= 0 || lo->thread < 0 || lo->thread == lo->pid)
		return false;
	bool on_cpu = e->samples > 0 ? e->samples_rt >= THREADS_HELPER_SHARE * e->samples
				     : e->wall > 0 && e->cpu <= THREADS_HELPER_IDLE * e->wall;
	bool off_cpu = e->stacked > 0 ? e->stacked_rt >= THREADS_HELPER_SHARE * e->stacked
				      : e->samples > 0;
	return on_cpu && off_cpu;
}

int locus_roles(const struct pivot *p, const char *time_base, struct locus_roles *out)
{
	memset(out, 0, sizeof(*out));
	if (!p->nr_loci)
		return 0;
	struct evidence *ev = xcalloc(p->nr_loci, sizeof(*ev));
	out->helper = xcalloc(p->nr_loci, sizeof(bool));
	if (!ev || !out->helper || read_stacks(p, ev)) {
		xfree(ev);
		locus_roles__release(out);
		return -ENOMEM;
	}
	out->nr_loci = p->nr_loci;
	read_samples(p, time_base, ev);
	read_budgets(p, ev);
	for (size_t l = 0; l < p->nr_loci; l++) {
		const struct evidence *e = &ev[l];
		if (!(e->samples > 0) && !(e->wall > 0))
			continue;
		out->all_time += e->samples;
		bool helper = is_helper(&p->loci[l], e);
		out->helper[l] = helper;
		if (helper) {
			out->nr_helpers++;
			out->helper_time += e->samples;
		} else {
			out->nr_app++;
		}
	}
	xfree(ev);
	return 0;
}

void locus_roles__release(struct locus_roles *r)
{
	if (!r)
		return;
	zfree(&r->helper);
	memset(r, 0, sizeof(*r));
}
