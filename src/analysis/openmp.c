// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/openmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "ingest/switches.h"

const char *omp_runtime_of(const char *module)
{
	const char *b = module ? strrchr(module, '/') : NULL;
	b = b ? b + 1 : module;
	if (b && !strncmp(b, "libgomp.so", 10))
		return "libgomp";
	if (b && (!strncmp(b, "libomp.so", 9) || !strncmp(b, "libomp5.so", 10) ||
		  !strncmp(b, "libiomp5.so", 11)))
		return "libomp";
	return NULL;
}

bool omp_is_runtime_module(const char *module)
{
	return omp_runtime_of(module) != NULL;
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
	return name && (strstr(name, "._omp_fn.") || !strncmp(name, ".omp_outlined.", 14));
}

void omp_view__release(struct omp_view *v)
{
	for (size_t i = 0; i < v->nr_regions; i++) {
		xfree(v->regions[i].name);
		xfree(v->regions[i].threads);
	}
	xfree(v->regions);
	xfree(v->ranks);
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

/* The region of outlined function `name`: file and line from its Hotspot
 * when it was sampled itself. Returns its index or -ENOMEM. */
static int region_named(struct omp_view *v, size_t *cap, const struct pivot *p, const char *name)
{
	for (size_t i = 0; i < v->nr_regions; i++)
		if (!strcmp(v->regions[i].name, name))
			return (int)i;
	if (xgrow((void **)&v->regions, cap, v->nr_regions + 1, sizeof(*v->regions)))
		return -ENOMEM;
	struct omp_region *r = &v->regions[v->nr_regions];
	memset(r, 0, sizeof(*r));
	if (!(r->name = xstrdup(name)))
		return -ENOMEM;
	int64_t h = -1;
	for (size_t i = 0; i < p->nr_hotspots && h < 0; i++)
		if (p->hotspots[i].name && !strcmp(p->hotspots[i].name, name))
			h = (int64_t)i;
	if (h < 0)
		return (int)v->nr_regions++;
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
#define MAX_REGIONS 16 /* regions beyond the 16th: listed, not measured */

struct acc {
	double *work;    /* nr_loci x max_regions */
	double *wait_at; /* nr_loci x max_regions: waits whose stack names the region */
	double *wait;    /* nr_loci: waits no frame ties to a region */
	bool *seen;
	bool *runtime; /* nr_loci: the runtime's own code seen on the thread */
	size_t max_regions;
};

static int add_work(struct omp_view *v, size_t *cap, const struct pivot *p, struct acc *a,
		    int64_t locus, const char *outlined, double ns)
{
	int r = region_named(v, cap, p, outlined);
	if (r < 0)
		return r;
	if ((size_t)r < a->max_regions) /* regions beyond: listed, not measured */
		a->work[(size_t)locus * a->max_regions + (size_t)r] += ns;
	a->seen[locus] = true;
	return 0;
}

/* A wait of the thread: in the region whose outlined function is on its
 * stack (an explicit barrier's, when unwinding reaches the region's code),
 * else pooled: which region it served is decided by split_wait(). */
static int add_wait(struct omp_view *v, size_t *cap, const struct pivot *p, struct acc *a,
		    int64_t locus, const char *outlined, double ns)
{
	a->seen[locus] = true;
	int r = outlined ? region_named(v, cap, p, outlined) : -1;
	if (r < -1)
		return r;
	if (r >= 0 && (size_t)r < a->max_regions)
		a->wait_at[(size_t)locus * a->max_regions + (size_t)r] += ns;
	else
		a->wait[locus] += ns;
	return 0;
}

/* One stack (frames by depth, innermost first): a wait when the innermost
 * frame outside the kernel and libc is the OpenMP runtime's (libgomp as an
 * outer caller, GOMP_parallel under the master's outlined function, is not
 * a wait), work when an outlined function is on it, else neither. */
struct frame_index {
	size_t *start; /* nr_stacks + 1: frames of stack s are order[start[s]..start[s+1]) */
	size_t *order;
};

static int frame_index(const struct pivot *p, struct frame_index *fx)
{
	fx->start = xcalloc(p->nr_stacks + 2, sizeof(size_t));
	fx->order = xcalloc(p->nr_stack_frames + 1, sizeof(size_t));
	size_t *fill = xcalloc(p->nr_stacks + 1, sizeof(size_t));
	if (!fx->start || !fx->order || !fill) {
		xfree(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr_stack_frames; i++)
		if (p->stack_frames[i].stack >= 0 && (size_t)p->stack_frames[i].stack < p->nr_stacks)
			fx->start[p->stack_frames[i].stack + 1]++;
	for (size_t s = 0; s < p->nr_stacks; s++)
		fx->start[s + 1] += fx->start[s];
	for (size_t i = 0; i < p->nr_stack_frames; i++) {
		int64_t s = p->stack_frames[i].stack;
		if (s >= 0 && (size_t)s < p->nr_stacks)
			fx->order[fx->start[s] + fill[s]++] = i;
	}
	xfree(fill);
	return 0;
}

/* libomp, built without frame pointers, waits in libc (sched_yield while
 * it spins, futex through pthread_cond_wait when it sleeps): frame-pointer
 * unwinding then skips its own frames and the libc frame's caller reads as
 * the outlined function. Under libomp such a libc frame is its wait. */
static bool libomp_wait_in_libc(const char *function)
{
	static const char *const names[] = {"sched_yield", "futex", "pthread_cond", "syscall"};
	for (size_t i = 0; function && i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(function, names[i]))
			return true;
	return false;
}

static int classify_stack(const struct pivot *p, const struct frame_index *fx, size_t s,
			  bool libomp, const char **outlined, bool *runtime)
{
	const struct stack_frame *in = NULL, *out = NULL, *user = NULL;
	for (size_t k = fx->start[s]; k < fx->start[s + 1]; k++) {
		const struct stack_frame *f = &p->stack_frames[fx->order[k]];
		if (!f->module)
			continue;
		*runtime = *runtime || omp_is_runtime_module(f->module);
		if (is_outlined(f->function) && (!out || f->depth < out->depth))
			out = f;
		if (f->module[0] != '[' && !is_libc(f->module) && (!in || f->depth < in->depth))
			in = f;
		if (f->module[0] != '[' && (!user || f->depth < user->depth))
			user = f;
	}
	*outlined = out ? out->function : NULL;
	if (in && omp_is_runtime_module(in->module))
		return 1;
	if (libomp && user && is_libc(user->module) && libomp_wait_in_libc(user->function))
		return 1;
	return out ? 2 : 0;
}

/* Time-base samples: by their stacks when the Run has them (a callee of the
 * outlined function is work too), else by Hotspot. Off-CPU stacks: blocked
 * or preempted in the runtime is a wait, preempted in a region is work. */
static int accumulate(const struct pivot *p, const char *tb, struct omp_view *v, size_t *cap,
		      struct acc *a)
{
	bool tb_stacks = false;
	for (size_t s = 0; s < p->nr_stacks && !tb_stacks; s++)
		tb_stacks = p->stacks[s].counter && !strcmp(p->stacks[s].counter, tb);
	for (size_t i = 0; !tb_stacks && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || !m->counter || strcmp(m->counter, tb) || m->locus < 0 ||
		    (size_t)m->locus >= p->nr_loci || m->quality == QUALITY_UNAVAILABLE)
			continue;
		const struct hotspot *h = &p->hotspots[m->hotspot];
		bool libomp_libc = !strcmp(v->runtime, "libomp") && h->module && is_libc(h->module) &&
				   libomp_wait_in_libc(h->name);
		if (omp_is_runtime_module(h->module) || libomp_libc) {
			a->wait[m->locus] += m->value;
			a->seen[m->locus] = true;
			a->runtime[m->locus] |= omp_is_runtime_module(h->module);
		} else if (is_outlined(h->name) && add_work(v, cap, p, a, m->locus, h->name, m->value)) {
			return -ENOMEM;
		}
	}
	struct frame_index fx = {0};
	int rc = frame_index(p, &fx);
	for (size_t s = 0; !rc && s < p->nr_stacks; s++) {
		const struct stack *st = &p->stacks[s];
		bool base = tb_stacks && st->counter && !strcmp(st->counter, tb);
		bool off = st->counter && !strcmp(st->counter, OFFCPU_COUNTER);
		bool pre = st->counter && !strcmp(st->counter, OFFCPU_PREEMPTED_COUNTER);
		if ((!base && !off && !pre) || st->locus < 0 || (size_t)st->locus >= p->nr_loci)
			continue;
		v->wait_measured = v->wait_measured || off || pre;
		const char *outlined = NULL;
		int k = classify_stack(p, &fx, s, !strcmp(v->runtime, "libomp"), &outlined,
				       &a->runtime[st->locus]);
		if (k == 1) {
			rc = add_wait(v, cap, p, a, st->locus, outlined, st->value);
		} else if (k == 2 && (base || pre)) {
			rc = add_work(v, cap, p, a, st->locus, outlined, st->value);
		}
	}
	xfree(fx.start);
	xfree(fx.order);
	return rc;
}

/* Only the application's OpenMP threads: a thread of a process (pid, rank)
 * where some thread worked in a region, that worked in one itself or ran
 * the runtime's own code. Anything else (another process: nunatak's relay,
 * a sanitizer's tracer task; a thread of the application outside OpenMP)
 * waiting in libc's futex is not an OpenMP thread waiting at a barrier. */
static void keep_app_threads(const struct pivot *p, struct acc *a, size_t nr_regions)
{
	size_t nr = nr_regions < a->max_regions ? nr_regions : a->max_regions;
	bool *worked = a->runtime + p->nr_loci; /* scratch: nr_loci more */
	for (size_t l = 0; l < p->nr_loci; l++) {
		worked[l] = false;
		for (size_t r = 0; r < nr && !worked[l]; r++)
			worked[l] = a->work[l * a->max_regions + r] > 0 ||
				    a->wait_at[l * a->max_regions + r] > 0;
	}
	for (size_t l = 0; l < p->nr_loci; l++) {
		bool process = false;
		for (size_t k = 0; k < p->nr_loci && !process; k++)
			process = worked[k] && p->loci[k].pid == p->loci[l].pid &&
				  p->loci[k].rank == p->loci[l].rank;
		a->seen[l] = a->seen[l] && process && (worked[l] || a->runtime[l]);
	}
}

/* The thread's pooled wait (libgomp's frames do not say which region a
 * barrier wait served) split between the regions it took part in, in
 * proportion to its deficit in each: the longest work of the process's
 * threads in that region minus its own, the wait at that region's barrier
 * the imbalance predicts. No deficit anywhere: all with the region where it
 * worked most. share[r] gets its part; returns whether the pool went to a
 * choice among several regions (the split is then estimated). */
static bool split_wait(const struct pivot *p, const struct acc *a, size_t nr, size_t l,
		       double *share)
{
	size_t m = a->max_regions, best = 0, members = 0;
	double sum = 0;
	for (size_t r = 0; r < nr; r++) {
		double own = a->work[l * m + r], longest = own;
		bool member = own > 0 || a->wait_at[l * m + r] > 0;
		for (size_t k = 0; member && k < p->nr_loci; k++)
			if (a->seen[k] && p->loci[k].pid == p->loci[l].pid &&
			    p->loci[k].rank == p->loci[l].rank && a->work[k * m + r] > longest)
				longest = a->work[k * m + r];
		share[r] = member ? longest - own : 0;
		sum += share[r];
		members += member;
		if (own > a->work[l * m + best])
			best = r;
	}
	for (size_t r = 0; r < nr; r++)
		share[r] = sum > 0 ? share[r] / sum : r == best ? 1 : 0;
	return members > 1 && a->wait[l] > 0;
}

/* Per Locus, its preempted time without a stack (ingest/switches.h
 * TIME_PREEMPTED_UNSTACKED_COUNTER: the Run took the stacks of blocking
 * switch-outs only), or NULL when none has any. */
static double *unstacked_of(const struct pivot *p)
{
	double *u = NULL;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE || !m->counter || m->value <= 0 || m->locus < 0 ||
		    (size_t)m->locus >= p->nr_loci || strcmp(m->counter, TIME_PREEMPTED_UNSTACKED_COUNTER))
			continue;
		if (!u && !(u = xcalloc(p->nr_loci, sizeof(*u))))
			return NULL;
		u[m->locus] += m->value;
	}
	return u;
}

