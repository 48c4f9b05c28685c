/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SP_INLIB_H
#define SP_INLIB_H

#include <pthread.h>
#include <stdatomic.h>

/*
 * Async-signal safety. sp_begin/sp_end may be called from a signal handler
 * that interrupted anything, the library included, on the same thread. The
 * fast paths are written so that a complete begin/end pair of a handler
 * between any two of their instructions leaves the interrupted call intact
 * (api.c). What cannot be re-entered (a lock of ours held, malloc, a flush,
 * the thread's registration, the lazy initialisation) runs as a section
 * counted in sp_tls_inlib (or, while a call is being recorded, t->busy): a
 * handler's call reaching a slow path in such a section is dropped and
 * counted (SP_MISUSE_IN_HANDLER), never a deadlock on a lock its own thread
 * holds.
 */
extern __thread int sp_tls_inlib __attribute__((tls_model("initial-exec")));

static inline void sp_inlib_enter(void)
{
	sp_tls_inlib++;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void sp_inlib_leave(void)
{
	atomic_signal_fence(memory_order_seq_cst);
	sp_tls_inlib--;
}

/* A lock of the library: held, it is such a section. */
static inline void sp_lock(pthread_mutex_t *m)
{
	sp_inlib_enter();
	pthread_mutex_lock(m);
}

static inline void sp_unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	sp_inlib_leave();
}

#endif
