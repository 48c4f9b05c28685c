// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/openmp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "ingest/switches.h"

bool omp_is_runtime_module(const char *module)
{
	const char *b = module ? strrchr(module, '/') : NULL;
	b = b ? b + 1 : module;
	return b && !strncmp(b, "libgomp.so", 10);
}

static bool is_libc(const char *module)
{
	const char *b = strrchr(module, '/');
	b = b ? b + 1 : module;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) ||
	       !strncmp(b, "libpthread", 10);
}

static bool is_outlined(const char *name)
{
	return name && strstr(name, "._omp_fn.") != NULL;
}

void omp_view__release(struct omp_view *v)
{
	for (size_t i = 0; i < v->nr_regions; i++) {
		xfree(v->regions[i].name);
		xfree(v->regions[i].threads);
	}
	xfree(v->regions);
	memset(v, 0, sizeof(*v));
}

/* The line of the last `#pragma omp parallel` (C) or `!$omp parallel`
 * (Fortran) in an extract of the outlined function (attrib/source.c widens
 * those upwards to hold it), or 0. */
static int pragma_line(const struct extract *x)
{
	int found = 0, line = x->start_line;
	for (const char *s = x->text; s && *s; line++) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		bool omp = (len >= 20 && !strncmp(s, "#pragma omp parallel", 20)) ||
			   (len >= 14 && !strncasecmp(s, "!$omp parallel", 14));
		if (omp)
			found = line;
		else if (found && len && s[0] != '{')
			break; /* the region's code: the pragma above it is the one */
		if (!e)
			break;
		s = e + 1;
	}
	return found;
}

static int region_of(struct omp_view *v, size_t *cap, const struct pivot *p, int64_t h)
{
	const char *name = p->hotspots[h].name;
	for (size_t i = 0; i < v->nr_regions; i++)
		if (!strcmp(v->regions[i].name, name))
			return (int)i;
	if (xgrow((void **)&v->regions, cap, v->nr_regions + 1, sizeof(*v->regions)))
		return -ENOMEM;
	struct omp_region *r = &v->regions[v->nr_regions];
	memset(r, 0, sizeof(*r));
	if (!(r->name = xstrdup(name)))
		return -ENOMEM;
	r->file = p->hotspots[h].source_file;
	for (size_t i = 0; i < p->nr_extracts && !r->line; i++)
		if (p->extracts[i].hotspot == h)
			r->line = pragma_line(&p->extracts[i]);
	r->pragma = r->line > 0;
	for (size_t i = 0; !r->pragma && i < p->nr_frames; i++) /* else its lowest sampled line */
		if (p->frames[i].hotspot == h && p->frames[i].depth == 0 && p->frames[i].line > 0 &&
		    (!r->line || p->frames[i].line < r->line))
			r->line = p->frames[i].line;
	return (int)v->nr_regions++;
}

/* Per Locus sums: work by region (index), wait. */
struct acc {
	double *work; /* nr_loci x nr_regions */
	double *wait; /* nr_loci */
	bool *seen;
};

static int from_samples(const struct pivot *p, const char *tb, struct omp_view *v, size_t *cap,
			struct acc *a, size_t max_regions)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || !m->counter || strcmp(m->counter, tb) || m->locus < 0 ||
		    (size_t)m->locus >= p->nr_loci || m->quality == QUALITY_UNAVAILABLE)
			continue;
		const struct hotspot *h = &p->hotspots[m->hotspot];
		if (omp_is_runtime_module(h->module)) {
			a->wait[m->locus] += m->value;
			a->seen[m->locus] = true;
		} else if (is_outlined(h->name)) {
			int r = region_of(v, cap, p, m->hotspot);
			if (r < 0)
				return r;
			if ((size_t)r >= max_regions)
				continue;
			a->work[(size_t)m->locus * max_regions + (size_t)r] += m->value;
			a->seen[m->locus] = true;
		}
	}
	return 0;
}

/* Off-CPU stacks: libgomp in the stack is a wait; preempted in an outlined
 * function (its innermost user frame) is work. */