/* A thread's preempted time without a stack, spread over its work and wait
 * in proportion to them: a preemption on the way back to user space comes
 * at a tick, in whatever code the thread was running, so where it ran says
 * where it was preempted (estimated; openmp_view says so). */
static double unstacked_factor(const struct acc *a, size_t l, size_t nr, double u)
{
	double total = a->wait[l];
	for (size_t r = 0; r < nr; r++)
		total += a->work[l * a->max_regions + r] + a->wait_at[l * a->max_regions + r];
	return total > 0 && u > 0 ? 1 + u / total : 1;
}

static int fill_threads(const struct pivot *p, struct omp_view *v, struct acc *a)
{
	size_t m = a->max_regions, nr = v->nr_regions < m ? v->nr_regions : m;
	keep_app_threads(p, a, v->nr_regions);
	double *u = unstacked_of(p);
	for (size_t r = 0; r < nr; r++) {
		v->regions[r].threads = xcalloc(p->nr_loci + 1, sizeof(*v->regions[r].threads));
		if (!v->regions[r].threads) {
			xfree(u);
			return -ENOMEM;
		}
	}
	for (size_t l = 0; l < p->nr_loci; l++) {
		if (!a->seen[l])
			continue;
		double share[MAX_REGIONS];
		bool split = split_wait(p, a, nr, l, share);
		double f = u ? unstacked_factor(a, l, nr, u[l]) : 1;
		v->unstacked_ns += u && f > 1 ? u[l] : 0;
		const struct locus *lc = &p->loci[l];
		/* OpenMP numbers: main thread (tid == pid) 0, then by tid */
		int num = 0;
		for (size_t k = 0; k < p->nr_loci; k++) /* threads of this process before it */
			if (k != l && a->seen[k] && p->loci[k].pid == lc->pid &&
			    p->loci[k].rank == lc->rank && lc->thread != lc->pid &&
			    (p->loci[k].thread == p->loci[k].pid || p->loci[k].thread < lc->thread))
				num++;
		for (size_t r = 0; r < nr; r++) {
			struct omp_region *rg = &v->regions[r];
			double work = f * a->work[l * m + r];
			double wait = f * (a->wait_at[l * m + r] + share[r] * a->wait[l]);
			if (work <= 0 && wait <= 0)
				continue;
			rg->threads[rg->nr_threads++] = (struct omp_thread){
				.thread = num, .locus = (int64_t)l, .work_ns = work, .wait_ns = wait,
				.wait_split = split};
			v->wait_split |= split;
			if (work + wait > rg->time_ns)
				rg->time_ns = work + wait;
		}
	}
	xfree(u);
	return 0;
}

