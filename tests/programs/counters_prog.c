/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test program of counters per region, driven by tests/e2e/lib_counters.sh
 * (events from SCOPE_PROFILER_EVENTS, or from argv[2] through sp_set_events):
 *   counters_prog faults [EVENTS]  region "touch" writes one byte to each of
 *                                  4096 fresh pages (no huge pages)
 *   counters_prog burn [EVENTS]    region "burn" runs 0.3 s of its thread's
 *                                  CPU time; prints "cpu_ns N", the region's
 *                                  CPU time measured by the thread's clock,
 *                                  and "task_clock_ns N", the thread's
 *                                  task-clock read by the program itself
 *                                  around the region (a wider window)
 *   counters_prog nested [EVENTS]  "outer" touches 50 pages and holds
 *                                  "inner_a" (100 pages) and "inner_b" (200)
 *   counters_prog threads [EVENTS] two threads each run region "work",
 *                                  touching 300 and 700 pages
 *   counters_prog late EVENTS      region "touch" (4096 pages), then
 *                                  sp_set_events(EVENTS): refused, printed
 * Prints "done" and exits 0 whatever the events' availability.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

/* Fresh pages: each first write faults once (huge pages off, so 4 KiB
 * pages fault one by one). Not instrumented under ASan, whose check of
 * each write would touch a shadow page per 8 pages and fault too. */
__attribute__((no_sanitize_address)) static void touch_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		((volatile unsigned char *)p)[i * page] = 1;
	munmap(p, n * page);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The calling thread's task-clock, opened by the program itself (not
 * through the library): user space only where perf_event_paranoid asks it,
 * as the library does. -errno when it cannot be opened. */
static int own_task_clock(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	for (int user_only = 0; user_only < 2; user_only++) {
		a.exclude_kernel = a.exclude_hv = (unsigned)user_only;
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return (int)fd;
		if (errno != EACCES && errno != EPERM)
			break;
	}
	return -errno;
}

static uint64_t read_counter(int fd)
{
	uint64_t v = 0;
	if (fd >= 0 && read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	return v;
}

static void burn(void)
{
	const struct sp_site *r = sp_region("burn");
	volatile uint64_t x = 1;
	int tc = own_task_clock();
	uint64_t tc0 = read_counter(tc);
	int64_t t0 = thread_cpu_ns(), t1;
	sp_begin(r);
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1;
		t1 = thread_cpu_ns();
	} while (t1 - t0 < 300000000);
	sp_end(r);
	/* The region's CPU time as the thread's clock saw it, the reference
	 * task-clock is compared with (not the program's speed). */
	t1 = thread_cpu_ns();
	uint64_t tc1 = read_counter(tc);
	printf("cpu_ns %lld\n", (long long)(t1 - t0));
	/* The same kernel clock as the library's task-clock, over a window
	 * that holds the region's: in a virtual machine task-clock also
	 * counts the time the hypervisor took from the thread's CPU (steal),
	 * which the thread's CPU clock leaves out. */
	if (tc >= 0)
		printf("task_clock_ns %llu\n", (unsigned long long)(tc1 - tc0));
	else
		printf("task_clock_ns unavailable: %s\n", strerror(-tc));
	if (tc >= 0)
		close(tc);
}

static void nested(void)
{
	const struct sp_site *o = sp_region("outer"), *a = sp_region("inner_a"),
			     *b = sp_region("inner_b");
	sp_begin(o);
	touch_pages(50);
	sp_begin(a);
	touch_pages(100);
	sp_end(a);
	sp_begin(b);
	touch_pages(200);
	sp_end(b);
	sp_end(o);
}

static void *worker(void *arg)
{
	const struct sp_site *w = sp_region("work");
	sp_begin(w);
	touch_pages((size_t)(uintptr_t)arg);
	sp_end(w);
	return NULL;
}

static void threads(void)
{
	pthread_t th[2];
	pthread_create(&th[0], NULL, worker, (void *)(uintptr_t)300);
	pthread_join(th[0], NULL);
	pthread_create(&th[1], NULL, worker, (void *)(uintptr_t)700);
	pthread_join(th[1], NULL);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (argc > 2 && strcmp(argv[1], "late") != 0) {
		int rc = sp_set_events(argv[2]);
		printf("sp_set_events %d\n", rc);
	}
	if (!strcmp(argv[1], "faults")) {
		const struct sp_site *r = sp_region("touch");
		sp_begin(r);
		touch_pages(4096);
		sp_end(r);
	} else if (!strcmp(argv[1], "burn")) {
		burn();
	} else if (!strcmp(argv[1], "nested")) {
		nested();
	} else if (!strcmp(argv[1], "threads")) {
		threads();
	} else if (!strcmp(argv[1], "late") && argc > 2) {
		const struct sp_site *r = sp_region("touch");
		sp_begin(r);
		touch_pages(4096);
		sp_end(r);
		printf("sp_set_events %d\n", sp_set_events(argv[2]));
	} else {
		return 2;
	}
	sp_finalize();
	printf("done\n");
	return 0;
}
