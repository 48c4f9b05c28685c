/* SPDX-License-Identifier: BSD-3-Clause */
#include "registry.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "sampler.h"
#include "scope_profiler.h"

_Atomic int sp_state;
_Atomic int sp_fast;
__thread struct sp_thread *sp_tls __attribute__((tls_model("initial-exec")));

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static bool exit_key_made;
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

void sp_registry__lock(void)
{
	pthread_mutex_lock(&reg_lock);
}

void sp_registry__unlock(void)
{
	pthread_mutex_unlock(&reg_lock);
}

void sp_registry__after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&reg_lock, &fresh, sizeof(fresh));
}

#define HUGE_PAGE (2u << 20)

/* Chunks come from mmap, big ones 2 MiB-aligned so that a kernel with
 * transparent huge pages "always" backs them with huge pages (~120 faults
 * for 10 M calls instead of ~60000; a 4 KiB fault costs about as much as
 * 50 calls in this VM). No MADV_HUGEPAGE: under defrag=madvise it makes
 * each fault compact memory synchronously, which was measured to triple
 * the cost of a call on a fragmented machine. Never unmapped (registry.h). */
static struct sp_chunk *chunk_new(size_t cap)
{
	size_t bytes = sizeof(struct sp_chunk) + cap * sizeof(struct sp_call);
	bytes = (bytes + 4095) & ~(size_t)4095;
	bool huge = bytes >= HUGE_PAGE;
	size_t len = huge ? bytes + HUGE_PAGE : bytes;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (huge) {
		uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
		size_t head = a - (uintptr_t)p;
		if (head)
			munmap(p, head);
		size_t tail = len - head - bytes;
		if (tail)
			munmap((char *)a + bytes, tail);
		p = (char *)a;
	}
	struct sp_chunk *c = (struct sp_chunk *)p;
	atomic_init(&c->next, NULL);
	c->cap = cap;
	return c;
}

/* Thread exit: keep its final name, and mark it so finalize does not read
 * /proc/self/task/<tid>/comm of whatever thread reuses the tid. */
static void on_thread_exit(void *arg)
{
	struct sp_thread *t = arg;
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	t->name[sizeof(t->name) - 1] = 0;
	atomic_store(&t->exited, true);
}

static void make_exit_key(void)
{
	exit_key_made = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

struct sp_thread *sp_registry__thread_new(void)
{
	struct sp_thread *t = NULL;
	if (posix_memalign((void **)&t, 64, sizeof(*t)) != 0)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->first = chunk_new(SP_CHUNK_FIRST);
	atomic_init(&t->chunk, t->first);
	if (!t->first) {
		free(t);
		return NULL;
	}
	t->tid = sp_registry__gettid();
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	t->name[sizeof(t->name) - 1] = 0;
	uint64_t now = sp_clock__now();
	t->next_anchor = sp_clock_tsc ? now + sp_clock_anchor_interval : UINT64_MAX;
	pthread_mutex_lock(&reg_lock);
	t->order = nr_threads++;
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&reg_lock);
	sp_tls = t;
	pthread_once(&exit_key_once, make_exit_key);
	if (exit_key_made)
		pthread_setspecific(exit_key, t);
	sp_sampler__thread_started(t);
	return t;
}

bool sp_registry__grow(struct sp_thread *t)
{
	struct sp_chunk *old = atomic_load_explicit(&t->chunk, memory_order_relaxed);
	size_t cap = old->cap * 2;
	if (cap > SP_CHUNK_MAX)
		cap = SP_CHUNK_MAX;
	struct sp_chunk *c = chunk_new(cap);
	if (!c)
		return false;
	/* n = 0 before the switch: a reader that sees the new chunk never
	 * pairs it with the old chunk's count. */
	atomic_store_explicit(&t->n, 0, memory_order_release);
	atomic_store_explicit(&old->next, c, memory_order_release);
	atomic_store_explicit(&t->chunk, c, memory_order_release);
	if (sp_clock_tsc)
		t->next_anchor = sp_clock__anchor() + sp_clock_anchor_interval;
	return true;
}

size_t sp_registry__published(const struct sp_thread *t, const struct sp_chunk *c)
{
	struct sp_chunk *cur = atomic_load_explicit(&((struct sp_thread *)t)->chunk,
						    memory_order_acquire);
	if (c != cur)
		return c->cap;
	size_t n = atomic_load_explicit(&((struct sp_thread *)t)->n, memory_order_acquire);
	return n < c->cap ? n : c->cap;
}

void sp_registry__misuse(struct sp_thread *t, enum sp_misuse what)
{
	if (t)
		atomic_fetch_add_explicit(&t->misuse[what], 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&global_misuse[what], 1, memory_order_relaxed);
}

uint64_t sp_registry__misuse_total(enum sp_misuse what)
{
	uint64_t sum = atomic_load(&global_misuse[what]);
	pthread_mutex_lock(&reg_lock);
	for (struct sp_thread *t = threads; t; t = t->next)
		sum += atomic_load(&t->misuse[what]);
	pthread_mutex_unlock(&reg_lock);
	return sum;
}

size_t sp_registry__threads(struct sp_thread ***out)
{
	pthread_mutex_lock(&reg_lock);
	size_t n = (size_t)nr_threads;
	struct sp_thread **arr = malloc((n + 1) * sizeof(*arr));
	if (arr) {
		for (struct sp_thread *t = threads; t; t = t->next)
			arr[t->order] = t;
	}
	pthread_mutex_unlock(&reg_lock);
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
	pthread_mutex_lock(&reg_lock);
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
	pthread_mutex_unlock(&reg_lock);
	return found;
}

void sp_registry__each_interned(void (*fn)(const struct sp_site *, void *), void *ctx)
{
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < itab_nr; i++)
		fn(&iorder[i]->site, ctx);
	pthread_mutex_unlock(&reg_lock);
}
