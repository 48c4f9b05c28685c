/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libscope_profiler micro-benchmarks. Every figure is printed next to a
 * baseline measured in the same run (two bare clock_gettime(CLOCK_MONOTONIC)
 * calls, or a bare signal delivery), as a ratio; nothing is asserted.
 * Each configuration runs in a fresh child process, since the library reads
 * its environment once. Built twice: bench_lib_static (libscope_profiler.a,
 * plus the sampler and finalize figures, which need the internals) and
 * bench_lib_shared (libscope_profiler.so).
 *
 *   bench_lib_static [PAIRS]      default 20000000 pairs per measurement
 *                                 (PAIRS / 100 with counters: 0, 1 and 2
 *                                 events, SCOPE_PROFILER_EVENTS)
 * Figures are per thread CPU time, best of 5 rounds, so a loaded machine
 * skews them less.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

#ifdef BENCH_INTERNALS
#include "clock.h"
#include "sampler.h"
#endif

static long pairs = 20000000;
/* Counted pairs make two system calls each: they run pairs / pair_div. */
static long pair_div = 1;
/* Each figure is the best of ROUNDS rounds of pairs/ROUNDS: the machine is
 * shared, and interference only ever adds time. */
#define ROUNDS 5
static const struct sp_site site = {SP_SITE_MAGIC, __LINE__, "bench", __FILE__};

/* Per-thread figures use the thread's CPU time, not wall time: on a shared
 * machine a preempted thread would otherwise look slow. */
static double cpu_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double bare_clock_pair_ns(void)
{
	struct timespec a, b;
	long sink = 0, n = pairs / ROUNDS;
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = cpu_now_s();
		for (long i = 0; i < n; i++) {
			clock_gettime(CLOCK_MONOTONIC, &a);
			clock_gettime(CLOCK_MONOTONIC, &b);
			sink += b.tv_nsec - a.tv_nsec;
		}
		double t = (cpu_now_s() - t0) * 1e9 / (double)n;
		best = t < best ? t : best;
	}
	if (sink == 42)
		puts("");
	return best;
}

/* The library's records cost memory: 24 bytes a call. Finalize is timed
 * separately; here the process exits without writing (_exit). */
static void *pair_loop(void *arg)
{
	double *out = arg;
	sp_begin(&site); /* registers the thread outside the timed loop */
	sp_end(&site);
	long n = pairs / ROUNDS / pair_div;
	n = n < 1000 ? 1000 : n;
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = cpu_now_s();
		for (long i = 0; i < n; i++) {
			sp_begin(&site);
			sp_end(&site);
		}
		double t = (cpu_now_s() - t0) * 1e9 / (double)n;
		best = t < best ? t : best;
	}
	*out = best;
	return NULL;
}

static double pair_ns(int nthreads)
{
	pthread_t th[2];
	double r[2] = {0, 0};
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, pair_loop, &r[i]);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return nthreads == 1 ? r[0] : (r[0] + r[1]) / 2;
}

typedef void (*measure_fn)(void);

/* Runs fn in a child with KEY=VALUE set (KEY NULL: none). */
static void in_child(const char *key, const char *value, measure_fn fn)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (key)
			setenv(key, value, 1);
		fn();
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
}

static double base_ns; /* two bare clock reads, measured first */

static void report(const char *what, double ns, const char *target)
{
	printf("  %-44s %8.2f ns  %5.2fx two clock reads  (%s)\n", what, ns, ns / base_ns,
	       target);
}

static void m_tsc1(void) { report("pair, 1 thread (default clock)", pair_ns(1), "target <= 0.7x"); }
static void m_tsc2(void) { report("pair, 2 threads, per pair per thread", pair_ns(2), "target <= 40 ns"); }
static void m_mono1(void) { report("pair, 1 thread, CLOCK_MONOTONIC fallback", pair_ns(1), "target <= 60 ns"); }
static void m_off(void) { report("pair, SCOPE_PROFILER_DISABLE=1", pair_ns(1), "target <= 1 ns"); }

/* The floor of a counted pair: two read(2) of a perf_event group, the
 * system calls the library makes (PAPI_read makes the same one). */
static double bare_perf_read_pair_ns(int nr_events)
{
	struct perf_event_attr a;
	int fd[2] = {-1, -1};
	for (int i = 0; i < nr_events; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = i ? PERF_COUNT_SW_PAGE_FAULTS : PERF_COUNT_SW_TASK_CLOCK;
		a.read_format = PERF_FORMAT_GROUP;
		fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? fd[0] : -1, 0);
		if (fd[i] < 0)
			return -1;
	}
	uint64_t buf[4];
	long n = pairs / ROUNDS / pair_div;
	n = n < 1000 ? 1000 : n;
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = cpu_now_s();
		for (long i = 0; i < n; i++) {
			if (read(fd[0], buf, sizeof(buf)) < 0 || read(fd[0], buf, sizeof(buf)) < 0)
				return -1;
		}
		double t = (cpu_now_s() - t0) * 1e9 / (double)n;
		best = t < best ? t : best;
	}
	for (int i = 0; i < nr_events; i++)
		close(fd[i]);
	return best;
}

static void m_ctr(int nr_events, const char *events)
{
	pair_div = 100;
	setenv("SCOPE_PROFILER_EVENTS", events, 1);
	double bare = bare_perf_read_pair_ns(nr_events);
	double ns = pair_ns(1);
	char what[96];
	snprintf(what, sizeof(what), "pair, %d event%s (%s)", nr_events, nr_events > 1 ? "s" : "",
		 events);
	report(what, ns, "two read(2) of the group");
	if (bare > 0)
		printf("  %-44s %8.2f ns  the library adds %.0f ns to its floor\n",
		       "  two bare read(2) of that perf group", bare, ns - bare);
	else
		printf("  perf_event_open refused here: the events are unavailable\n");
}
static void m_ctr1(void) { m_ctr(1, "task-clock"); }
static void m_ctr2(void) { m_ctr(2, "task-clock,page-faults"); }

