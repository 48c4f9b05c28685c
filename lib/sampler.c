/* SPDX-License-Identifier: BSD-3-Clause */
#include "sampler.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "amem.h"
#include "clock.h"
#include "log.h"
#include "registry.h"
#include "scope_profiler.h"

#define CHUNK_BYTES (64 * 1024)

struct timer_slot {
	int64_t tid;
	timer_t timer;
};

static pthread_mutex_t samp_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool running;
static bool ever_ran;
static int req_hz;
static struct timespec interval;
static struct timer_slot *slots;
static size_t nr_slots, cap_slots, slot_bytes;
static int nr_timers_created;
static uint64_t cpu_start_ns, cpu_stop_ns;
static _Atomic(struct sp_sample_chunk *) all_chunks;
static _Atomic uint64_t dropped;
static pthread_key_t timer_key;
static bool key_made;

static __thread struct sp_sample_chunk *tls_samples
	__attribute__((tls_model("initial-exec")));

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t interrupted_pc(void *ucv)
{
	const ucontext_t *uc = ucv;
#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static struct sp_sample_chunk *chunk_map(void)
{
	void *p = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct sp_sample_chunk *c = p;
	c->cap = (CHUNK_BYTES - sizeof(*c)) / sizeof(struct sp_sample);
	struct sp_sample_chunk *head = atomic_load(&all_chunks);
	do {
		c->next_all = head;
	} while (!atomic_compare_exchange_weak(&all_chunks, &head, c));
	return c;
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	int saved_errno = errno;
	uint64_t t0 = sp_clock__now();
	/* Only our timers: a stray kill -PROF is not a sample. */
	if (!atomic_load_explicit(&running, memory_order_relaxed) || si->si_code != SI_TIMER)
		goto out;
	/* Expirations the kernel folded into this signal count too. */
	uint32_t weight = 1 + (uint32_t)(si->si_overrun > 0 ? si->si_overrun : 0);
	struct sp_sample_chunk *c = tls_samples;
	size_t n = c ? atomic_load_explicit(&c->nr, memory_order_relaxed) : 0;
	if (!c || n == c->cap) {
		struct sp_sample_chunk *fresh = chunk_map();
		if (!fresh) {
			atomic_fetch_add_explicit(&dropped, weight, memory_order_relaxed);
			goto out;
		}
		c = tls_samples = fresh;
		n = 0;
	}
	const struct sp_site *site = NULL;
	struct sp_thread *t = sp_tls;
	if (t) {
		uint32_t d = t->depth;
		atomic_signal_fence(memory_order_acquire);
		if (d > SP_STACK_MAX)
			d = SP_STACK_MAX;
		if (d > 0)
			site = t->stack[d - 1].site;
	}
	c->s[n].site = site;
	c->s[n].addr = interrupted_pc(uc);
	c->s[n].weight = weight;
	c->ticks += weight;
	atomic_store_explicit(&c->nr, n + 1, memory_order_release);
	c->handler_stamps += sp_clock__now() - t0;
out:
	errno = saved_errno;
}

/* The kernel's thread CPU clock id (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)),
 * as glibc's pthread_getcpuclockid computes it; we only know other threads
 * by tid. */
static clockid_t thread_cpu_clock(int64_t tid)
{
	return (clockid_t)((~(uint32_t)tid << 3) | 6u);
}

static bool slot_remove_locked(int64_t tid)
{
	for (size_t i = 0; i < nr_slots; i++) {
		if (slots[i].tid != tid)
			continue;
		timer_delete(slots[i].timer);
		slots[i] = slots[--nr_slots];
		return true;
	}
	return false;
}

static int timer_for_locked(int64_t tid)
{
	bool replaced = slot_remove_locked(tid);
	if (nr_slots == cap_slots) { /* mapped (amem.h): a thread may register in a handler */
		size_t need = (cap_slots ? cap_slots * 2 : 16) * sizeof(*slots);
		void *p = slots;
		if (!sp_amem__reserve(&p, &slot_bytes, need))
			return -ENOMEM;
		slots = p;
		cap_slots = need / sizeof(*slots);
	}
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = (pid_t)tid;
	timer_t tm;
	if (timer_create(thread_cpu_clock(tid), &sev, &tm) != 0)
		return -errno;
	struct itimerspec its = {interval, interval};
	if (timer_settime(tm, 0, &its, NULL) != 0) {
		int e = -errno;
		timer_delete(tm);
		return e;
	}
	slots[nr_slots].tid = tid;
	slots[nr_slots].timer = tm;
	nr_slots++;
	nr_timers_created += !replaced; /* a thread counts once */
	return 0;
}

/* Thread exit (key destructor): its timer goes with it. */
static void on_thread_exit(void *arg)
{
	(void)arg;
	sp_lock(&samp_lock);
	slot_remove_locked(sp_registry__gettid());
	sp_unlock(&samp_lock);
}

/* Gives the calling thread its own timer, unless it has one already (set
 * up by the pthread_create wrapper, or an earlier call): replacing it would
 * restart its period and lose the CPU time accumulated towards a tick. A
 * timer made for this tid by another thread (the /proc/self/task pass) is
 * replaced once, since the tid may belong to an exited thread's reuse. */
static void own_timer_locked(void)
{
	if (!key_made || pthread_getspecific(timer_key))
		return;
	if (timer_for_locked(sp_registry__gettid()) == 0)
		pthread_setspecific(timer_key, (void *)1);
}

static void timers_for_all_threads_locked(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d) {
		own_timer_locked();
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		int rc = timer_for_locked(tid);
		if (rc < 0 && rc != -EINVAL) /* EINVAL: the thread just exited */
			sp_log(SP_LOG_DEBUG, "no timer for thread %ld: %s", tid, strerror(-rc));
	}
	closedir(d);
	if (key_made) /* the caller's own timer is now certainly its own */
		pthread_setspecific(timer_key, (void *)1);
}

