// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/time_budget.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/imbalance.h"
#include "analysis/openmp.h"
#include "analysis/threads.h"
#include "common/alloc.h"
#include "ingest/switches.h"

void time_budget__release(struct time_budget *tb)
{
	for (size_t i = 0; i < tb->nr_hot; i++)
		xfree(tb->hot[i].name);
	xfree(tb->hot);
	for (size_t i = 0; i < tb->helpers.nr_hot; i++)
		xfree(tb->helpers.hot[i].name);
	xfree(tb->helpers.hot);
	xfree(tb->loci);
	xfree(tb->counted);
	memset(tb, 0, sizeof(*tb));
}

static bool has(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

const char *offcpu_cause(const char *const *functions, const char *const *modules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (modules[i] && threads_is_mpi_module(modules[i]))
			return "MPI";
	for (size_t i = 0; i < n; i++)
		if (omp_is_runtime_module(modules[i]))
			return "OpenMP";
	for (size_t i = 0; i < n; i++) {
		const char *f = functions[i];
		if (has(f, "nanosleep") || has(f, "sys_pause") || has(f, "do_sys_sleep") ||
		    has(f, "sys_alarm"))
			return "sleep";
		if (has(f, "futex") || has(f, "pthread_mutex") || has(f, "pthread_cond") ||
		    has(f, "rwsem") || has(f, "pthread_barrier") || has(f, "sem_wait"))
			return "lock";
		if (has(f, "io_schedule") || has(f, "fsync") || has(f, "sys_read") ||
		    has(f, "sys_write") || has(f, "sys_pread") || has(f, "sys_pwrite") ||
		    has(f, "sys_poll") || has(f, "sys_ppoll") || has(f, "select") ||
		    has(f, "epoll") || has(f, "sys_recv") || has(f, "sys_send") ||
		    has(f, "sys_accept") || has(f, "sys_connect") || has(f, "sys_openat") ||
		    has(f, "wait_on_page") || has(f, "folio_wait") || has(f, "pipe_read") ||
		    has(f, "pipe_write") || has(f, "sys_sync"))
			return "I/O";
		if (has(f, "handle_mm_fault") || has(f, "exc_page_fault"))
			return "I/O"; /* a major fault waits for the page to be read */
	}
	return "other";
}

#define NR_COUNTERS 5
static const char *const counters[NR_COUNTERS] = {TIME_WALL_COUNTER, TIME_CPU_COUNTER,
						   TIME_OFFCPU_COUNTER, TIME_PREEMPTED_COUNTER,
						   TIME_PREEMPTED_UNSTACKED_COUNTER};

/* A thread's budget into the application's totals or the helpers'. */
static void add_locus(struct time_budget *tb, const struct locus_time *t)
{
	if (t->helper) {
		struct helper_time *h = &tb->helpers;
		h->threads++;
		h->wall_ns += t->wall_ns;
		h->cpu_ns += t->cpu_ns;
		h->offcpu_ns += t->offcpu_ns;
		h->preempted_ns += t->preempted_ns;
		h->unstacked_ns += t->unstacked_ns;
		return;
	}
	tb->nr_app++;
	tb->wall_ns = fmax(tb->wall_ns, t->wall_ns);
	tb->cpu_ns += t->cpu_ns;
	tb->offcpu_ns += t->offcpu_ns;
	tb->preempted_ns += t->preempted_ns;
	tb->unstacked_ns += t->unstacked_ns;
}

/* How many ranks the helpers belong to, and the fewest and most per rank. */
static int helper_ranks(const struct pivot *p, struct time_budget *tb)
{
	int top = -1;
	for (size_t i = 0; i < tb->nr_loci; i++)
		if (tb->loci[i].helper && p->loci[tb->loci[i].locus].rank > top)
			top = p->loci[tb->loci[i].locus].rank;
	if (top < 0)
		return 0;
	size_t *per = xcalloc((size_t)top + 1, sizeof(*per));
	if (!per)
		return -ENOMEM;
	for (size_t i = 0; i < tb->nr_loci; i++)
		if (tb->loci[i].helper)
			per[p->loci[tb->loci[i].locus].rank]++;
	struct helper_time *h = &tb->helpers;
	for (int r = 0; r <= top; r++) {
		if (!per[r])
			continue;
		h->min_per_rank = h->ranks ? (per[r] < h->min_per_rank ? per[r] : h->min_per_rank)
					   : per[r];
		h->max_per_rank = per[r] > h->max_per_rank ? per[r] : h->max_per_rank;
		h->ranks++;
	}
	xfree(per);
	return 0;
}

/* One pass over the Measurements: v[locus * NR_COUNTERS + k] for counters[k]. */
static int read_loci(const struct pivot *p, const struct locus_roles *roles, struct time_budget *tb)
{
	double *v = xcalloc(p->nr_loci * NR_COUNTERS + 1, sizeof(*v));
	bool *seen = xcalloc(p->nr_loci + 1, sizeof(*seen));
	if (!v || !seen) {
		xfree(v);
		xfree(seen);
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot != PIVOT_NONE || !m->counter || m->locus < 0 ||
		    (size_t)m->locus >= p->nr_loci)
			continue;
		for (int k = 0; k < NR_COUNTERS; k++)
			if (!strcmp(m->counter, counters[k])) {
				v[m->locus * NR_COUNTERS + k] += m->value;
				tb->blocking_stacks |= k == 4;
				n += k == 0 && !seen[m->locus];
				seen[m->locus] |= k == 0;
			}
	}
	tb->loci = n ? xcalloc(n, sizeof(*tb->loci)) : NULL;
	for (size_t l = 0; tb->loci && l < p->nr_loci; l++) {
		if (!seen[l])
			continue;
		struct locus_time *t = &tb->loci[tb->nr_loci++];
		const double *c = v + l * NR_COUNTERS;
		*t = (struct locus_time){.locus = (int64_t)l, .wall_ns = c[0], .cpu_ns = c[1],
					 .offcpu_ns = c[2], .preempted_ns = c[3],
					 .unstacked_ns = c[4],
					 .helper = locus_roles__is_helper(roles, (int64_t)l)};
		add_locus(tb, t);
	}
	xfree(v);
	xfree(seen);
	if (n && !tb->loci)
		return -ENOMEM;
	tb->available = tb->nr_loci > 0;
	return helper_ranks(p, tb);
}

