/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timer sampling. Each thread gets its own POSIX timer on its own CPU-time
 * clock, delivered to that thread (SIGEV_THREAD_ID) as SIGPROF. Why CPU time
 * and not CLOCK_MONOTONIC: a CPU-time timer only expires while its thread
 * runs, so the signal lands on a running thread and never interrupts a
 * blocking system call (no EINTR in the application), and samples are
 * CPU-time weighted like perf's task-clock. The cost: the kernel checks
 * CPU timers at its tick, so signals come at CONFIG_HZ (250 here) at most
 * (expirations beyond are folded into them, see Weights) and idle or
 * blocked time is not sampled. The achieved rate is measured
 * (timer expirations / process CPU seconds while sampling) and written.
 *
 * Weights: a timer whose signal is still pending (the thread was not on a
 * CPU at a tick, SIGPROF blocked, a sanitizer deferring the handler) does
 * not send another one: the kernel counts the missed expirations in the
 * next signal's si_overrun. Each sample carries 1 + si_overrun as its
 * weight, the CPU time since the thread's previous sample in intervals, as
 * perf's period: on a loaded machine most expirations arrive that way.
 *
 * Which threads: all threads alive at start (from /proc/self/task), every
 * thread that later records its first region, and - in the shared library,
 * which interposes pthread_create - every thread created later.
 *
 * The handler is async-signal-safe: it reads initial-exec TLS, writes to a
 * per-thread chunk (a fresh 64 KiB chunk comes from mmap, a raw system
 * call), preserves errno, and never takes a lock.
 */
#ifndef SP_SAMPLER_H
#define SP_SAMPLER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_site;
struct sp_thread;

#define SP_SAMPLE_HZ_DEFAULT 200

struct sp_sample {
	const struct sp_site *site; /* innermost open region, NULL if none */
	uint64_t addr;              /* interrupted instruction address */
	uint32_t weight;            /* timer expirations this signal stands for */
};

struct sp_sample_chunk {
	struct sp_sample_chunk *next_all; /* every chunk of the process */
	_Atomic size_t nr;
	size_t cap;
	uint64_t ticks;          /* expirations handled into this chunk's thread */
	uint64_t handler_stamps; /* clock stamps spent in the handler */
	struct sp_sample s[];
};

struct sp_sampler_stats {
	int requested_hz;
	double effective_hz; /* ticks per CPU second of the process while sampling */
	uint64_t ticks;      /* every expiration, in a region or not (sum of weights) */
	uint64_t dropped;    /* expirations whose sample could not be stored */
	double cpu_s;        /* process CPU seconds while sampling */
	double handler_s;    /* seconds spent in the handler */
	double overhead;     /* handler_s / cpu_s (excludes kernel delivery) */
	int nr_threads;      /* timers created */
};

/* Starts sampling at @p hz (<= 0: default). 0 or -errno (see sp_start_sampling). */
int sp_sampler__start(int hz);
/* Stops: deletes the timers, freezes the statistics. 0 or -EINVAL. */
int sp_sampler__stop(void);
bool sp_sampler__running(void);
/* True if sampling ever ran in this process. */
bool sp_sampler__ran(void);
/* Head of the list of every sample chunk (acquire). */
struct sp_sample_chunk *sp_sampler__chunks(void);
/* Statistics of the last (or current) sampling window; handler_s needs
 * the clock map's scale, given as ns per stamp. */
void sp_sampler__stats(struct sp_sampler_stats *out, double ns_per_stamp);

/* The calling thread starts (registry or pthread_create wrapper): gives it
 * a timer if sampling runs. */
void sp_sampler__thread_started(struct sp_thread *t);
/* Called by the pthread_create wrapper of the shared library. */
void sp_sampler__adopt_current_thread(void);
/* In a fork child: forget the parent's timers (the child has none). */
void sp_sampler__after_fork_child(void);

#endif