static int cmp_thread(const void *x, const void *y)
{
	const struct omp_thread *a = x, *b = y;
	if (a->thread != b->thread)
		return a->thread - b->thread;
	return (a->locus > b->locus) - (a->locus < b->locus);
}

/* The region of OMPT site row o: same function, file and line (or, unnamed,
 * same module and address) as an earlier one. Returns its index or -ENOMEM. */
static int ompt_region(struct omp_view *v, size_t *cap, const struct omp_site *o)
{
	char name[64];
	for (size_t i = 0; i < v->nr_regions; i++) {
		const struct omp_region *r = &v->regions[i];
		const struct omp_site *f = r->first;
		bool same = o->function ? f->function && !strcmp(f->function, o->function) &&
						  f->line == o->line &&
						  (f->file == o->file ||
						   (f->file && o->file && !strcmp(f->file, o->file)))
					: !f->function && f->address == o->address && f->module &&
						  o->module && !strcmp(f->module, o->module);
		if (same)
			return (int)i;
	}
	if (xgrow((void **)&v->regions, cap, v->nr_regions + 1, sizeof(*v->regions)))
		return -ENOMEM;
	struct omp_region *r = &v->regions[v->nr_regions];
	memset(r, 0, sizeof(*r));
	snprintf(name, sizeof(name), "+0x%llx", (unsigned long long)o->address);
	const char *b = o->module ? strrchr(o->module, '/') : NULL;
	r->name = o->function ? xstrdup(o->function) : xasprintf("%s%s", b ? b + 1 : "?", name);
	if (!r->name)
		return -ENOMEM;
	r->file = o->file;
	r->line = o->line;
	r->pragma = o->line > 0;
	r->first = o;
	return (int)v->nr_regions++;
}

