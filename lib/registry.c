/* SPDX-License-Identifier: BSD-3-Clause */
#include "registry.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "scope_profiler.h"

_Atomic int sp_state;
_Atomic int sp_fast;
__thread struct sp_thread *sp_tls __attribute__((tls_model("initial-exec")));

__thread int sp_tls_inlib __attribute__((tls_model("initial-exec")));

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

/* reg_lock held is a section a signal handler must not re-enter
 * (registry.h): the handler's sp_begin/sp_end drop their call instead of
 * waiting on a lock their own thread holds. */
static void reg_enter(void)
{
	sp_inlib_enter();
	pthread_mutex_lock(&reg_lock);
}

static void reg_leave(void)
{
	pthread_mutex_unlock(&reg_lock);
	sp_inlib_leave();
}

static struct sp_thread *threads; /* newest first */
static int nr_threads;
static _Atomic uint64_t global_misuse[SP_MISUSE_NR];

/* Interned sites: open-addressing table keyed by name, plus creation order. */
struct interned {
	struct sp_site site;
	uint64_t hash;
};
static struct interned **itab;
static size_t itab_cap, itab_nr;
static struct interned **iorder;
static size_t iorder_cap;

int64_t sp_registry__gettid(void)
{
	return (int64_t)syscall(SYS_gettid);
}

void sp_registry__after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&reg_lock, &fresh, sizeof(fresh));
}

void sp_registry__add_thread(struct sp_thread *t)
{
	reg_enter();
	t->order = nr_threads++;
	t->next = threads;
	threads = t;
	reg_leave();
}

void sp_registry__misuse(struct sp_thread *t, enum sp_misuse what)
{
	if (t)
		atomic_fetch_add_explicit(&t->misuse[what], 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&global_misuse[what], 1, memory_order_relaxed);
}

/* Regions named by misuse, per kind: a small fixed table (no allocation on
 * a path that may run out of memory). */
static struct {
	const struct sp_site *site;
	uint64_t count;
} misuse_sites[SP_MISUSE_NR][SP_MISUSE_SITES];
static uint64_t misuse_others[SP_MISUSE_NR];
static _Atomic uint64_t unnamed_misuse[SP_MISUSE_NR]; /* the lock was busy */

void sp_registry__misuse_at(struct sp_thread *t, enum sp_misuse what,
			    const struct sp_site *site)
{
	sp_registry__misuse(t, what);
	/* Counted above in any case; the region is named only when the lock is
	 * free at once: a signal handler's misuse never waits on a lock that
	 * the code it interrupted holds. */
	sp_inlib_enter();
	if (pthread_mutex_trylock(&reg_lock) != 0) {
		sp_inlib_leave();
		atomic_fetch_add_explicit(&unnamed_misuse[what], 1, memory_order_relaxed);
		return;
	}
	int k = 0;
	for (; k < SP_MISUSE_SITES && misuse_sites[what][k].count; k++)
		if (misuse_sites[what][k].site == site)
			break;
	if (k < SP_MISUSE_SITES) {
		misuse_sites[what][k].site = site;
		misuse_sites[what][k].count++;
	} else {
		misuse_others[what]++;
	}
	reg_leave();
}

void sp_registry__misuse_sites(enum sp_misuse what,
			       void (*fn)(const struct sp_site *, uint64_t, void *),
			       void *ctx, uint64_t *others)
{
	reg_enter();
	for (int k = 0; k < SP_MISUSE_SITES && misuse_sites[what][k].count; k++)
		fn(misuse_sites[what][k].site, misuse_sites[what][k].count, ctx);
	*others = misuse_others[what] + atomic_load(&unnamed_misuse[what]);
	reg_leave();
}

uint64_t sp_registry__misuse_total(enum sp_misuse what)
{
	uint64_t sum = atomic_load(&global_misuse[what]);
	reg_enter();
	for (struct sp_thread *t = threads; t; t = t->next)
		sum += atomic_load(&t->misuse[what]);
	reg_leave();
	return sum;
}

size_t sp_registry__threads(struct sp_thread ***out)
{
	reg_enter();
	size_t n = (size_t)nr_threads;
	struct sp_thread **arr = malloc((n + 1) * sizeof(*arr));
	if (arr) {
		for (struct sp_thread *t = threads; t; t = t->next)
			arr[t->order] = t;
	}
	reg_leave();
	*out = arr;
	return arr ? n : 0;
}

static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

static bool itab_grow(void)
{
	size_t cap = itab_cap ? itab_cap * 2 : 64;
	struct interned **tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return false;
	for (size_t i = 0; i < itab_cap; i++) {
		struct interned *e = itab[i];
		if (!e)
			continue;
		size_t j = e->hash & (cap - 1);
		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = e;
	}
	free(itab);
	itab = tab;
	itab_cap = cap;
	return true;
}

static struct interned *intern_new(const char *name, size_t name_len, const char *file,
				   size_t file_len, int line, uint64_t h)
{
	if (iorder_cap == itab_nr) {
		size_t cap = iorder_cap ? iorder_cap * 2 : 64;
		struct interned **o = realloc(iorder, cap * sizeof(*o));
		if (!o)
			return NULL;
		iorder = o;
		iorder_cap = cap;
	}
	struct interned *e = calloc(1, sizeof(*e));
	char *n = dup_n(name, name_len);
	char *f = file ? dup_n(file, file_len) : NULL;
	if (!e || !n || (file && !f)) {
		free(e);
		free(n);
		free(f);
		return NULL;
	}
	e->site.magic = SP_SITE_MAGIC;
	e->site.line = file ? line : -1;
	e->site.name = n;
	e->site.file = f;
	e->hash = h;
	iorder[itab_nr] = e;
	return e;
}

const struct sp_site *sp_registry__intern(const char *name, size_t name_len,
					  const char *file, size_t file_len,
					  int line)
{
	uint64_t h = hash_name(name, name_len);
	const struct sp_site *found = NULL;
	reg_enter();
	if ((itab_nr + 1) * 2 > itab_cap && !itab_grow())
		goto out;
	size_t j = h & (itab_cap - 1);
	for (; itab[j]; j = (j + 1) & (itab_cap - 1)) {
		struct interned *e = itab[j];
		if (e->hash == h && strlen(e->site.name) == name_len &&
		    memcmp(e->site.name, name, name_len) == 0) {
			found = &e->site;
			goto out;
		}
	}
	struct interned *e = intern_new(name, name_len, file, file_len, line, h);
	if (e) {
		itab[j] = e;
		itab_nr++;
		found = &e->site;
	}
out:
	reg_leave();
	return found;
}

void sp_registry__each_interned(void (*fn)(const struct sp_site *, void *), void *ctx)
{
	reg_enter();
	for (size_t i = 0; i < itab_nr; i++)
		fn(&iorder[i]->site, ctx);
	reg_leave();
}