static void from_stacks(const struct pivot *p, struct omp_view *v, struct acc *a,
			size_t max_regions)
{
	for (size_t s = 0; s < p->nr_stacks; s++) {
		const struct stack *st = &p->stacks[s];
		bool off = st->counter && !strcmp(st->counter, OFFCPU_COUNTER);
		bool pre = st->counter && !strcmp(st->counter, OFFCPU_PREEMPTED_COUNTER);
		if ((!off && !pre) || st->locus < 0 || (size_t)st->locus >= p->nr_loci)
			continue;
		v->wait_measured = true;
		/* the innermost frame outside the kernel and libc: the code the
		 * thread was running (libgomp as an outer caller, GOMP_parallel
		 * under the master's outlined function, is not a wait) */
		const struct stack_frame *in = NULL;
		for (size_t i = 0; i < p->nr_stack_frames; i++) {
			const struct stack_frame *f = &p->stack_frames[i];
			if (f->stack != (int64_t)s || !f->module || f->module[0] == '[' ||
			    is_libc(f->module))
				continue;
			if (!in || f->depth < in->depth)
				in = f;
		}
		bool gomp = in && omp_is_runtime_module(in->module);
		const char *user = in ? in->function : NULL;
		if (gomp) {
			a->wait[st->locus] += st->value;
			a->seen[st->locus] = true;
			continue;
		}
		for (size_t r = 0; pre && user && r < v->nr_regions && r < max_regions; r++)
			if (!strcmp(v->regions[r].name, user)) {
				a->work[(size_t)st->locus * max_regions + r] += st->value;
				a->seen[st->locus] = true;
			}
	}
}


static int fill_threads(const struct pivot *p, struct omp_view *v, const struct acc *a,
			size_t max_regions)
{
	/* OpenMP numbers: main thread (tid == pid) 0, then by tid */
	for (size_t r = 0; r < v->nr_regions && r < max_regions; r++) {
		struct omp_region *rg = &v->regions[r];
		rg->threads = xcalloc(p->nr_loci + 1, sizeof(*rg->threads));
		if (!rg->threads)
			return -ENOMEM;
		for (size_t l = 0; l < p->nr_loci; l++) {
			if (!a->seen[l])
				continue;
			/* the wait goes with the region where the thread worked most */
			size_t best = 0;
			for (size_t k = 1; k < v->nr_regions && k < max_regions; k++)
				if (a->work[l * max_regions + k] > a->work[l * max_regions + best])
					best = k;
			double work = a->work[l * max_regions + r];
			double wait = best == r ? a->wait[l] : 0;
			if (work <= 0 && wait <= 0)
				continue;
			const struct locus *lc = &p->loci[l];
			int num = 0;
			for (size_t k = 0; k < p->nr_loci; k++) /* threads of this process before it */
				if (k != l && a->seen[k] && p->loci[k].pid == lc->pid &&
				    p->loci[k].rank == lc->rank && lc->thread != lc->pid &&
				    (p->loci[k].thread == p->loci[k].pid || p->loci[k].thread < lc->thread))
					num++;
			rg->threads[rg->nr_threads++] = (struct omp_thread){
				.thread = num, .locus = (int64_t)l, .work_ns = work, .wait_ns = wait};
			if (work + wait > rg->time_ns)
				rg->time_ns = work + wait;
		}
	}
	return 0;
}

static int cmp_thread(const void *x, const void *y)
{
	const struct omp_thread *a = x, *b = y;
	return a->thread - b->thread;
}

int omp_view_build(const struct pivot *p, const char *time_base, struct omp_view *v)
{
	memset(v, 0, sizeof(*v));
	bool any = false;
	for (size_t i = 0; i < p->nr_hotspots && !any; i++)
		any = omp_is_runtime_module(p->hotspots[i].module);
	for (size_t i = 0; i < p->nr_stack_frames && !any; i++)
		any = omp_is_runtime_module(p->stack_frames[i].module);
	if (!any || !time_base)
		return 0;
	v->runtime = "libgomp";
	size_t cap = 0, maxr = 16; /* regions beyond the 16th: listed, not measured */
	struct acc a = {.work = xcalloc(p->nr_loci * maxr + 1, sizeof(double)),
			.wait = xcalloc(p->nr_loci + 1, sizeof(double)),
			.seen = xcalloc(p->nr_loci + 1, sizeof(bool))};
	int rc = a.work && a.wait && a.seen ? 0 : -ENOMEM;
	if (!rc)
		rc = from_samples(p, time_base, v, &cap, &a, maxr);
	if (!rc)
		from_stacks(p, v, &a, maxr);
	if (!rc)
		rc = fill_threads(p, v, &a, maxr);
	for (size_t r = 0; !rc && r < v->nr_regions; r++)
		if (v->regions[r].nr_threads)
			qsort(v->regions[r].threads, v->regions[r].nr_threads,
			      sizeof(struct omp_thread), cmp_thread);
	xfree(a.work);
	xfree(a.wait);
	xfree(a.seen);
	return rc;
}
