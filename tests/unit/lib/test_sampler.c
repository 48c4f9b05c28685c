/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer sampler: ticks, attribution to regions, later threads, EINTR.
 *
 * No assertion here depends on how fast or how loaded the machine is. The
 * work is measured in the thread's CPU time, and the expected tick counts
 * follow from it, because each sample weighs the timer expirations its
 * signal stood for (si_overrun + 1): the kernel notices a CPU-time timer
 * only at its tick while the thread runs, so on a loaded machine many
 * expirations arrive folded into one signal (9 signals for 125 expirations
 * at load 8). A phase ends with drain(): the thread works on until a sample
 * of that phase arrives, and that sample carries every expiration of the
 * phase up to then, whatever the scheduling did. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "harness.h"
#include "sampler.h"
#include "scope_profiler.h"

#define HZ 250
#define INTERVAL_S (1.0 / HZ)

static char dir[64], prefix[128], sps[160];

static void setup(void)
{
	unsetenv("SCOPE_PROFILER_PREFIX");
	unsetenv("SCOPE_PROFILER_DISABLE");
	setenv("SCOPE_PROFILER_HDF5", "0", 1);
	strcpy(dir, "/tmp/sp-samp-XXXXXX");
	CHECK(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/s", dir);
	snprintf(sps, sizeof(sps), "%s_rank00000.sps", prefix);
	sp_init(prefix, NULL);
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Per thread: burn() runs on several threads at once (TSan pass). */
static _Thread_local volatile double sink;
static void burn(double seconds)
{
	double t0 = cpu_s();
	while (cpu_s() - t0 < seconds)
		for (int i = 0; i < 10000; i++)
			sink += i * 1e-9;
}

/* Samples of `site` the sampler holds so far (every thread's chunks). */
static long held(const struct sp_site *site)
{
	long n = 0;
	for (struct sp_sample_chunk *c = sp_sampler__chunks(); c; c = c->next_all) {
		size_t nr = atomic_load_explicit(&c->nr, memory_order_acquire);
		for (size_t i = 0; i < nr; i++)
			n += c->s[i].site == site;
	}
	return n;
}

/* Works on in `site` (the innermost open region) until a new sample of it
 * arrives: all expirations of the calling thread so far are then in
 * samples. At most 30 s of CPU: a timer that never delivers is a failure. */
static void drain(const struct sp_site *site)
{
	long n0 = held(site);
	double t0 = cpu_s();
	while (held(site) == n0 && cpu_s() - t0 < 30)
		burn(0.002);
	CHECK(held(site) > n0);
}

struct sps {
	int32_t version, rank, hz, nregions, nmodules;
	int64_t ticks, nsamples;
	char regions[16][64];
	int32_t region[20000], module[20000], weight[20000];
};

static int rd(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n ? 0 : -1;
}

static int read_sps(const char *path, struct sps *s)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char magic[8], buf[4096];
	int rc = -1;
	if (rd(f, magic, 8) || memcmp(magic, "SCOPESMP", 8) || rd(f, &s->version, 4) ||
	    rd(f, &s->rank, 4) || rd(f, &s->hz, 4) || rd(f, &s->ticks, 8) ||
	    rd(f, &s->nregions, 4) || s->nregions > 16)
		goto out;
	for (int i = 0; i < s->nregions; i++) {
		int32_t n;
		if (rd(f, &n, 4) || n < 0 || n >= 64 || rd(f, s->regions[i], (size_t)n))
			goto out;
		s->regions[i][n] = 0;
	}
	if (rd(f, &s->nmodules, 4))
		goto out;
	for (int i = 0; i < s->nmodules; i++) {
		int32_t n;
		uint64_t base;
		if (rd(f, &n, 4) || n < 0 || n >= 4096 || rd(f, buf, (size_t)n) || rd(f, &base, 8))
			goto out;
	}
	if (rd(f, &s->nsamples, 8) || s->nsamples > 20000)
		goto out;
	for (int64_t i = 0; i < s->nsamples; i++) {
		uint64_t addr;
		if (rd(f, &s->region[i], 4) || rd(f, &s->module[i], 4) || rd(f, &addr, 8) ||
		    rd(f, &s->weight[i], 4))
			goto out;
	}
	rc = fgetc(f) == EOF ? 0 : -2;
out:
	fclose(f);
	return rc;
}

static int region_index(const struct sps *s, const char *name)
{
	for (int i = 0; i < s->nregions; i++)
		if (strcmp(s->regions[i], name) == 0)
			return i;
	return -1;
}

/* Expirations (sum of weights) of the samples in region index r. */
static int64_t ticks_in(const struct sps *s, int r)
{
	int64_t n = 0;
	for (int64_t i = 0; i < s->nsamples; i++)
		n += s->region[i] == r ? s->weight[i] : 0;
	return n;
}

static void t_ticks_and_regions(void)
{
	setup();
	double c0 = cpu_s(); /* the timer starts after this */
	CHECK_INT(sp_start_sampling(HZ), 0);
	CHECK_INT(sp_start_sampling(HZ), -EALREADY);
	const struct sp_site *hot = sp_region("hot"), *cold = sp_region("cold");
	sp_begin(hot);
	burn(0.4);
	drain(hot);
	double c1 = cpu_s();
	sp_end(hot);
	sp_begin(cold);
	burn(0.1);
	drain(cold);
	double c2 = cpu_s();
	sp_end(cold);
	drain(NULL); /* ticks outside any region count too */
	CHECK_INT(sp_stop_sampling(), 0);
	CHECK_INT(sp_finalize(), 0);
	static struct sps s;
	CHECK_INT(read_sps(sps, &s), 0);
	CHECK_INT(s.version, 2);
	int64_t sum = 0;
	int in_module = 0;
	for (int64_t i = 0; i < s.nsamples; i++) {
		CHECK(s.weight[i] >= 1);
		sum += s.weight[i];
		in_module += s.module[i] >= 0 && s.module[i] < s.nmodules;
	}
	CHECK(s.ticks == sum); /* every expiration is in a sample's weight */
	/* expirations per CPU second of the process: never above the rate asked */
	CHECK(s.hz > 0 && s.hz <= HZ * 102 / 100 + 1);
	int hot_i = region_index(&s, "hot"), cold_i = region_index(&s, "cold");
	CHECK(hot_i >= 0 && cold_i >= 0);
	int64_t in_hot = ticks_in(&s, hot_i), in_cold = ticks_in(&s, cold_i);
	/* hot's 0.4 s of CPU are all in hot's samples (drained), and no more
	 * than the thread's CPU time up to hot's end; cold the same after it */
	CHECK(in_hot >= (int64_t)(0.4 / INTERVAL_S) - 1);
	CHECK(in_hot <= (int64_t)((c1 - c0) / INTERVAL_S) + 1);
	CHECK(in_cold >= (int64_t)(0.1 / INTERVAL_S) - 1);
	CHECK(in_hot + in_cold <= (int64_t)((c2 - c0) / INTERVAL_S) + 1);
	CHECK(ticks_in(&s, -1) >= 1);
	CHECK(in_module >= s.nsamples * 9 / 10);
	cleanup();
}

/* SIGPROF blocked for 0.2 s of CPU: the kernel holds one signal and counts
 * the other expirations as its overrun; the sample delivered at the
 * unblocking weighs them all. Counting one per signal gives ~1 here. */
static void t_overrun_weight(void)
{
	setup();
	CHECK_INT(sp_start_sampling(HZ), 0);
	const struct sp_site *blocked = sp_region("blocked");
	sigset_t prof;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sp_begin(blocked);
	CHECK(pthread_sigmask(SIG_BLOCK, &prof, NULL) == 0);
	double c0 = cpu_s();
	burn(0.2);
	double c1 = cpu_s();
	CHECK(pthread_sigmask(SIG_UNBLOCK, &prof, NULL) == 0);
	drain(blocked); /* the held signal, or the next one if none was held yet */
	sp_end(blocked);
	CHECK_INT(sp_stop_sampling(), 0);
	CHECK_INT(sp_finalize(), 0);
	static struct sps s;
	CHECK_INT(read_sps(sps, &s), 0);
	int b = region_index(&s, "blocked");
	CHECK(b >= 0);
	int n = 0;
	for (int64_t i = 0; i < s.nsamples; i++)
		n += s.region[i] == b;
	CHECK(n >= 1 && n <= 4); /* the held signal, the drain's, and a stray one either side */
	CHECK(ticks_in(&s, b) >= (int64_t)((c1 - c0) / INTERVAL_S) - 1);
	cleanup();
}

static void *late_thread(void *arg)
{
	(void)arg;
	const struct sp_site *r = sp_region("late");
	sp_begin(r); /* the static library gives this thread its timer here */
	burn(0.3);
	drain(r);
	sp_end(r);
	return NULL;
}

static void t_later_threads(void)
{
	setup();
	CHECK_INT(sp_start_sampling(HZ), 0);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, late_thread, NULL) == 0);
	pthread_join(th, NULL);
	CHECK_INT(sp_finalize(), 0);
	static struct sps s;
	CHECK_INT(read_sps(sps, &s), 0);
	int late = region_index(&s, "late");
	CHECK(late >= 0);
	CHECK(ticks_in(&s, late) >= (int64_t)(0.3 / INTERVAL_S) - 1);
	cleanup();
}

