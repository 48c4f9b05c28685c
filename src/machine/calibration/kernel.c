// SPDX-License-Identifier: BSD-3-Clause
// nunatak calibration kernel, version 0. Not part of nunatak's binary: this
// text is embedded at build time, written to the Machine cache and compiled
// on the target with its own compiler (-O3 -march=native -pthread), so it
// uses the widest SIMD that machine offers. nunatak runs it as a separate
// process, through its execution boundary.
//
// Usage: kernel <triad|fma_dp|fma_sp> <threads> <reps> <ms> [bytes]
//        kernel <sample_fp|sample_dwarf> 1 <reps> <ms> <freq>
//        kernel sample_preload 1 <reps> <ms> <freq> <libscope_profiler.so>
//   triad   a[i] = b[i] + s * c[i] over `bytes` (three arrays; default 1/8
//           of RAM clamped to [768 MiB, 6 GiB]), counted 24 B per element;
//   fma_dp  12 independent FMA chains per thread, double precision;
//   fma_sp  the same in single precision;
//   sample_fp, sample_dwarf  the cost of one sample (machine/sample_cost.h):
//           fma_dp on one thread, repetitions in pairs, one bare and one
//           sampled by a task-clock event at <freq> Hz opened on itself
//           (perf_event_open, what `perf record -e task-clock --call-graph
//           fp|dwarf,4096` asks the kernel for), the order alternating;
//           prints "work <flop per repetition>", "rep <i> <bare rate>" and
//           "sampled <i> <sampled rate> <samples taken>", the rates over the
//           thread's CPU time (robust to other processes' load).
//   sample_preload  the same pairs for the preload sampler (where perf is
//           blocked): the library dlopen'ed, sampling started with
//           sp_start_sampling() in each sampled half, each repetition cut in
//           <freq> slices per CPU second with a system call after each: the
//           sampled half queues SIGPROF with SI_TIMER to this thread (what
//           the sampler's timers send, delivered and handled on the way back
//           to user space as theirs are), the bare half calls getppid (the
//           same kernel entry and exit). The sampler's own timers run on
//           thread CPU time and expire at most once per kernel tick: too
//           rarely for the slowdown to stand above the noise. A wrapper
//           counts every SIGPROF handled (the samples) and calls the
//           library's handler. Ends with _exit: the library's exit hook
//           never writes a trace here.
// Up to `reps` repetitions (until the last 3 agree within 2 %) run for
// about `ms` milliseconds each (of CPU time for the FMA kernels, each thread
// timing itself, "timing cpu"; of wall time for the triad) on `threads`
// threads, each pinned to one CPU of the inherited affinity mask (the
// allocation), the CPUs listed in NUNATAK_KERNEL_CPUS first. Output, one
// "key value" per line (nunatak parses it; the first six keys are those of
// the reference's kernel):
//   kernel <name> / isa <avx512|avx2|neon|scalar> / threads <n> /
//   load <1-min loadavg, -1 if unknown> / bytes <n> (triad) /
//   rep <i> <rate: B/s or flop/s> ... /
//   init_s <first-touch seconds> (triad: page faulting the arrays) /
//   cpu_share <CPU time obtained / (wall x threads) over the repetitions>
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

#if defined(__AVX512F__)
#include <immintrin.h>
#define ISA "avx512"
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ISA "avx2"
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define ISA "neon"
#else
#define ISA "scalar"
#endif

#define CHAINS 12
#define MIB (1024.0 * 1024.0)

enum kind { TRIAD, FMA_DP, FMA_SP, SAMPLE_FP, SAMPLE_DWARF, SAMPLE_PRELOAD };

/* The chains' results land here, so the compiler cannot drop them. */
static volatile double sink_dp;
static volatile float sink_sp;

struct shared {
	enum kind kind;
	int threads;
	long iters;       /* sweeps (triad) or inner loops (fma) per repetition */
	size_t n;         /* elements per array (triad) */
	double *a, *b, *c;
	pthread_barrier_t start, done;
	int *cpus;
	int nr_cpus;
	int stop;
};