static int build_from_ompt(const struct pivot *p, struct omp_view *v)
{
	v->runtime = "libomp";
	v->ompt = v->wait_measured = true;
	size_t cap = 0;
	for (size_t i = 0; i < p->nr_omp_sites; i++) {
		const struct omp_site *o = &p->omp_sites[i];
		if (o->locus < 0 || (size_t)o->locus >= p->nr_loci || o->calls <= 0)
			continue;
		int k = ompt_region(v, &cap, o);
		if (k < 0)
			return k;
		struct omp_region *r = &v->regions[k];
		if (xgrow((void **)&r->threads, &r->cap_threads, r->nr_threads + 1,
			  sizeof(*r->threads)))
			return -ENOMEM;
		double wait = (double)o->wait_ns, task = (double)o->task_ns;
		r->threads[r->nr_threads++] = (struct omp_thread){
			.thread = o->thread_num, .locus = o->locus, .work_ns = task - wait,
			.wait_ns = wait};
		if (task > r->time_ns)
			r->time_ns = task;
	}
	return 0;
}

static struct omp_rank *rank_of(struct omp_view *v, size_t *cap, int rank)
{
	for (size_t i = 0; i < v->nr_ranks; i++)
		if (v->ranks[i].rank == rank)
			return &v->ranks[i];
	if (xgrow((void **)&v->ranks, cap, v->nr_ranks + 1, sizeof(*v->ranks)))
		return NULL;
	struct omp_rank *r = &v->ranks[v->nr_ranks++];
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->worst_thread = -1;
	return r;
}

