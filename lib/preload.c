/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared library only: interposes pthread_create so that threads created
 * after sampling started get their own timer from their first instruction,
 * whether the library is linked or LD_PRELOADed (ARCHITECTURE.md §5, the
 * preload sampler). The static library leaves pthread_create alone: there,
 * a later thread gets its timer at its first sp_begin().
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "sampler.h"

#if defined(__SANITIZE_THREAD__)
#define SP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SP_TSAN 1
#endif
#endif
#ifndef SP_TSAN
#define SP_TSAN 0
#endif

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	sp_sampler__adopt_current_thread();
	return s.fn(s.arg);
}

static int create_wrapped(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	/* Looked up once; threads may race to do it (same value, atomically). */
	static create_fn cached;
	create_fn real = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (!real) {
		real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
		__atomic_store_n(&cached, real, __ATOMIC_RELAXED);
	}
	if (!real)
		return EAGAIN; /* no libc pthread_create to call */
	/* Under ThreadSanitizer, TSan's own interceptor calls us with its
	 * thread-start function, which must run first on the new thread (the
	 * trampoline, instrumented, would run before TSan knows the thread): the
	 * library then behaves as the static one, a later thread gets its timer
	 * at its first sp_begin(). */
	if (SP_TSAN || !sp_sampler__running())
		return real(th, attr, fn, arg);
	struct start *s = malloc(sizeof(*s));
	if (!s)
		return real(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int rc = real(th, attr, trampoline, s);
	if (rc != 0)
		free(s);
	return rc;
}

/*
 * Programs reference pthread_create with a glibc symbol version
 * (GLIBC_2.34, or GLIBC_2.2.5 when built before glibc 2.34), and a
 * versioned reference only binds to a definition of the same version: so
 * the wrapper is exported under both names (nodes in scope_profiler.map).
 * Other architectures keep libc's pthread_create; later threads there get
 * their timer at their first sp_begin().
 */
#if defined(__x86_64__) && defined(__GLIBC__)
__attribute__((visibility("default"))) int sp_pthread_create_v234(pthread_t *th,
								  const pthread_attr_t *attr,
								  void *(*fn)(void *), void *arg);
__attribute__((visibility("default"))) int sp_pthread_create_v225(pthread_t *th,
								  const pthread_attr_t *attr,
								  void *(*fn)(void *), void *arg);
int sp_pthread_create_v234(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			   void *arg)
{
	return create_wrapped(th, attr, fn, arg);
}
int sp_pthread_create_v225(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			   void *arg)
{
	return create_wrapped(th, attr, fn, arg);
}
__asm__(".symver sp_pthread_create_v234, pthread_create@@GLIBC_2.34");
__asm__(".symver sp_pthread_create_v225, pthread_create@GLIBC_2.2.5");
#endif