static bool is_libc(const char *module)
{
	const char *b = strrchr(module, '/');
	b = b ? b + 1 : module;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "libpthread", 10);
}

/* A list of off-CPU Hotspots being built: the application's or the helpers'. */
struct hot_list {
	struct offcpu_hotspot **hot;
	size_t *n, cap;
};

static int add_hot(struct hot_list *hl, const char *name, const char *cause, double ns,
		   int64_t n, bool attributed)
{
	struct offcpu_hotspot *hot = *hl->hot;
	for (size_t i = 0; i < *hl->n; i++)
		if (!strcmp(hot[i].name, name) && hot[i].cause == cause) {
			hot[i].time_ns += ns;
			hot[i].intervals += n;
			return 0;
		}
	if (xgrow((void **)hl->hot, &hl->cap, *hl->n + 1, sizeof(**hl->hot)))
		return -ENOMEM;
	char *copy = xstrdup(name);
	if (!copy)
		return -ENOMEM;
	(*hl->hot)[(*hl->n)++] = (struct offcpu_hotspot){.name = copy, .cause = cause,
							 .time_ns = ns, .intervals = n,
							 .attributed = attributed};
	return 0;
}

/* One off-CPU stack's frames fr[0..n) (innermost first): its name and cause. */
static int name_stack(const struct pivot *p, const struct stack *st, const size_t *fr, size_t n,
		      struct hot_list *hl)
{
	const char *fn[64] = {0}, *mod[64] = {0};
	size_t k = n < 64 ? n : 64;
	const char *name = NULL;
	char fallback[160] = "";
	for (size_t i = 0; i < k; i++) {
		const struct stack_frame *f = &p->stack_frames[fr[i]];
		fn[i] = f->function;
		mod[i] = f->module;
		if (!name && f->function && f->module && !threads_is_runtime_module(f->module))
			name = f->function;
	}
	size_t deeper = k; /* the innermost user frame outside libc (a runtime's) */
	for (size_t i = 0; i < k && deeper == k; i++)
		if (mod[i] && mod[i][0] != '[' && !is_libc(mod[i]))
			deeper = i;
	for (size_t i = deeper < k ? deeper : 0; !name && i < k; i++) { /* else the innermost user frame */
		if (!mod[i] || mod[i][0] == '[')
			continue;
		const char *m = strrchr(mod[i], '/');
		snprintf(fallback, sizeof(fallback), "%s%s%s", fn[i] ? fn[i] : "",
			 fn[i] ? " in " : "", m ? m + 1 : mod[i]);
		name = fallback;
	}
	for (size_t i = 0; !name && i < k; i++) /* kernel only (a kernel thread's) */
		name = fn[i];
	return add_hot(hl, name ? name : "[unknown]", offcpu_cause(fn, mod, k), st->value,
		       st->sample_count, true);
}

static int cmp_hot(const void *a, const void *b)
{
	const struct offcpu_hotspot *x = a, *y = b;
	if (x->attributed != y->attributed) /* functions first, then the rest rows */
		return x->attributed ? -1 : 1;
	return x->time_ns < y->time_ns ? 1 : x->time_ns > y->time_ns ? -1 : strcmp(x->name, y->name);
}

/* The application's rows without a function: preempted, and blocked
 * without a call stack; then both lists by time. */