#ifdef BENCH_INTERNALS
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double spin_sink;
static volatile sig_atomic_t hits;
static void empty_handler(int sig)
{
	(void)sig;
	hits++;
}

/* ns per signal sent to this thread with rt_tgsigqueueinfo, si_code
 * SI_TIMER (what a timer delivers), best of ROUNDS, thread CPU time. */
static double signal_ns(int sig)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_TIMER;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	long n = 40000;
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = cpu_now_s();
		for (long i = 0; i < n; i++)
			syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &si);
		double t = (cpu_now_s() - t0) * 1e9 / (double)n;
		best = t < best ? t : best;
	}
	return best;
}

/* Handler cost: synthetic SI_TIMER signals, against an empty handler. */
static void m_sampler_cost(void)
{
	signal(SIGUSR1, empty_handler);
	double bare = signal_ns(SIGUSR1);
	sp_begin(&site); /* samples land in a region, as in real use */
	sp_start_sampling(1);
	double full = signal_ns(SIGPROF); /* the sampler's handler records each */
	sp_end(&site);
	printf("  bare signal delivery (empty handler)          %8.0f ns\n", bare);
	printf("  delivery to the sampler's handler             %8.0f ns  work per sample %.0f ns"
	       "  (target < 1000 ns)\n", full, full - bare);
}

/* Real timer sampling of 1 s of CPU: the rate achieved. */
static void m_sampler_rate(void)
{
	sp_start_sampling(1000);
	double t0 = now_s();
	while (now_s() - t0 < 1.0)
		for (int i = 0; i < 100000; i++)
			spin_sink += i * 1e-9;
	sp_stop_sampling();
	struct sp_clock_map map;
	sp_clock_map__init(&map);
	struct sp_sampler_stats st;
	sp_sampler__stats(&st, sp_clock_map__span_ns(&map, 1000000) / 1e6);
	printf("  sampling ~1 s of CPU, 1000 Hz requested: effective %.1f Hz, %llu ticks,"
	       " handler %.0f ns/tick (wall time, incl. any preemption)\n", st.effective_hz,
	       (unsigned long long)st.ticks, st.ticks ? st.handler_s * 1e9 / (double)st.ticks : 0);
	sp_clock_map__exit(&map);
}

static void m_finalize(void)
{
	unsetenv("SCOPE_PROFILER_PREFIX"); /* its own directory, below */
	char prefix[] = "/tmp/sp-bench-XXXXXX";
	if (!mkdtemp(prefix))
		return;
	char out[64];
	snprintf(out, sizeof(out), "%s/bench", prefix);
	sp_init(out, NULL);
	long n = 10000000;
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		sp_begin(&site);
		sp_end(&site);
	}
	double rec = now_s() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long rss_rec = ru.ru_maxrss;
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	t0 = now_s();
	int rc = sp_finalize();
	double fin = now_s() - t0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	double fin_cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
	getrusage(RUSAGE_SELF, &ru);
	printf("  record 10 M calls %.3f s (peak RSS %ld KiB, streamed to disk); sp_finalize "
	       "writes them in %.3f s wall, %.3f s CPU (rc %d, peak RSS %ld KiB)  (target < 1 s)\n",
	       rec, rss_rec, fin, fin_cpu, rc, ru.ru_maxrss);
	char path[128];
	snprintf(path, sizeof(path), "%s/bench_rank00000.spt", prefix);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bench_rank00000.h5", prefix);
	unlink(path);
	rmdir(prefix);
}
#endif

int main(int argc, char **argv)
{
	if (argc > 1)
		pairs = atol(argv[1]);
	if (pairs < 1000)
		pairs = 1000;
	unsetenv("SCOPE_PROFILER_SAMPLE_HZ");
	setenv("SCOPE_PROFILER_HDF5", "0", 1);
#ifdef BENCH_INTERNALS
	const char *kind = "static";
#else
	const char *kind = "shared";
#endif
	/* The pairs stream their calls to an unfinished trace as a real run
	 * does; in a directory of its own, removed at the end. */
	char dir[] = "/tmp/sp-bench-pairs-XXXXXX", pfx[64], left[96];
	if (!mkdtemp(dir))
		return 1;
	snprintf(pfx, sizeof(pfx), "%s/pairs", dir);
	setenv("SCOPE_PROFILER_PREFIX", pfx, 1);
	printf("libscope_profiler %s (%s library), %ld pairs per figure, streaming to %s\n",
	       sp_version(), kind, pairs, dir);
	base_ns = bare_clock_pair_ns();
	printf("  baseline: two clock_gettime(CLOCK_MONOTONIC)   %8.2f ns\n", base_ns);
	in_child(NULL, NULL, m_tsc1);
	in_child(NULL, NULL, m_tsc2);
	in_child("SCOPE_PROFILER_CLOCK", "monotonic", m_mono1);
	in_child("SCOPE_PROFILER_DISABLE", "1", m_off);
	in_child(NULL, NULL, m_ctr1);
	in_child(NULL, NULL, m_ctr2);
#ifdef BENCH_INTERNALS
	in_child(NULL, NULL, m_sampler_cost);
	in_child(NULL, NULL, m_sampler_rate);
	in_child(NULL, NULL, m_finalize);
#endif
	snprintf(left, sizeof(left), "%s_rank00000.spt", pfx);
	unlink(left);
	rmdir(dir);
	return 0;
}
