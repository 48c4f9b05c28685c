/* SPDX-License-Identifier: BSD-3-Clause */
/* A thread's life in the library (thread.h): its struct and buffer mapped
 * and registered on its first call, its counters and sampling timer
 * started; at its exit, its calls flushed to the stream. Above the
 * registry, the stream, the counters and the sampler, which never call it. */
#include "thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "clock.h"
#include "counters.h"
#include "sampler.h"
#include "scope_profiler.h"
#include "stream.h"

static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static bool exit_key_made;

/* Anonymous memory, faulted in only where touched (the stack reserve). */
static void *map_anon(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Thread exit: keep its final name, and mark it so finalize does not read
 * /proc/self/task/<tid>/comm of whatever thread reuses the tid. */
static void on_thread_exit(void *arg)
{
	struct sp_thread *t = arg;
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	t->name[sizeof(t->name) - 1] = 0;
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		t->cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	/* Its calls reach the file now: a later crash of the process keeps them,
	 * and the buffer's pages go back (a program that starts thousands of
	 * threads keeps no 384 KiB per exited one; a late call refaults zeroes). */
	if (atomic_load(&sp_state) == SP_STATE_LIVE) {
		sp_stream__flush(t);
		if (atomic_load(&t->n) == 0)
			madvise(t->buf, SP_BUF_CALLS * sizeof(struct sp_call), MADV_DONTNEED);
	}
	sp_counters__thread_exit(t);
	atomic_store(&t->exited, true);
}

static struct sp_thread *thread_new(void);

static void make_exit_key(void)
{
	exit_key_made = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

void sp_thread__prepare(void)
{
	pthread_once(&exit_key_once, make_exit_key);
}

/* Registration is a section a signal handler must not re-enter (inlib.h):
 * a handler's first call on a thread being registered is dropped, counted,
 * rather than registering the thread twice. The struct and buffer are
 * mapped, never malloc'd, so a handler may register a thread that has
 * never called the library. */
struct sp_thread *sp_thread__new(void)
{
	sp_inlib_enter();
	struct sp_thread *t = thread_new();
	sp_inlib_leave();
	return t;
}

static struct sp_thread *thread_new(void)
{
	size_t bytes = sizeof(struct sp_thread) + SP_STACK_MAX * sizeof(struct sp_open);
	struct sp_thread *t = map_anon(bytes);
	if (!t)
		return NULL;
	t->buf = map_anon(SP_BUF_CALLS * sizeof(struct sp_call));
	if (!t->buf) {
		munmap(t, bytes);
		return NULL;
	}
	t->tid = sp_registry__gettid();
	t->cpu_ns = -1;
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	t->name[sizeof(t->name) - 1] = 0;
	t->next_anchor = sp_clock__now() + sp_clock_anchor_interval;
	sp_counters__thread_start(t);
	sp_registry__add_thread(t);
	sp_tls = t;
	pthread_once(&exit_key_once, make_exit_key);
	if (exit_key_made)
		pthread_setspecific(exit_key, t);
	sp_sampler__thread_started(t);
	return t;
}