static int finish_hot(struct time_budget *tb, struct hot_list *app)
{
	int rc = 0;
	if (tb->available && tb->preempted_ns > 0)
		rc = add_hot(app, "(preempted: runnable, waiting for a CPU)", "other",
			     tb->preempted_ns, 0, false);
	double rest = tb->offcpu_ns - tb->preempted_ns - tb->attributed_ns;
	if (!rc && tb->available && rest > 0.001 * tb->offcpu_ns && rest > 0)
		rc = add_hot(app, "(blocked, no call stack recorded)", "other", rest, 0, false);
	if (!rc && tb->nr_hot)
		qsort(tb->hot, tb->nr_hot, sizeof(*tb->hot), cmp_hot);
	if (!rc && tb->helpers.nr_hot)
		qsort(tb->helpers.hot, tb->helpers.nr_hot, sizeof(*tb->helpers.hot), cmp_hot);
	return rc;
}

static int read_stacks(const struct pivot *p, const struct locus_roles *roles,
		       struct time_budget *tb)
{
	size_t *start = xcalloc(p->nr_stacks + 1, sizeof(*start));
	size_t *order = xcalloc(p->nr_stack_frames + 1, sizeof(*order));
	struct hot_list app = {&tb->hot, &tb->nr_hot, 0};
	struct hot_list help = {&tb->helpers.hot, &tb->helpers.nr_hot, 0};
	int rc = start && order ? 0 : -ENOMEM;
	/* counting sort of the frames by stack, then by depth within one */
	for (size_t i = 0; !rc && i < p->nr_stack_frames; i++)
		if (p->stack_frames[i].stack >= 0 && (size_t)p->stack_frames[i].stack < p->nr_stacks)
			start[p->stack_frames[i].stack + 1]++;
	for (size_t s = 0; !rc && s < p->nr_stacks; s++)
		start[s + 1] += start[s];
	size_t *fill = rc ? NULL : xcalloc(p->nr_stacks + 1, sizeof(*fill));
	if (!rc && !fill)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < p->nr_stack_frames; i++) {
		int64_t s = p->stack_frames[i].stack;
		if (s >= 0 && (size_t)s < p->nr_stacks)
			order[start[s] + fill[s]++] = i;
	}
	for (size_t s = 0; !rc && s < p->nr_stacks; s++) {
		const struct stack *st = &p->stacks[s];
		if (!st->counter || strcmp(st->counter, OFFCPU_COUNTER))
			continue;
		size_t *fr = order + start[s], n = start[s + 1] - start[s];
		for (size_t i = 1; i < n; i++) /* by depth (insertion sort: short lists) */
			for (size_t j = i; j > 0 && p->stack_frames[fr[j - 1]].depth >
							  p->stack_frames[fr[j]].depth; j--) {
				size_t t = fr[j];
				fr[j] = fr[j - 1];
				fr[j - 1] = t;
			}
		tb->have_stacks = true;
		bool helper = locus_roles__is_helper(roles, st->locus);
		*(helper ? &tb->helpers.attributed_ns : &tb->attributed_ns) += st->value;
		rc = name_stack(p, st, fr, n, helper ? &help : &app);
	}
	if (!rc)
		rc = finish_hot(tb, &app);
	xfree(start);
	xfree(order);
	xfree(fill);
	return rc;
}

/* Counting-only ranks: rank Loci (thread -1) carrying perf stat's
 * task-clock (a sampled rank's is per thread, from its samples). */
static int read_counted(const struct pivot *p, struct time_budget *tb)
{
	size_t cap = 0;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		bool cpu = m->counter && !strcmp(m->counter, "task-clock");
		bool wall = m->counter && !strcmp(m->counter, "duration_time");
		if (m->hotspot != PIVOT_NONE || (!cpu && !wall) || m->locus < 0 ||
		    (size_t)m->locus >= p->nr_loci || p->loci[m->locus].thread != -1 ||
		    p->loci[m->locus].rank < 0 || m->quality == QUALITY_UNAVAILABLE)
			continue;
		size_t k = 0;
		while (k < tb->nr_counted && tb->counted[k].locus != m->locus)
			k++;
		if (k == tb->nr_counted) {
			if (xgrow((void **)&tb->counted, &cap, k + 1, sizeof(*tb->counted)))
				return -ENOMEM;
			tb->counted[tb->nr_counted++] = (struct rank_time){.locus = m->locus,
									  .wall_ns = NAN,
									  .cpu_ns = NAN};
		}
		if (cpu)
			tb->counted[k].cpu_ns = m->value;
		else
			tb->counted[k].wall_ns = m->value;
	}
	return 0;
}

static bool has_ranks(const struct pivot *p)
{
	for (size_t l = 0; l < p->nr_loci; l++)
		if (p->loci[l].rank >= 0)
			return true;
	return false;
}

int time_budget_build(const struct pivot *p, struct time_budget *tb)
{
	memset(tb, 0, sizeof(*tb));
	tb->ranks = has_ranks(p);
	struct locus_roles roles = {0};
	/* helpers exist only under MPI: a Run without ranks is never classified */
	int rc = tb->ranks ? locus_roles(p, pivot__time_base(p), &roles) : 0;
	if (!rc)
		rc = read_loci(p, &roles, tb);
	if (!rc)
		rc = read_counted(p, tb);
	if (!rc)
		rc = read_stacks(p, &roles, tb);
	locus_roles__release(&roles);
	return rc;
}
