/* SPDX-License-Identifier: BSD-3-Clause */
/* The public API end to end inside one process: files written, read back. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "harness.h"
#include "scope_profiler.h"
#include "spt_parse.h"

static char dir[64], prefix[128], spt[160];
static char logbuf[8192];

static void on_log(int level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	strncat(logbuf, msg, sizeof(logbuf) - strlen(logbuf) - 2);
	strcat(logbuf, "\n");
}

static void setup(void)
{
	unsetenv("SCOPE_PROFILER_PREFIX");
	unsetenv("SCOPE_PROFILER_SAMPLE_HZ");
	unsetenv("SCOPE_PROFILER_DISABLE");
	unsetenv("SP_LOG_LEVEL");
	setenv("SCOPE_PROFILER_HDF5", "0", 1);
	strcpy(dir, "/tmp/sp-test-XXXXXX");
	CHECK(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/t", dir);
	snprintf(spt, sizeof(spt), "%s_rank00000.spt", prefix);
	logbuf[0] = 0;
	sp_set_log_fn(on_log, NULL);
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

static void sleep_ms(int ms)
{
	struct timespec d = {0, ms * 1000000L};
	nanosleep(&d, NULL);
}

static void t_basic(void)
{
	setup();
	CHECK_INT(sp_init(prefix, "unit"), 0);
	const struct sp_site *outer = sp_region("outer");
	CHECK(outer == sp_region("outer"));
	const struct sp_site *inner = sp_region_at("inner", "file.c", 42);
	for (int i = 0; i < 3; i++) {
		sp_begin(outer);
		sp_begin(inner);
		sleep_ms(2);
		sp_end(inner);
		sp_end(outer);
	}
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	CHECK_INT(t.version, 2);
	CHECK_INT(t.rank, 0);
	CHECK_INT(t.nregions, 2);
	struct tspt_region *o = tspt_find(&t, "outer"), *in = tspt_find(&t, "inner");
	CHECK(o && in);
	CHECK_INT(o->n, 3);
	CHECK_INT(in->n, 3);
	CHECK_STR(in->file, "file.c");
	CHECK_INT(in->line, 42);
	CHECK_STR(o->file, "");
	CHECK_INT(o->line, -1);
	for (int i = 0; i < 3; i++) {
		CHECK(o->starts[i] <= in->starts[i] && in->ends[i] <= o->ends[i]);
		CHECK(in->ends[i] - in->starts[i] >= 2000000);
		CHECK(in->ends[i] - in->starts[i] < 20000000000LL); /* a sanity bound: a loaded machine may hold a 2 ms sleep long */
		if (i)
			CHECK(o->starts[i] >= o->ends[i - 1]);
	}
	cleanup();
}

static void *thread_body(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "unit-worker");
	const struct sp_site *w = sp_region("work");
	for (int i = 0; i < 5; i++) {
		sp_begin(w);
		sleep_ms(1);
		sp_end(w);
	}
	return NULL;
}

static void t_threads_v3(void)
{
	setup();
	sp_init(prefix, NULL);
	const struct sp_site *m = sp_region("main");
	sp_begin(m);
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&th[i], NULL, thread_body, NULL) == 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	sp_end(m);
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	CHECK_INT(t.version, 3);
	CHECK_INT(t.nthreads, 3);
	CHECK_INT(t.tids[0], getpid()); /* lane 0: first thread that recorded */
	CHECK(t.tids[1] != t.tids[2] && t.tids[1] != t.tids[0]);
	CHECK_STR(t.tnames[1], "unit-worker");
	struct tspt_region *w = tspt_find(&t, "work");
	CHECK(w);
	CHECK_INT(w->n, 10);
	int per_lane[3] = {0, 0, 0};
	for (int i = 0; i < 10; i++) {
		CHECK(w->lanes[i] >= 1 && w->lanes[i] <= 2);
		per_lane[w->lanes[i]]++;
		if (i)
			CHECK(w->starts[i] >= w->starts[i - 1]); /* sorted by start */
	}
	CHECK_INT(per_lane[1], 5);
	CHECK_INT(per_lane[2], 5);
	CHECK_INT(tspt_find(&t, "main")->lanes[0], 0);
	cleanup();
}