struct worker {
	struct shared *s;
	int id;
	pthread_t tid;
	double result;
	double cpu;       /* this thread's CPU time in the last repetition (fma) */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void chunk(const struct shared *s, int id, size_t *lo, size_t *hi)
{
	size_t per = s->n / (size_t)s->threads;
	*lo = per * (size_t)id;
	*hi = id == s->threads - 1 ? s->n : *lo + per;
}

static void triad(struct shared *s, int id, long sweeps)
{
	size_t lo, hi;
	chunk(s, id, &lo, &hi);
	double *restrict a = s->a, *restrict b = s->b, *restrict c = s->c;
	const double k = 3.0;
	for (long r = 0; r < sweeps; r++) {
		for (size_t i = lo; i < hi; i++)
			a[i] = b[i] + k * c[i];
		__asm__ __volatile__("" ::: "memory");
	}
}

/* Returns the FLOPs executed. */
static double fma_dp(long loops, double seed)
{
#if defined(__AVX512F__)
	__m512d x = _mm512_set1_pd(0.999999), y = _mm512_set1_pd(1e-9), acc[CHAINS];
	for (int j = 0; j < CHAINS; j++)
		acc[j] = _mm512_set1_pd(seed + j);
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = _mm512_fmadd_pd(acc[j], x, y);
	double out = 0;
	for (int j = 0; j < CHAINS; j++)
		out += _mm512_reduce_add_pd(acc[j]);
	const int lanes = 8;
#elif defined(__AVX2__) && defined(__FMA__)
	__m256d x = _mm256_set1_pd(0.999999), y = _mm256_set1_pd(1e-9), acc[CHAINS];
	for (int j = 0; j < CHAINS; j++)
		acc[j] = _mm256_set1_pd(seed + j);
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = _mm256_fmadd_pd(acc[j], x, y);
	double tmp[4], out = 0;
	for (int j = 0; j < CHAINS; j++) {
		_mm256_storeu_pd(tmp, acc[j]);
		out += tmp[0] + tmp[1] + tmp[2] + tmp[3];
	}
	const int lanes = 4;
#elif defined(__aarch64__) && defined(__ARM_NEON)
	float64x2_t x = vdupq_n_f64(0.999999), y = vdupq_n_f64(1e-9), acc[CHAINS];
	for (int j = 0; j < CHAINS; j++)
		acc[j] = vdupq_n_f64(seed + j);
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = vfmaq_f64(y, acc[j], x);
	double out = 0;
	for (int j = 0; j < CHAINS; j++)
		out += vaddvq_f64(acc[j]);
	const int lanes = 2;
#else
	double acc[CHAINS], out = 0;
	for (int j = 0; j < CHAINS; j++)
		acc[j] = seed + j;
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = acc[j] * 0.999999 + 1e-9;
	for (int j = 0; j < CHAINS; j++)
		out += acc[j];
	const int lanes = 1;
#endif
	sink_dp = out; /* keeps the chains alive */
	return (double)loops * CHAINS * lanes * 2;
}

static double fma_sp(long loops, float seed)
{
#if defined(__AVX512F__)
	__m512 x = _mm512_set1_ps(0.9999f), y = _mm512_set1_ps(1e-6f), acc[CHAINS];
	for (int j = 0; j < CHAINS; j++)
		acc[j] = _mm512_set1_ps(seed + (float)j);
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = _mm512_fmadd_ps(acc[j], x, y);
	float out = 0;
	for (int j = 0; j < CHAINS; j++)
		out += _mm512_reduce_add_ps(acc[j]);
	const int lanes = 16;
#elif defined(__AVX2__) && defined(__FMA__)
	__m256 x = _mm256_set1_ps(0.9999f), y = _mm256_set1_ps(1e-6f), acc[CHAINS];
	for (int j = 0; j < CHAINS; j++)
		acc[j] = _mm256_set1_ps(seed + (float)j);
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = _mm256_fmadd_ps(acc[j], x, y);
	float tmp[8], out = 0;
	for (int j = 0; j < CHAINS; j++) {
		_mm256_storeu_ps(tmp, acc[j]);
		for (int k = 0; k < 8; k++)
			out += tmp[k];
	}
	const int lanes = 8;
#elif defined(__aarch64__) && defined(__ARM_NEON)
	float32x4_t x = vdupq_n_f32(0.9999f), y = vdupq_n_f32(1e-6f), acc[CHAINS];
	for (int j = 0; j < CHAINS; j++)
		acc[j] = vdupq_n_f32(seed + (float)j);
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = vfmaq_f32(y, acc[j], x);
	float out = 0;
	for (int j = 0; j < CHAINS; j++)
		out += vaddvq_f32(acc[j]);
	const int lanes = 4;
#else
	float acc[CHAINS], out = 0;
	for (int j = 0; j < CHAINS; j++)
		acc[j] = seed + (float)j;
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < CHAINS; j++)
			acc[j] = acc[j] * 0.9999f + 1e-6f;
	for (int j = 0; j < CHAINS; j++)
		out += acc[j];
	const int lanes = 1;
#endif
	sink_sp = out;
	return (double)loops * CHAINS * lanes * 2;
}