static int cmp_rank(const void *x, const void *y)
{
	const struct omp_rank *a = x, *b = y;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The rank's MPI time and wall time (Locus-level, thread -1). */
static void rank_mpi(const struct pivot *p, struct omp_rank *r)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE || m->locus < 0 || (size_t)m->locus >= p->nr_loci ||
		    p->loci[m->locus].rank != r->rank || p->loci[m->locus].thread != -1 ||
		    !m->counter || m->quality == QUALITY_UNAVAILABLE)
			continue;
		if (!strcmp(m->counter, "mpi_time")) {
			r->mpi_time_ns = m->value;
			r->mpi_known = true;
		} else if (!strcmp(m->counter, "mpi_wall_time")) {
			r->mpi_wall_ns = m->value;
		} else {
			continue;
		}
		r->mpi_estimated |= m->quality != QUALITY_MEASURED;
	}
}

/* Per rank sums over every region's threads (under MPI only). */
static int build_ranks(const struct pivot *p, struct omp_view *v)
{
	size_t cap = 0;
	for (size_t g = 0; g < v->nr_regions; g++)
		for (size_t t = 0; t < v->regions[g].nr_threads; t++) {
			const struct omp_thread *th = &v->regions[g].threads[t];
			int rank = p->loci[th->locus].rank;
			if (rank < 0)
				continue;
			struct omp_rank *r = rank_of(v, &cap, rank);
			if (!r)
				return -ENOMEM;
			double time = th->work_ns + th->wait_ns;
			r->nr_threads++;
			r->threads_time_ns += time;
			r->threads_wait_ns += th->wait_ns;
			double share = time > 0 ? th->wait_ns / time : 0;
			if (r->worst_thread < 0 || share > r->worst_share) {
				r->worst_thread = th->thread;
				r->worst_share = share;
			}
		}
	for (size_t i = 0; i < v->nr_ranks; i++)
		rank_mpi(p, &v->ranks[i]);
	if (v->nr_ranks)
		qsort(v->ranks, v->nr_ranks, sizeof(*v->ranks), cmp_rank);
	return 0;
}