static void t_misuse(void)
{
	setup();
	sp_init(prefix, NULL);
	const struct sp_site *a = sp_region("a"), *b = sp_region("b"), *c = sp_region("c");
	sp_end(a);            /* not open */
	sp_begin(NULL);       /* NULL handle */
	sp_begin(a);
	sp_begin(b);
	sp_begin(c);
	sp_end(a);            /* open deeper: b and c discarded, a recorded */
	static const struct sp_site bogus = {0xdeadbeef, 1, "bogus", NULL};
	sp_begin(&bogus);     /* not a descriptor: dropped at finalize */
	sp_end(&bogus);
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	munmap(page, 4096);
	sp_begin((const struct sp_site *)page); /* unmapped by finalize */
	sp_end((const struct sp_site *)page);
	sp_begin(b);          /* left open */
	setenv("SP_LOG_LEVEL", "warn", 1);
	CHECK_INT(sp_finalize(), 0);
	CHECK_INT(sp_finalize(), -EALREADY);
	sp_begin(a);          /* after finalize */
	sp_end(a);
	CHECK(sp_region("late") != NULL);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	CHECK_INT(tspt_find(&t, "a")->n, 1);
	CHECK_INT(tspt_find(&t, "b")->n, 0);
	CHECK_INT(tspt_find(&t, "c")->n, 0);
	CHECK(!tspt_find(&t, "bogus"));
	/* one line per kind, naming the regions and counting */
	CHECK(strstr(logbuf, "misuse: sp_end of a region that was not open (ignored): 1 ('a' x1)"));
	CHECK(strstr(logbuf, "misuse: sp_end of a region that was not the innermost open one "
		      "(the inner ones were closed unrecorded): 1 ('a' x1)"));
	CHECK(strstr(logbuf, "misuse: inner regions discarded by an out-of-order sp_end (not "
		      "recorded): 2 ('b' x1, 'c' x1)"));
	CHECK(strstr(logbuf, "misuse: calls with a NULL handle (ignored): 1"));
	CHECK(strstr(logbuf, "misuse: handles that are not sp_site descriptors (their calls "
		      "dropped): 2"));
	CHECK(strstr(logbuf, "misuse: regions still open at finalize (not recorded): 1 ('b' x1)"));
	/* and recorded in the trace's extension block */
	CHECK(t.has_ext);
	CHECK_INT(t.misuse[1], 1); /* end_unopened */
	CHECK(strcmp(t.misuse_name[1], "a") == 0);
	CHECK_INT(t.misuse[2], 1); /* end_not_innermost */
	CHECK_INT(t.misuse[3], 2); /* discarded_inner */
	CHECK_INT(t.misuse[5], 1); /* left_open */
	CHECK(strcmp(t.misuse_name[5], "b") == 0);
	CHECK_INT(t.misuse[0], 1); /* null handle */
	CHECK_INT(t.misuse[8], 2); /* bad handles */
	CHECK(strstr(logbuf, "sp_finalize called again"));
	cleanup();
}

static void t_unwritable(void)
{
	setup();
	setenv("SP_LOG_LEVEL", "error", 1);
	CHECK_INT(sp_init("/etc/passwd/cannot", NULL), 0); /* ENOTDIR, even as root */
	sp_begin(sp_region("x"));
	sp_end(sp_region("x"));
	int rc = sp_finalize();
	CHECK(rc < 0);
	CHECK_INT(rc, -ENOTDIR);
	CHECK(strstr(logbuf, "cannot write /etc/passwd/cannot_rank00000.spt"));
	cleanup();
}

static void t_disabled(void)
{
	setup();
	setenv("SCOPE_PROFILER_DISABLE", "1", 1);
	setenv("SCOPE_PROFILER_PREFIX", prefix, 1);
	const struct sp_site *x = sp_region("x");
	CHECK(x != NULL);
	sp_begin(x);
	sp_end(x);
	CHECK_INT(sp_start_sampling(100), 0);
	CHECK_INT(sp_finalize(), 0);
	struct stat st;
	CHECK(stat(spt, &st) != 0); /* nothing written */
	cleanup();
}

static void t_env_prefix_wins(void)
{
	setup();
	setenv("SCOPE_PROFILER_PREFIX", prefix, 1);
	sp_init("/nonexistent/ignored", NULL);
	/* no sp_init at all would work too: the first call initialises */
	sp_begin(sp_region("r"));
	sp_end(sp_region("r"));
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	CHECK_INT(tspt_find(&t, "r")->n, 1);
	cleanup();
}