static void pin(const struct shared *s, int id)
{
	if (s->nr_cpus <= 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(s->cpus[id % s->nr_cpus], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void first_touch(struct shared *s, int id)
{
	size_t lo, hi;
	chunk(s, id, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		s->a[i] = 0.0;
		s->b[i] = 1.0;
		s->c[i] = 2.0;
	}
}

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One thread's share of a repetition. An FMA thread times itself on its own
 * CPU time: a core's peak is what it does while it runs, which another
 * process's load on the machine does not stretch (wall time would). */
static void do_work(struct shared *s, struct worker *w)
{
	if (s->kind == TRIAD) {
		triad(s, w->id, s->iters);
		return;
	}
	double c0 = thread_cpu();
	if (s->kind == FMA_SP)
		w->result = fma_sp(s->iters, 1.0f + (float)w->id);
	else
		w->result = fma_dp(s->iters, 1.0 + w->id);
	w->cpu = thread_cpu() - c0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct shared *s = w->s;
	pin(s, w->id);
	if (s->kind == TRIAD)
		first_touch(s, w->id);
	pthread_barrier_wait(&s->start); /* every array page-faulted */
	for (;;) {
		pthread_barrier_wait(&s->start);
		if (s->stop)
			break;
		do_work(s, w);
		pthread_barrier_wait(&s->done);
	}
	return NULL;
}

/* One repetition: all threads run s->iters, timed between the barriers. */
static double rep(struct shared *s, struct worker *w)
{
	double t0 = now();
	pthread_barrier_wait(&s->start);
	do_work(s, &w[0]);
	pthread_barrier_wait(&s->done);
	return now() - t0;
}

/* The FMA rate of the last repetition: each thread's work over its own CPU
 * time, summed (the cores' FMA units are their own). */
static double cpu_rate(const struct shared *s, const struct worker *w)
{
	double sum = 0;
	for (int i = 0; i < s->threads; i++)
		sum += w[i].cpu > 0 ? w[i].result / w[i].cpu : 0;
	return sum;
}

static double work_of(const struct shared *s, const struct worker *w)
{
	if (s->kind == TRIAD)
		return 24.0 * (double)s->n * (double)s->iters;
	double sum = 0;
	for (int i = 0; i < s->threads; i++)
		sum += w[i].result;
	return sum;
}

/* 2 MiB-aligned and advised for transparent huge pages: page faulting
 * gigabytes 4 KiB at a time dominates a cold calibration otherwise. */
static double *array(size_t n)
{
	void *p = NULL;
	size_t len = (n * sizeof(double) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	if (posix_memalign(&p, 2u << 20, len))
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

static size_t default_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	double ram = pages > 0 && size > 0 ? (double)pages * (double)size : 8192 * MIB;
	double b = ram / 8;
	b = b < 768 * MIB ? 768 * MIB : b;
	b = b > 6144 * MIB ? 6144 * MIB : b;
	return (size_t)b;
}

static int affinity(struct shared *s)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	s->cpus = calloc(CPU_SETSIZE, sizeof(int));
	if (!s->cpus)
		return -1;
	/* NUNATAK_KERNEL_CPUS="3,5": nunatak found only these CPUs of the
	 * allocation free (a loaded Machine); the threads go there first. */
	const char *only = getenv("NUNATAK_KERNEL_CPUS");
	for (const char *p = only; p && *p;) {
		char *end;
		long c = strtol(p, &end, 10);
		if (end == p)
			break;
		if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET((int)c, &set)) {
			s->cpus[s->nr_cpus++] = (int)c;
			CPU_CLR((int)c, &set);
		}
		p = *end == ',' ? end + 1 : end;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			s->cpus[s->nr_cpus++] = c;
	return 0;
}

static double loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static int usage(void)
{
	fputs("usage: kernel <triad|fma_dp|fma_sp> <threads> <reps> <ms> [bytes]\n"
	      "       kernel <sample_fp|sample_dwarf> 1 <reps> <ms> <freq>\n"
	      "       kernel sample_preload 1 <reps> <ms> <freq> <libscope_profiler.so>\n", stderr);
	return 2;
}

#if defined(__linux__)
/* The user registers perf's dwarf mode needs to unwind (frame, stack and
 * instruction pointers; perf asks for all of them, which costs a few more
 * bytes per sample than these). */
#if defined(__x86_64__)
#define UNWIND_REGS ((1ULL << 6) | (1ULL << 7) | (1ULL << 8))
#elif defined(__aarch64__)
#define UNWIND_REGS ((1ULL << 29) | (1ULL << 31) | (1ULL << 32))
#else
#define UNWIND_REGS 0ULL
#endif

/* A task-clock sampling event on this thread, disabled, with a read-only
 * (overwriting) ring buffer nobody drains: the kernel pays the full cost of
 * each sample, nothing is ever lost or blocked. -1 with errno. */
static int sampler_open(int dwarf, long freq)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.freq = 1;
	a.sample_freq = (unsigned long long)freq;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	if (dwarf && UNWIND_REGS) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = UNWIND_REGS;
		a.sample_stack_user = 4096;
		a.exclude_callchain_user = 1;
	}
	a.disabled = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = a.exclude_hv = 1; /* as perf record does unprivileged */
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	}
	if (fd < 0)
		return -1;
	long page = sysconf(_SC_PAGESIZE);
	if (mmap(NULL, (size_t)page * 65, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static double task_clock_ns(int fd)
{
	unsigned long long v = 0;
	return read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (double)v : -1;
}

/* One repetition timed on this thread's CPU time: what the kernel charges
 * it, sampling interrupts included, whatever else the machine runs. */
static double cpu_rep(struct shared *s, struct worker *w)
{
	rep(s, w);
	return w[0].cpu;
}

/* Pairs of repetitions, bare and sampled (alternating which goes first). */
static int sample_pairs(struct shared *s, struct worker *w, int reps, long freq)
{
	int fd = sampler_open(s->kind == SAMPLE_DWARF, freq);
	if (fd < 0) {
		fprintf(stderr, "kernel: perf_event_open (task-clock sampling at %ld Hz): %s\n",
			freq, strerror(errno));
		return 3;
	}
	for (int r = 0; r < reps; r++) {
		double tb = 0, ts = 0, c0 = 0, c1 = 0;
		for (int half = 0; half < 2; half++) {
			if ((half + r) % 2 == 0) {
				tb = cpu_rep(s, w);
				continue;
			}
			c0 = task_clock_ns(fd);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			ts = cpu_rep(s, w);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			c1 = task_clock_ns(fd);
		}
		printf("rep %d %.6e\nsampled %d %.6e %.0f\n", r, work_of(s, w) / tb, r,
		       work_of(s, w) / ts, c0 >= 0 && c1 >= c0 ? (c1 - c0) * 1e-9 * (double)freq : -1);
		fflush(stdout);
	}
	printf("work %.6e\n", work_of(s, w));
	close(fd);
	return 0;
}

/* The preload sampler's handler, as the library installed it, and the
 * SIGPROF signals handled through the counting wrapper in front of it. */
static struct sigaction lib_sa;
static volatile long nr_prof;

static void counting(int sig, siginfo_t *si, void *uc)
{
	nr_prof++;
	lib_sa.sa_sigaction(sig, si, uc);
}

struct preload {
	int (*start)(int);
	int (*stop)(void);
	int wrapped; /* lib_sa holds the library's handler */
	siginfo_t si; /* what the sampler's timers send: SIGPROF, SI_TIMER */
	pid_t pid, tid;
};

static int preload_open(struct preload *p, const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "kernel: cannot load the preload sampler: %s\n", dlerror());
		return -1;
	}
	p->start = (int (*)(int))dlsym(h, "sp_start_sampling");
	p->stop = (int (*)(void))dlsym(h, "sp_stop_sampling");
	if (!p->start || !p->stop) {
		fprintf(stderr, "kernel: %s has no sp_start_sampling/sp_stop_sampling\n", lib);
		return -1;
	}
	memset(&p->si, 0, sizeof(p->si));
	p->si.si_signo = SIGPROF;
	p->si.si_code = SI_TIMER;
	p->pid = getpid();
	p->tid = (pid_t)syscall(SYS_gettid);
	return 0;
}

/* Sampling on (the library's handler behind the counting wrapper) or off;
 * -1 when the library refused. */
static int preload_set(struct preload *p, int on, long freq)
{
	if (!on)
		return p->stop();
	if (p->wrapped) /* the library starts only over its own handler */
		sigaction(SIGPROF, &lib_sa, NULL);
	int rc = p->start((int)freq);
	if (rc != 0) {
		fprintf(stderr, "kernel: sp_start_sampling: %s\n", strerror(rc < 0 ? -rc : rc));
		return -1;
	}
	if (!p->wrapped && sigaction(SIGPROF, NULL, &lib_sa) == 0 &&
	    (lib_sa.sa_flags & SA_SIGINFO) && lib_sa.sa_sigaction)
		p->wrapped = 1;
	if (!p->wrapped) {
		fputs("kernel: the preload sampler installed no SIGPROF handler\n", stderr);
		return -1;
	}
	struct sigaction sa = lib_sa;
	sa.sa_sigaction = counting;
	return sigaction(SIGPROF, &sa, NULL);
}

/* One fma_dp repetition in n slices with a system call after each: a
 * SIGPROF queued to this thread as the sampler's timers send it (sampled:
 * delivered and handled on the way back to user space, as a timer's is),
 * or getppid (bare: the same kernel entry and exit, no signal). On this
 * thread's CPU time. */
static double sliced_rep(struct shared *s, struct worker *w, struct preload *p, long n,
			 int sampled)
{
	long per = s->iters / n > 0 ? s->iters / n : 1;
	double c0 = thread_cpu(), flop = 0;
	for (long i = 0; i < n; i++) {
		flop += fma_dp(per, 1.0 + (double)(i & 7));
		if (sampled)
			syscall(SYS_rt_tgsigqueueinfo, p->pid, p->tid, SIGPROF, &p->si);
		else
			syscall(SYS_getppid);
	}
	w[0].result = flop;
	w[0].cpu = thread_cpu() - c0;
	return w[0].cpu;
}

/* Pairs of repetitions, bare and sampled by the preload sampler's handler,
 * freq samples per second of the repetition's CPU time. */
static int preload_pairs(struct shared *s, struct worker *w, int reps, long freq, double ms,
			 const char *lib)
{
	struct preload p;
	memset(&p, 0, sizeof(p));
	if (!lib || preload_open(&p, lib) != 0)
		return 3;
	long n = (long)((double)freq * ms / 1e3);
	n = n < 1 ? 1 : n;
	for (int r = 0; r < reps; r++) {
		double tb = 0, ts = 0;
		long n0 = 0, n1 = 0;
		for (int half = 0; half < 2; half++) {
			if ((half + r) % 2 == 0) {
				tb = sliced_rep(s, w, &p, n, 0);
				continue;
			}
			if (preload_set(&p, 1, freq) != 0)
				return 3;
			n0 = nr_prof;
			ts = sliced_rep(s, w, &p, n, 1);
			n1 = nr_prof;
			preload_set(&p, 0, freq);
		}
		printf("rep %d %.6e\nsampled %d %.6e %ld\n", r, work_of(s, w) / tb, r,
		       work_of(s, w) / ts, n1 - n0);
		fflush(stdout);
	}
	printf("work %.6e\n", work_of(s, w));
	return 0;
}
#else
static int sample_pairs(struct shared *s, struct worker *w, int reps, long freq)
{
	(void)s, (void)w, (void)reps, (void)freq;
	fputs("kernel: task-clock sampling needs Linux's perf_event_open\n", stderr);
	return 3;
}

static int preload_pairs(struct shared *s, struct worker *w, int reps, long freq, double ms,
			 const char *lib)
{
	(void)s, (void)w, (void)reps, (void)freq, (void)ms, (void)lib;
	fputs("kernel: the preload sampler's cost is measured on Linux only\n", stderr);
	return 3;
}
#endif

/* The sample_* kernels after sizing: pairs, then the CPU share. */
static int sample_main(struct shared *s, struct worker *w, int reps, long freq, double ms,
		       const char *lib)
{
	if (s->threads != 1 || freq < 1 || freq > 1000000)
		return usage();
	double t0 = now(), cpu0 = cpu_seconds();
	int rc = s->kind == SAMPLE_PRELOAD ? preload_pairs(s, w, reps, freq, ms, lib)
					   : sample_pairs(s, w, reps, freq);
	double share = (cpu_seconds() - cpu0) / (now() - t0);
	if (rc == 0)
		printf("cpu_share %.3f\n", share > 1 ? 1.0 : share);
	fflush(stdout);
	if (s->kind == SAMPLE_PRELOAD)
		_exit(rc); /* the library's exit hook would write a trace */
	return rc;
}

/* Repetitions until stable: at most `reps`, ended once the last STABLE_REPS
 * agree within STABLE_SPREAD (a fixed count wastes time on a quiet machine
 * and is too few on a noisy one). Returns the CPU share obtained. */
#define STABLE_REPS 3
#define STABLE_SPREAD 0.02
static double run_reps(struct shared *s, struct worker *w, int reps)
{
	double cpu0 = cpu_seconds(), wall = 0, last[STABLE_REPS];
	if (s->kind != TRIAD)
		printf("timing cpu\n");
	for (int r = 0; r < reps; r++) {
		double t = rep(s, w);
		wall += t;
		double rate = s->kind == TRIAD ? work_of(s, w) / t : cpu_rate(s, w);
		printf("rep %d %.6e\n", r, rate);
		fflush(stdout);
		last[r % STABLE_REPS] = rate;
		double mx = 0, mn = 1e300;
		for (int i = 0; r + 1 >= STABLE_REPS && i < STABLE_REPS; i++) {
			mx = last[i] > mx ? last[i] : mx;
			mn = last[i] < mn ? last[i] : mn;
		}
		if (r + 1 >= STABLE_REPS && mx > 0 && (mx - mn) / mx <= STABLE_SPREAD)
			break;
	}
	double share = (cpu_seconds() - cpu0) / (wall * s->threads);
	return share > 1 ? 1.0 : share;
}

/* Calibrates s->iters so that one repetition lasts about ms. */
static void size_reps(struct shared *s, struct worker *w, double ms)
{
	s->iters = s->kind == TRIAD ? 1 : 1 << 16;
	for (int k = 0; k < 40; k++) {
		double t = rep(s, w);
		if (s->kind != TRIAD)
			t = w[0].cpu; /* FMA repetitions last ms of CPU time */
		if (t >= ms / 1e3 / 4 || s->iters > (1L << 40)) {
			double scale = ms / 1e3 / (t > 1e-9 ? t : 1e-9);
			long it = (long)((double)s->iters * scale + 0.5);
			s->iters = it < 1 ? 1 : it;
			return;
		}
		s->iters *= 4;
	}
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return usage();
	struct shared s;
	memset(&s, 0, sizeof(s));
	if (!strcmp(argv[1], "triad"))
		s.kind = TRIAD;
	else if (!strcmp(argv[1], "fma_dp"))
		s.kind = FMA_DP;
	else if (!strcmp(argv[1], "fma_sp"))
		s.kind = FMA_SP;
	else if (!strcmp(argv[1], "sample_fp"))
		s.kind = SAMPLE_FP;
	else if (!strcmp(argv[1], "sample_dwarf"))
		s.kind = SAMPLE_DWARF;
	else if (!strcmp(argv[1], "sample_preload"))
		s.kind = SAMPLE_PRELOAD;
	else
		return usage();
	s.threads = atoi(argv[2]);
	int reps = atoi(argv[3]);
	double ms = atof(argv[4]);
	if (s.threads < 1 || s.threads > 4096 || reps < 1 || reps > 1000 || !(ms > 0))
		return usage();
	double load = loadavg();
	if (affinity(&s))
		return 1;
	size_t bytes = argc > 5 ? (size_t)strtoull(argv[5], NULL, 10) : default_bytes();
	if (s.kind == TRIAD) {
		s.n = bytes / 24;
		if (s.n < (size_t)s.threads * 1024)
			s.n = (size_t)s.threads * 1024;
		s.a = array(s.n);
		s.b = array(s.n);
		s.c = array(s.n);
		if (!s.a || !s.b || !s.c) {
			fprintf(stderr, "kernel: cannot allocate %zu bytes for the triad\n", s.n * 24);
			return 1;
		}
	}
	struct worker *w = calloc((size_t)s.threads, sizeof(*w));
	if (!w || pthread_barrier_init(&s.start, NULL, (unsigned)s.threads) ||
	    pthread_barrier_init(&s.done, NULL, (unsigned)s.threads))
		return 1;
	double t_init = now();
	pin(&s, 0);
	if (s.kind == TRIAD)
		first_touch(&s, 0);
	w[0].s = &s;
	for (int i = 1; i < s.threads; i++) {
		w[i].s = &s;
		w[i].id = i;
		if (pthread_create(&w[i].tid, NULL, work, &w[i]))
			return 1;
	}
	pthread_barrier_wait(&s.start);
	t_init = now() - t_init;
	size_reps(&s, w, ms);
	printf("kernel %s\nisa %s\nthreads %d\nload %.2f\n", argv[1], ISA, s.threads, load);
	if (s.kind == TRIAD)
		printf("bytes %zu\n", s.n * 24);
	if (s.kind == SAMPLE_FP || s.kind == SAMPLE_DWARF || s.kind == SAMPLE_PRELOAD)
		return sample_main(&s, w, reps, argc > 5 ? strtol(argv[5], NULL, 10) : 0, ms,
				   argc > 6 ? argv[6] : NULL);
	double share = run_reps(&s, w, reps);
	if (s.kind == TRIAD)
		printf("init_s %.3f\n", t_init);
	printf("cpu_share %.3f\n", share);
	s.stop = 1;
	pthread_barrier_wait(&s.start);
	for (int i = 1; i < s.threads; i++)
		pthread_join(w[i].tid, NULL);
	return 0;
}
