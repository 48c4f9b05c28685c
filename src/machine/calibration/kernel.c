// SPDX-License-Identifier: BSD-3-Clause
// nunatak calibration kernel, version 0. Not part of nunatak's binary: this
// text is embedded at build time, written to the Machine cache and compiled
// on the target with its own compiler (-O3 -march=native -pthread), so it
// uses the widest SIMD that machine offers. nunatak runs it as a separate
// process, through its execution boundary.
//
// Usage: kernel <triad|fma_dp|fma_sp> <threads> <reps> <ms> [bytes]
//   triad   a[i] = b[i] + s * c[i] over `bytes` (three arrays; default 1/8
//           of RAM clamped to [768 MiB, 6 GiB]), counted 24 B per element;
//   fma_dp  12 independent FMA chains per thread, double precision;
//   fma_sp  the same in single precision.
// Each of `reps` repetitions runs for about `ms` milliseconds on `threads`
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

enum kind { TRIAD, FMA_DP, FMA_SP };

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
		if (s->kind == TRIAD)
			triad(s, w->id, s->iters);
		else if (s->kind == FMA_DP)
			w->result = fma_dp(s->iters, 1.0 + w->id);
		else
			w->result = fma_sp(s->iters, 1.0f + (float)w->id);
		pthread_barrier_wait(&s->done);
	}
	return NULL;
}

/* One repetition: all threads run s->iters, timed between the barriers. */
static double rep(struct shared *s, struct worker *w)
{
	double t0 = now();
	pthread_barrier_wait(&s->start);
	if (s->kind == TRIAD)
		triad(s, 0, s->iters);
	else
		w[0].result = s->kind == FMA_DP ? fma_dp(s->iters, 1.0) : fma_sp(s->iters, 1.0f);
	pthread_barrier_wait(&s->done);
	return now() - t0;
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
	fputs("usage: kernel <triad|fma_dp|fma_sp> <threads> <reps> <ms> [bytes]\n", stderr);
	return 2;
}

/* Calibrates s->iters so that one repetition lasts about ms. */
static void size_reps(struct shared *s, struct worker *w, double ms)
{
	s->iters = s->kind == TRIAD ? 1 : 1 << 16;
	for (int k = 0; k < 40; k++) {
		double t = rep(s, w);
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
	double cpu0 = cpu_seconds(), wall = 0;
	for (int r = 0; r < reps; r++) {
		double t = rep(&s, w);
		wall += t;
		printf("rep %d %.6e\n", r, work_of(&s, w) / t);
		fflush(stdout);
	}
	double share = (cpu_seconds() - cpu0) / (wall * s.threads);
	if (s.kind == TRIAD)
		printf("init_s %.3f\n", t_init);
	printf("cpu_share %.3f\n", share > 1 ? 1.0 : share);
	s.stop = 1;
	pthread_barrier_wait(&s.start);
	for (int i = 1; i < s.threads; i++)
		pthread_join(w[i].tid, NULL);
	return 0;
}
