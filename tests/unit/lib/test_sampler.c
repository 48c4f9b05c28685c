/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer sampler: ticks, attribution to regions, later threads, EINTR. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "harness.h"
#include "scope_profiler.h"

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

struct sps {
	int32_t version, rank, hz, nregions, nmodules;
	int64_t ticks, nsamples;
	char regions[16][64];
	int32_t region[20000], module[20000];
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
		if (rd(f, &s->region[i], 4) || rd(f, &s->module[i], 4) || rd(f, &addr, 8))
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

static void t_ticks_and_regions(void)
{
	setup();
	CHECK_INT(sp_start_sampling(250), 0);
	CHECK_INT(sp_start_sampling(250), -EALREADY);
	const struct sp_site *hot = sp_region("hot");
	sp_begin(hot);
	burn(0.4);
	sp_end(hot);
	burn(0.1); /* ticks outside any region count too */
	CHECK_INT(sp_stop_sampling(), 0);
	CHECK_INT(sp_finalize(), 0);
	static struct sps s;
	CHECK_INT(read_sps(sps, &s), 0);
	CHECK_INT(s.version, 1);
	CHECK(s.ticks >= 20); /* ~125 expected at 250 Hz */
	CHECK(s.ticks == s.nsamples);
	CHECK(s.hz > 0 && s.hz <= 300); /* capped at the kernel tick, measured */
	int hot_i = region_index(&s, "hot"), in_hot = 0, outside = 0, in_module = 0;
	CHECK(hot_i >= 0);
	for (int64_t i = 0; i < s.nsamples; i++) {
		in_hot += s.region[i] == hot_i;
		outside += s.region[i] == -1;
		in_module += s.module[i] >= 0 && s.module[i] < s.nmodules;
	}
	CHECK(in_hot > outside); /* 0.4 s vs 0.1 s of CPU */
	CHECK(outside > 0);
	CHECK(in_module >= s.nsamples * 9 / 10);
	cleanup();
}

static void *late_thread(void *arg)
{
	(void)arg;
	const struct sp_site *r = sp_region("late");
	sp_begin(r); /* the static library gives this thread its timer here */
	burn(0.3);
	sp_end(r);
	return NULL;
}

static void t_later_threads(void)
{
	setup();
	CHECK_INT(sp_start_sampling(250), 0);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, late_thread, NULL) == 0);
	pthread_join(th, NULL);
	CHECK_INT(sp_finalize(), 0);
	static struct sps s;
	CHECK_INT(read_sps(sps, &s), 0);
	int late = region_index(&s, "late"), n = 0;
	CHECK(late >= 0);
	for (int64_t i = 0; i < s.nsamples; i++)
		n += s.region[i] == late;
	CHECK(n >= 10);
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
	{"later_threads", "a thread created after start is sampled", t_later_threads},
	{"no_eintr", "nanosleep and read never fail with EINTR", t_no_eintr},
	{"sigprof_taken", "an application SIGPROF handler is respected", t_sigprof_taken},
};
TEST_MAIN(cases)
