/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's per-process registry: its state word, the interned regions
 * sp_region() hands out, and one struct sp_thread per recording thread with
 * its open-region stack and its bounded call buffer.
 *
 * Concurrency: a thread's struct is written only by that thread, except
 * that sp_finalize() (any thread) drains the published calls of its buffer
 * (n, release/acquire) under the stream lock (stream.h), and the sampler's
 * signal handler reads the stack of the thread it interrupted (depth is
 * stored after its entry, with a signal fence). Thread structs and buffers
 * are never freed: a thread may still be writing while another finalizes.
 */
#ifndef SP_REGISTRY_H
#define SP_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_site;
struct sp_ctr_thread;

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

/* Open regions per thread: the stack is reserved (not touched) at this
 * size, so any practical recursion is recorded; deeper opens are counted
 * and reported, never silently dropped. */
#define SP_STACK_MAX (1u << 16)
/* Calls a thread buffers before writing them to the trace file: the
 * per-thread memory bound of recording (SP_BUF_CALLS x 24 B = 384 KiB). */
#define SP_BUF_CALLS (1u << 14)

/* One completed call, in raw clock stamps (see clock.h). On disk as is in
 * the frames of an unfinished trace (sp_format.h). */
struct sp_call {
	const struct sp_site *site;
	uint64_t start;
	uint64_t end;
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
	SP_MISUSE_NO_MEMORY,      /* calls dropped: no memory or the trace file failed */
	SP_MISUSE_IN_HANDLER,     /* calls from a signal handler that interrupted the
				     library on its thread (dropped) */
	SP_MISUSE_NR
};

/* Allocated with mmap: the stack at the end is reserved address space,
 * resident only as deep as it was used. */
struct sp_thread {
	/* hot: touched by every sp_begin/sp_end */
	struct sp_call *buf; /* SP_BUF_CALLS calls, rewritten after each flush */
	_Atomic size_t n;    /* calls in buf; stored (release) after the call */
	uint32_t depth;      /* open regions, may exceed SP_STACK_MAX */
	uint32_t busy;       /* recording a call: a signal handler's call is dropped */
	uint64_t next_anchor; /* stamp after which to take an anchor and flush */
	struct sp_ctr_thread *ctr; /* counters per region (counters.h), NULL: none */
	/* cold */
	struct sp_thread *next; /* registry list, newest first */
	int64_t tid;
	int order;              /* registration order: lane before compaction */
	_Atomic bool exited;
	bool announced;         /* its THRD frame is in the trace file (stream lock) */
	bool drained;           /* finalize took its calls (stream lock) */
	char name[16];
	uint64_t nr_calls;      /* calls flushed (stream lock) */
	uint64_t first_stamp, last_stamp; /* earliest start, latest end flushed */
	int64_t cpu_ns;         /* thread CPU time at its exit, -1 while alive */
	_Atomic uint64_t misuse[SP_MISUSE_NR];
	struct sp_open stack[]; /* SP_STACK_MAX entries */
};

/* The calling thread's struct, NULL until it first records. Initial-exec
 * TLS: reading it is async-signal-safe and costs one load. */
extern __thread struct sp_thread *sp_tls __attribute__((tls_model("initial-exec")));

#include "inlib.h"

/* Adds @p t to the threads finalize reads (thread.c makes it). */
void sp_registry__add_thread(struct sp_thread *t);

/* Counts one misuse on @p t (NULL: process-wide counter). */
void sp_registry__misuse(struct sp_thread *t, enum sp_misuse what);

/* Counts one misuse and remembers the region it concerns (@p site, may be
 * NULL), so finalize can name the regions. Cold; takes a lock. */
void sp_registry__misuse_at(struct sp_thread *t, enum sp_misuse what,
			    const struct sp_site *site);

/* Regions remembered for misuse @p what: calls @p fn(site, count) for each
 * (at most SP_MISUSE_SITES distinct sites per kind; the rest are counted
 * in *others). */
#define SP_MISUSE_SITES 32
void sp_registry__misuse_sites(enum sp_misuse what,
			       void (*fn)(const struct sp_site *, uint64_t, void *),
			       void *ctx, uint64_t *others);

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

/* In a fork child: resets the lock (the child has one thread). */
void sp_registry__after_fork_child(void);

/* The OS thread id of the caller. Async-signal-safe. */
int64_t sp_registry__gettid(void);

#endif
