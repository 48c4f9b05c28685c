/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's per-process registry: its state word, the interned regions
 * sp_region() hands out, and one struct sp_thread per recording thread with
 * its open-region stack and its chunked call buffer.
 *
 * Concurrency: a thread's struct is written only by that thread, except
 * that sp_finalize() (any thread) reads the published call counts
 * (chunk->nr, release/acquire) and the sampler's signal handler reads the
 * stack of the thread it interrupted (depth is stored after its entry, with
 * a signal fence). Thread structs and chunks are never freed: a thread may
 * still be writing while another finalizes.
 */
#ifndef SP_REGISTRY_H
#define SP_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_site;

enum sp_state {
	SP_STATE_UNINIT = 0, /* first call initialises from the env */
	SP_STATE_LIVE,       /* recording */
	SP_STATE_DISABLED,   /* SCOPE_PROFILER_DISABLE: silent no-ops */
	SP_STATE_FINALIZED,  /* later calls are counted no-ops */
	SP_STATE_FORKED,     /* a fork() child: no-ops, writes nothing */
};

extern _Atomic int sp_state;
/* 1 while recording with the TSC clock: the one word the hot path tests. */
extern _Atomic int sp_fast;

#define SP_STACK_MAX 256      /* open regions per thread kept; deeper ones are counted */
#define SP_CHUNK_FIRST 1024   /* calls in a thread's first chunk */
#define SP_CHUNK_MAX (1u << 20) /* chunks double up to this many calls */

/* One completed call, in raw clock stamps (see clock.h). */
struct sp_call {
	const struct sp_site *site;
	uint64_t start;
	uint64_t end;
};

/* A chunk is full (cap calls) once its successor exists; the thread's
 * current chunk holds sp_thread::n calls. */
struct sp_chunk {
	_Atomic(struct sp_chunk *) next;
	size_t cap;
	struct sp_call calls[];
};

struct sp_open {
	const struct sp_site *site;
	uint64_t start;
};

/* Misuse counters, reported once at finalize. */
enum sp_misuse {
	SP_MISUSE_NULL_HANDLE,    /* sp_begin/sp_end(NULL) */
	SP_MISUSE_END_UNOPENED,   /* sp_end of a region not open on the thread */
	SP_MISUSE_END_NOT_INNER,  /* sp_end of a region open deeper */
	SP_MISUSE_DISCARDED,      /* inner regions dropped by such an sp_end */
	SP_MISUSE_TOO_DEEP,       /* opens beyond SP_STACK_MAX (not recorded) */
	SP_MISUSE_LEFT_OPEN,      /* regions still open at finalize */
	SP_MISUSE_AFTER_FINALIZE, /* any call after sp_finalize */
	SP_MISUSE_FINALIZE_AGAIN, /* sp_finalize called again */
	SP_MISUSE_BAD_HANDLE,     /* unreadable or non-sp_site handle seen */
	SP_MISUSE_NO_MEMORY,      /* calls dropped: a chunk could not be allocated */
	SP_MISUSE_NR
};

struct sp_thread {
	/* hot: touched by every sp_begin/sp_end */
	_Atomic(struct sp_chunk *) chunk; /* current chunk */
	_Atomic size_t n; /* calls in it; stored (release) after the call */
	uint32_t depth;         /* open regions, may exceed SP_STACK_MAX */
	uint32_t pad_;
	uint64_t next_anchor;   /* stamp after which to take a clock anchor */
	struct sp_open stack[SP_STACK_MAX];
	/* cold */
	struct sp_chunk *first;
	struct sp_thread *next; /* registry list, newest first */
	int64_t tid;
	int order;              /* registration order: lane before compaction */
	_Atomic bool exited;
	char name[16];
	_Atomic uint64_t misuse[SP_MISUSE_NR];
};

/* The calling thread's struct, NULL until it first records. Initial-exec
 * TLS: reading it is async-signal-safe and costs one load. */
extern __thread struct sp_thread *sp_tls __attribute__((tls_model("initial-exec")));

/* Registers the calling thread (allocates its struct and first chunk,
 * creates its sampling timer if sampling runs). NULL on ENOMEM. */
struct sp_thread *sp_registry__thread_new(void);

/* Starts a new chunk for @p t (twice the previous size, up to SP_CHUNK_MAX)
 * and takes a clock anchor. Returns false on ENOMEM. */
bool sp_registry__grow(struct sp_thread *t);

/* Published calls of chunk @p c of thread @p t, safe while @p t records:
 * full chunks hold cap, the current one t->n (read after t->chunk; a
 * count read across a chunk switch is clamped to cap, all of which are
 * written by then). */
size_t sp_registry__published(const struct sp_thread *t, const struct sp_chunk *c);

/* Counts one misuse on @p t (NULL: process-wide counter). */
void sp_registry__misuse(struct sp_thread *t, enum sp_misuse what);

/* Interns a region by name (the same name gives the same site). Lengths
 * exclude any NUL; @p file may be NULL. Returns NULL on ENOMEM. */
const struct sp_site *sp_registry__intern(const char *name, size_t name_len,
					  const char *file, size_t file_len,
					  int line);

/* Calls @p fn on every interned site, in creation order, under the
 * registry lock (fn must not call back into the registry). */
void sp_registry__each_interned(void (*fn)(const struct sp_site *, void *), void *ctx);

/* Snapshot of the registered threads in registration order; caller frees
 * the array (not the threads). Returns the count, 0 with *out NULL on ENOMEM. */
size_t sp_registry__threads(struct sp_thread ***out);

/* Sum of a misuse counter over threads and the process-wide one. */
uint64_t sp_registry__misuse_total(enum sp_misuse what);

/* Lock/unlock around fork (pthread_atfork) and for the init path. */
void sp_registry__lock(void);
void sp_registry__unlock(void);
/* In a fork child: resets the lock (the child has one thread). */
void sp_registry__after_fork_child(void);

/* The OS thread id of the caller. Async-signal-safe. */
int64_t sp_registry__gettid(void);

#endif