static void *cpu_burner(void *arg)
{
	(void)arg;
	const struct sp_site *r = sp_region("burn");
	sp_begin(r);
	burn(0.5);
	sp_end(r);
	return NULL;
}

static void *late_writer(void *arg)
{
	int fd = *(int *)arg;
	struct timespec d = {0, 30000000};
	nanosleep(&d, NULL);
	CHECK(write(fd, "ping", 4) == 4);
	return NULL;
}

static void t_no_eintr(void)
{
	setup();
	CHECK_INT(sp_start_sampling(1000), 0);
	pthread_t burner, writer;
	CHECK(pthread_create(&burner, NULL, cpu_burner, NULL) == 0);
	sp_begin(sp_region("sleepy"));
	for (int i = 0; i < 100; i++) {
		struct timespec d = {0, 1000000};
		CHECK_INT(nanosleep(&d, NULL), 0); /* never EINTR */
		burn(0.002); /* this thread gets ticks too, between sleeps */
	}
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(pthread_create(&writer, NULL, late_writer, &p[1]) == 0);
	char buf[8];
	CHECK_INT(read(p[0], buf, sizeof(buf)), 4); /* a blocking read, not EINTR */
	sp_end(sp_region("sleepy"));
	pthread_join(writer, NULL);
	pthread_join(burner, NULL);
	CHECK_INT(sp_finalize(), 0);
	static struct sps s;
	CHECK_INT(read_sps(sps, &s), 0);
	CHECK(s.ticks > 50);
	cleanup();
}

static void app_handler(int sig)
{
	(void)sig;
}

static void t_sigprof_taken(void)
{
	setup();
	signal(SIGPROF, app_handler);
	CHECK_INT(sp_start_sampling(100), -EBUSY);
	CHECK_INT(sp_stop_sampling(), -EINVAL);
	CHECK_INT(sp_finalize(), 0);
	cleanup();
}

static const struct test_case cases[] = {
	{"ticks_and_regions", "ticks counted, samples in the open region", t_ticks_and_regions},
	{"overrun_weight", "expirations folded into one signal weigh its sample", t_overrun_weight},
	{"later_threads", "a thread created after start is sampled", t_later_threads},
	{"no_eintr", "nanosleep and read never fail with EINTR", t_no_eintr},
	{"sigprof_taken", "an application SIGPROF handler is respected", t_sigprof_taken},
};
TEST_MAIN(cases)