static int cmp_thread(const void *x, const void *y);

/* OMPT rows: by rank, then OpenMP number (rank x thread under MPI). */
static int cmp_rank_thread(const void *x, const void *y, void *arg)
{
	const struct pivot *p = arg;
	const struct omp_thread *a = x, *b = y;
	int ra = p->loci[a->locus].rank, rb = p->loci[b->locus].rank;
	return ra != rb ? (ra > rb) - (ra < rb) : cmp_thread(x, y);
}

int omp_view_build(const struct pivot *p, const char *time_base, struct omp_view *v)
{
	memset(v, 0, sizeof(*v));
	if (p->nr_omp_sites) {
		int rc = build_from_ompt(p, v);
		for (size_t r = 0; !rc && r < v->nr_regions; r++)
			qsort_r(v->regions[r].threads, v->regions[r].nr_threads,
				sizeof(struct omp_thread), cmp_rank_thread, (void *)p);
		return rc ? rc : build_ranks(p, v);
	}
	const char *rt = NULL;
	for (size_t i = 0; i < p->nr_hotspots && !rt; i++)
		rt = omp_runtime_of(p->hotspots[i].module);
	for (size_t i = 0; i < p->nr_stack_frames && !rt; i++)
		rt = omp_runtime_of(p->stack_frames[i].module);
	if (!rt || !time_base)
		return 0;
	v->runtime = rt;
	size_t cap = 0, maxr = MAX_REGIONS;
	struct acc a = {.work = xcalloc(p->nr_loci * maxr + 1, sizeof(double)),
			.wait_at = xcalloc(p->nr_loci * maxr + 1, sizeof(double)),
			.wait = xcalloc(p->nr_loci + 1, sizeof(double)),
			.seen = xcalloc(p->nr_loci + 1, sizeof(bool)),
			.runtime = xcalloc(2 * p->nr_loci + 1, sizeof(bool)), .max_regions = maxr};
	int rc = a.work && a.wait_at && a.wait && a.seen && a.runtime ? 0 : -ENOMEM;
	if (!rc)
		rc = accumulate(p, time_base, v, &cap, &a);
	if (!rc)
		rc = fill_threads(p, v, &a);
	for (size_t r = 0; !rc && r < v->nr_regions; r++)
		if (v->regions[r].nr_threads)
			qsort(v->regions[r].threads, v->regions[r].nr_threads,
			      sizeof(struct omp_thread), cmp_thread);
	xfree(a.work);
	xfree(a.wait_at);
	xfree(a.wait);
	xfree(a.seen);
	xfree(a.runtime);
	return rc ? rc : build_ranks(p, v);
}