static void t_creates_dirs(void)
{
	setup();
	char deep[192], path[256];
	snprintf(deep, sizeof(deep), "%s/a/b/run", dir);
	sp_init(deep, NULL);
	sp_begin(sp_region("r"));
	sp_end(sp_region("r"));
	CHECK_INT(sp_finalize(), 0);
	snprintf(path, sizeof(path), "%s_rank00000.spt", deep);
	struct tspt t;
	CHECK_INT(tspt_read(path, &t), 0);
	cleanup();
}

static void t_many_calls(void)
{
	setup();
	sp_init(prefix, NULL);
	const struct sp_site *r = sp_region("r");
	for (int i = 0; i < 5000; i++) { /* crosses several chunks */
		sp_begin(r);
		sp_end(r);
	}
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	struct tspt_region *x = tspt_find(&t, "r");
	CHECK_INT(x->n, 5000);
	for (int i = 1; i < 5000; i++)
		CHECK(x->starts[i] >= x->ends[i - 1] && x->ends[i] >= x->starts[i]);
	cleanup();
}

static void t_fork_child(void)
{
	setup();
	sp_init(prefix, NULL);
	const struct sp_site *r = sp_region("parent");
	sp_begin(r);
	sp_end(r);
	pid_t pid = fork();
	if (pid == 0) {
		sp_begin(sp_region("child"));
		sp_end(sp_region("child"));
		exit(sp_finalize() == 0 ? 0 : 3); /* the exit hook must not write either */
	}
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct stat sb;
	CHECK(stat(spt, &sb) != 0); /* the child wrote nothing */
	sp_begin(r);
	sp_end(r);
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	CHECK_INT(tspt_find(&t, "parent")->n, 2);
	CHECK(!tspt_find(&t, "child"));
	cleanup();
}

static void t_too_deep(void)
{
	setup();
	sp_init(prefix, NULL);
	const struct sp_site *r = sp_region("deep"), *q = sp_region("deeper");
	for (int i = 0; i < 300; i++) /* any practical recursion is recorded */
		sp_begin(r);
	for (int i = 0; i < 300; i++)
		sp_end(r);
	sp_begin(r);
	sp_end(r);
	for (int i = 0; i < 70000; i++) /* beyond the limit: counted and named */
		sp_begin(q);
	for (int i = 0; i < 70000; i++)
		sp_end(q);
	sp_begin(q); /* the stack is usable again */
	sp_end(q);
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	CHECK_INT(tspt_find(&t, "deep")->n, 301);
	CHECK_INT(tspt_find(&t, "deeper")->n, 65536 + 1);
	CHECK(strstr(logbuf, "misuse: regions opened deeper than 65536 levels (not recorded): "
		      "4464 ('deeper' x4464)"));
	CHECK_INT(t.misuse[4], 4464);
	cleanup();
}

static atomic_int stop_flag;
static atomic_long busy_pairs;

static void *busy_recorder(void *arg)
{
	const struct sp_site *r = arg;
	while (!atomic_load(&stop_flag)) {
		sp_begin(r);
		sp_end(r);
		atomic_fetch_add(&busy_pairs, 1);
	}
	return NULL;
}

static void t_finalize_while_recording(void)
{
	setup();
	sp_init(prefix, NULL);
	const struct sp_site *r = sp_region("busy");
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&th[i], NULL, busy_recorder, (void *)r) == 0);
	/* Until the threads have recorded: a loaded machine may not run them
	 * for a while (a fixed 30 ms wait once saw fewer than 100 pairs). */
	while (atomic_load(&busy_pairs) < 1000)
		sleep_ms(1);
	CHECK_INT(sp_finalize(), 0); /* the threads keep calling meanwhile */
	sleep_ms(5);
	atomic_store(&stop_flag, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	struct tspt_region *b = tspt_find(&t, "busy");
	CHECK(b && b->n > 100);
	CHECK(t.version == 3 || t.version == 2);
	for (int64_t i = 0; i < b->n; i++) {
		CHECK(b->ends[i] >= b->starts[i]);
		CHECK(b->lanes[i] >= 0 && b->lanes[i] < (t.version == 3 ? t.nthreads : 1));
		if (i)
			CHECK(b->starts[i] >= b->starts[i - 1]);
	}
	cleanup();
}

/* ---- sp_begin/sp_end from a signal handler (issue 28, item 11) ---- */

static const struct sp_site *sig_site;
static atomic_long sig_fired;
static __thread long sig_fired_here;

static void on_timer_signal(int sig)
{
	(void)sig;
	int saved = errno;
	sp_begin(sig_site);
	sp_end(sig_site);
	atomic_fetch_add(&sig_fired, 1);
	sig_fired_here++;
	errno = saved;
}