static int install_handler(void)
{
	struct sigaction old, sa;
	if (sigaction(SIGPROF, NULL, &old) != 0)
		return -errno;
	if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_sigprof)
		return 0;
	if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL &&
	    old.sa_handler != SIG_IGN)
		return -EBUSY;
	if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction)
		return -EBUSY;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGPROF, &sa, NULL) == 0 ? 0 : -errno;
}

int sp_sampler__start(int hz)
{
	if (hz <= 0)
		hz = SP_SAMPLE_HZ_DEFAULT;
	if (hz > 100000)
		hz = 100000;
	int rc = 0;
	sp_lock(&samp_lock);
	if (atomic_load(&running)) {
		rc = -EALREADY;
		goto out;
	}
	rc = install_handler();
	if (rc < 0)
		goto out;
	if (!key_made)
		key_made = pthread_key_create(&timer_key, on_thread_exit) == 0;
	req_hz = hz;
	long ns = 1000000000L / hz;
	interval.tv_sec = ns / 1000000000L;
	interval.tv_nsec = ns % 1000000000L;
	nr_timers_created = 0;
	cpu_start_ns = cpu_ns();
	cpu_stop_ns = 0;
	ever_ran = true;
	atomic_store(&running, true);
	timers_for_all_threads_locked();
	sp_log(SP_LOG_INFO, "sampling at %d Hz requested (thread CPU-time timers)", hz);
out:
	sp_unlock(&samp_lock);
	return rc;
}

int sp_sampler__stop(void)
{
	sp_lock(&samp_lock);
	if (!atomic_load(&running)) {
		sp_unlock(&samp_lock);
		return -EINVAL;
	}
	while (nr_slots)
		slot_remove_locked(slots[nr_slots - 1].tid);
	/* The handler stays installed: a SIGPROF still pending would kill the
	 * process under SIG_DFL. It ignores everything once running is false. */
	atomic_store(&running, false);
	cpu_stop_ns = cpu_ns();
	sp_unlock(&samp_lock);
	return 0;
}

bool sp_sampler__running(void)
{
	return atomic_load(&running);
}

bool sp_sampler__ran(void)
{
	return ever_ran;
}

struct sp_sample_chunk *sp_sampler__chunks(void)
{
	return atomic_load_explicit(&all_chunks, memory_order_acquire);
}

void sp_sampler__stats(struct sp_sampler_stats *out, double ns_per_stamp)
{
	memset(out, 0, sizeof(*out));
	sp_lock(&samp_lock);
	out->requested_hz = req_hz;
	out->nr_threads = nr_timers_created;
	uint64_t stop = cpu_stop_ns ? cpu_stop_ns : cpu_ns();
	out->cpu_s = stop > cpu_start_ns ? (double)(stop - cpu_start_ns) * 1e-9 : 0;
	sp_unlock(&samp_lock);
	uint64_t stamps = 0;
	for (struct sp_sample_chunk *c = sp_sampler__chunks(); c; c = c->next_all) {
		out->ticks += c->ticks;
		stamps += c->handler_stamps;
	}
	out->dropped = atomic_load(&dropped);
	out->ticks += out->dropped;
	out->handler_s = (double)stamps * ns_per_stamp * 1e-9;
	out->effective_hz = out->cpu_s > 0 ? (double)out->ticks / out->cpu_s : 0;
	out->overhead = out->cpu_s > 0 ? out->handler_s / out->cpu_s : 0;
}

void sp_sampler__thread_started(struct sp_thread *t)
{
	(void)t;
	if (!atomic_load(&running))
		return;
	sp_lock(&samp_lock);
	if (atomic_load(&running))
		own_timer_locked();
	sp_unlock(&samp_lock);
}

void sp_sampler__adopt_current_thread(void)
{
	sp_sampler__thread_started(NULL);
}

void sp_sampler__after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&samp_lock, &fresh, sizeof(fresh));
	nr_slots = 0; /* POSIX timers are not inherited */
	atomic_store(&running, false);
}