/* A timer signalling the calling thread after first_ns, then every
 * interval_ns (SIGALRM). */
static int thread_timer(timer_t *tm, long first_ns, long interval_ns)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGALRM;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, tm) != 0)
		return -1;
	struct itimerspec its = {{0, interval_ns}, {0, first_ns}};
	return timer_settime(*tm, 0, &its, NULL);
}

#define SIG_THREADS 40
#define SIG_THREAD_SIGNALS 20
#define SIG_MAIN_SIGNALS 20000
#define SIG_MAX_PAIRS 100000000L

static atomic_long worker_pairs;

/* A thread whose first call (its registration) is made as its timer's
 * first signal comes, then records until it got a few more. */
static void *sig_worker(void *arg)
{
	const struct sp_site *w = arg;
	timer_t tm;
	CHECK(thread_timer(&tm, 1000, 10000) == 0);
	long n = 0;
	do {
		sp_begin(w);
		sp_end(w);
		n++;
	} while (sig_fired_here < SIG_THREAD_SIGNALS && n < SIG_MAX_PAIRS);
	timer_delete(tm);
	atomic_fetch_add(&worker_pairs, n);
	return NULL;
}

/* The test must end: a deadlock (the handler waiting on a lock its thread
 * holds) would hang it; this thread turns that into a failure. */
static void *sig_watchdog(void *arg)
{
	(void)arg;
	sleep(600);
	fprintf(stderr, "signal_handler: no end after 600 s: a deadlock in the library\n");
	abort();
}

static void signal_handler_run(bool counted)
{
	setup();
	CHECK_INT(sp_init(prefix, NULL), 0);
	if (counted) {
		/* Counters read in the handlers too, also one that interrupted
		 * the counting of the call it came in (its counts dropped). */
		CHECK_INT(sp_set_events("task-clock"), 0);
		if (strstr(logbuf, "cannot be counted")) {
			fprintf(stderr, "%s", logbuf);
			SKIP("task-clock cannot be counted here (perf_event_open refused: "
			     "a container's seccomp or perf_event_paranoid); signal_handler "
			     "covers the same without counters");
		}
	}
	sig_site = sp_region("in_handler");
	const struct sp_site *outer = sp_region("outer"), *inner = sp_region("inner"),
			     *w = sp_region("worker");
	pthread_t dog;
	CHECK(pthread_create(&dog, NULL, sig_watchdog, NULL) == 0);
	pthread_detach(dog);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
	/* The main thread records nested pairs (across many buffer flushes)
	 * under a 20 us timer until 20000 signals came (CPU-bound: the count,
	 * not the time, ends it), then threads register under theirs. */
	timer_t tm;
	CHECK(thread_timer(&tm, 20000, 20000) == 0);
	long pairs = 0;
	do {
		sp_begin(outer);
		sp_begin(inner);
		sp_end(inner);
		sp_end(outer);
		pairs++;
	} while (sig_fired_here < SIG_MAIN_SIGNALS && pairs < SIG_MAX_PAIRS);
	timer_delete(tm);
	long main_fired = atomic_load(&sig_fired);
	for (int k = 0; k < SIG_THREADS; k++) {
		pthread_t th;
		CHECK(pthread_create(&th, NULL, sig_worker, (void *)w) == 0);
		pthread_join(th, NULL);
	}
	signal(SIGALRM, SIG_IGN);
	long fired = atomic_load(&sig_fired);
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(spt, &t), 0);
	/* The interrupted calls all recorded, nested as made. */
	CHECK_INT(tspt_find(&t, "outer")->n, pairs);
	CHECK_INT(tspt_find(&t, "inner")->n, pairs);
	CHECK_INT(tspt_find(&t, "worker")->n, atomic_load(&worker_pairs));
	/* The handler's: recorded, or dropped and counted (one count when its
	 * sp_end found the thread recording, two when both calls found it in
	 * a section of the library that holds a lock). */
	struct tspt_region *h = tspt_find(&t, "in_handler");
	int64_t rec = h ? h->n : 0, dropped = t.misuse[10];
	fprintf(stderr, "signal_handler: %ld signals (%ld on the main thread), %lld handler "
		"pairs recorded, %lld calls dropped as in_signal_handler\n",
		fired, main_fired, (long long)rec, (long long)dropped);
	const char *kept = strstr(logbuf, "counters: the counts of");
	if (counted)
		fprintf(stderr, "signal_handler: %.*s\n", kept ? (int)strcspn(kept, "\n") : 26,
			kept ? kept : "every call's counts kept");
	CHECK(main_fired >= SIG_MAIN_SIGNALS); /* the test exercised something */
	CHECK(rec <= fired);
	CHECK(dropped >= fired - rec && dropped <= 2 * (fired - rec));
	for (int k = 0; k < 10; k++)
		CHECK_INT(t.misuse[k], 0); /* no other misuse: nothing unbalanced */
	for (int64_t r = 0; r < t.nregions; r++)
		for (int64_t i = 0; i < t.r[r].n; i++)
			CHECK(t.r[r].ends[i] >= t.r[r].starts[i]);
	cleanup();
}

static void t_signal_handler(void)
{
	signal_handler_run(false);
}

static void t_signal_handler_counted(void)
{
	signal_handler_run(true);
}

/* The thread's periodic flush (about once a second) run by a signal
 * handler's sp_end, made certain: the main thread records one call of each
 * of 60 regions (long names and files: their descriptions outgrow the
 * first staging page), the flush falls due, then a signal's handler
 * records a pair. Its sp_end runs the flush: the trace file's first
 * creation (in a directory still to be made), the staging buffer, the
 * table of described regions and the clock's anchors, all in the handler.
 * Under ThreadSanitizer its report of signal-unsafe calls (malloc in a
 * handler) guards that path; everywhere, nothing is dropped or lost. */
#define FLUSH_SITES 60
static volatile sig_atomic_t flush_handled;

static void on_flush_signal(int sig)
{
	(void)sig;
	int saved = errno;
	sp_begin(sig_site);
	sp_end(sig_site);
	flush_handled++;
	errno = saved;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void t_signal_flush(void)
{
	setup();
	char pfx[192], trace[224];
	snprintf(pfx, sizeof(pfx), "%s/made by the handler/t", dir);
	snprintf(trace, sizeof(trace), "%s_rank00000.spt", pfx);
	CHECK_INT(sp_init(pfx, NULL), 0);
	/* Counted where the kernel allows (read(2) in the handler too). */
	int ev = sp_set_events("task-clock");
	sig_site = sp_region("in_handler");
	const struct sp_site *sites[FLUSH_SITES];
	char name[128], file[250];
	for (int k = 0; k < FLUSH_SITES; k++) {
		snprintf(name, sizeof(name), "region_%02d_%090d", k, k);
		snprintf(file, sizeof(file), "/a/source/file/of/region/%02d/%0200d.c", k, k);
		sites[k] = sp_region_at(name, file, k + 1);
	}
	for (int k = 0; k < FLUSH_SITES; k++) {
		sp_begin(sites[k]);
		sp_end(sites[k]);
	}
	struct stat st;
	/* Not yet, unless the machine stalled this thread past its flush
	 * interval during the 60 pairs (then the handler's flush appends). */
	bool created_before = stat(trace, &st) == 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_flush_signal;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	/* The flush falls due 1e9 clock ticks after the thread's first call
	 * (at most a second); raise() runs the handler before it returns. Each
	 * try waits 1.5 s more; the file appears at the due one. */
	int raised = 0;
	double t0 = mono_s();
	while (mono_s() - t0 < 120) {
		double until = mono_s() + 1.5;
		while (mono_s() < until)
			sleep_ms(50);
		/* Without a sanitizer (whose allocator glibc does not see): the
		 * handler's flush left the heap as it was (the old flush kept its
		 * staging buffer and table there). */
		struct mallinfo2 before = mallinfo2();
		CHECK(raise(SIGUSR1) == 0);
		struct mallinfo2 after = mallinfo2();
		CHECK(after.uordblks == before.uordblks && after.hblkhd == before.hblkhd);
		raised++;
		CHECK_INT(flush_handled, raised);
		if (stat(trace, &st) == 0 && (!created_before || raised > 1))
			break;
	}
	signal(SIGUSR1, SIG_IGN);
	CHECK(stat(trace, &st) == 0);
	fprintf(stderr, "signal_flush: %d handler pair(s); the trace file was %s; events: %d\n",
		raised, created_before ? "already there (the thread was stalled)"
				       : "created by the handler's flush", ev);
	CHECK_INT(sp_finalize(), 0);
	struct tspt t;
	CHECK_INT(tspt_read(trace, &t), 0);
	CHECK_INT(tspt_find(&t, "in_handler")->n, raised);
	for (int k = 0; k < FLUSH_SITES; k++) {
		snprintf(name, sizeof(name), "region_%02d_%090d", k, k);
		struct tspt_region *r = tspt_find(&t, name);
		CHECK(r && r->n == 1 && r->line == k + 1);
	}
	for (int k = 0; k < 16; k++)
		CHECK_INT(t.misuse[k], 0); /* nothing dropped, in_signal_handler included */
	cleanup();
}

/* The process's very first library call made in a signal handler: the
 * initialisation and the thread's registration run there. What allocates
 * is prepared when the library is loaded, from the environment then, so
 * the case re-executes this binary with SCOPE_PROFILER_PREFIX set from its
 * start; that process records one pair in a handler, before any other
 * call (the heap unchanged across it; ThreadSanitizer checks the rest). */
static const struct sp_site first_site = {SP_SITE_MAGIC, __LINE__, "first_in_handler",
					   __FILE__};
static volatile sig_atomic_t first_handled;

static void on_first_signal(int sig)
{
	(void)sig;
	int saved = errno;
	sp_begin(&first_site);
	sp_end(&first_site);
	first_handled++;
	errno = saved;
}

static void first_call_child(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_first_signal;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	struct mallinfo2 before = mallinfo2();
	CHECK(raise(SIGUSR1) == 0);
	struct mallinfo2 after = mallinfo2();
	CHECK_INT(first_handled, 1);
	CHECK(after.uordblks == before.uordblks && after.hblkhd == before.hblkhd);
	signal(SIGUSR1, SIG_IGN);
	CHECK_INT(sp_finalize(), 0);
}

static void t_signal_first_call(void)
{
	if (getenv("SP_TEST_FIRST_CALL_CHILD")) {
		first_call_child();
		return;
	}
	setup();
	char pfx[192], trace[224];
	snprintf(pfx, sizeof(pfx), "%s/first call", dir);
	snprintf(trace, sizeof(trace), "%s_rank00000.spt", pfx);
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		setenv("SCOPE_PROFILER_PREFIX", pfx, 1);
		setenv("SP_TEST_FIRST_CALL_CHILD", "1", 1);
		execl("/proc/self/exe", "unit_lib_test_api", "signal_first_call", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct tspt t;
	CHECK_INT(tspt_read(trace, &t), 0);
	struct tspt_region *r = tspt_find(&t, "first_in_handler");
	CHECK(r && r->n == 1 && r->ends[0] >= r->starts[0]);
	for (int k = 0; k < 16; k++)
		CHECK_INT(t.misuse[k], 0);
	cleanup();
}

static void t_version(void)
{
	CHECK_STR(sp_version(), SP_VERSION_STRING);
	CHECK_INT(SP_VERSION_NUMBER, SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100);
	struct sp_options o = {.sz = 4};
	CHECK_INT(sp_init_opts(&o), -EINVAL);
}

static const struct test_case cases[] = {
	{"basic", "nested regions written as v2 and read back", t_basic},
	{"threads_v3", "two threads: v3 with lanes, tids, names", t_threads_v3},
	{"misuse", "misuse is counted, reported once, never fatal", t_misuse},
	{"unwritable", "unwritable prefix: error code and log, no file", t_unwritable},
	{"disabled", "SCOPE_PROFILER_DISABLE=1 makes every call a no-op", t_disabled},
	{"env_prefix", "SCOPE_PROFILER_PREFIX wins over sp_init", t_env_prefix_wins},
	{"creates_dirs", "missing directories of the prefix are created", t_creates_dirs},
	{"many_calls", "calls across chunk boundaries all survive", t_many_calls},
	{"fork_child", "a fork child writes nothing, parent unaffected", t_fork_child},
	{"finalize_racing", "finalize while threads record: consistent file", t_finalize_while_recording},
	{"too_deep", "recursion 300 deep recorded; beyond 65536 counted and named", t_too_deep},
	{"signal_handler", "sp_begin/sp_end in a signal handler interrupting the library: "
	 "no deadlock, nesting kept, the handler's calls recorded or counted", t_signal_handler},
	{"signal_handler_counted", "the same with task-clock counted per region: counters "
	 "read in handlers that interrupt the counting", t_signal_handler_counted},
	{"signal_flush", "a signal handler's sp_end runs its thread's periodic flush (the "
	 "trace file's creation): nothing allocated, nothing lost", t_signal_flush},
	{"signal_first_call", "the process's first call made in a signal handler: initialised "
	 "and registered there, nothing allocated, recorded", t_signal_first_call},
	{"version", "version macros and options size check", t_version},
};
TEST_MAIN(cases)
