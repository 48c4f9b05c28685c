// SPDX-License-Identifier: BSD-3-Clause
/* The real executor: capture, exit codes, signals, timeout, env, launch failures. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"

static struct exec_result run_req(struct exec_request *req)
{
	struct executor *x = executor__new_real();
	struct exec_result res;
	struct err e = {0};
	CHECK(x != NULL);
	CHECK_INT(executor__run(x, req, &res, &e), 0);
	executor__free(x);
	return res;
}

static struct exec_result run_sh(const char *script, bool capture)
{
	const char *argv[] = {"sh", "-c", script, NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = capture, .capture_stderr = capture};
	return run_req(&req);
}

static bool all_bytes(const char *p, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c && p[i] != '\n')
			return false;
	return true;
}

static void t_large_capture(void)
{
	/* Both streams well past the 64 KiB pipe buffer, written concurrently:
	 * a reader that drained one stream at a time would deadlock here. */
	struct exec_result r = run_sh("yes o | head -c 3000000 & yes e | head -c 2000000 >&2; wait",
				      true);
	CHECK_INT(r.exit_code, 0);
	CHECK_INT(r.out_len, 3000000);
	CHECK_INT(r.err_len, 2000000);
	CHECK(all_bytes(r.out, r.out_len, 'o'));
	CHECK(all_bytes(r.err, r.err_len, 'e'));
	CHECK(r.out[r.out_len] == '\0');
	exec_result__release(&r);
}

static void t_stdin_roundtrip(void)
{
	size_t n = 1 << 20;
	char *data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	const char *argv[] = {"cat", NULL};
	struct exec_request req = {.argv = argv, .stdin_data = data, .stdin_len = n,
				   .capture_stdout = true, .capture_stderr = true};
	struct exec_result r = run_req(&req);
	CHECK_INT(r.exit_code, 0);
	CHECK_INT(r.out_len, n);
	CHECK(memcmp(r.out, data, n) == 0);
	exec_result__release(&r);
	/* A child that never reads its stdin must not hang us nor SIGPIPE us. */
	const char *argv2[] = {"true", NULL};
	req.argv = argv2;
	r = run_req(&req);
	CHECK_INT(r.exit_code, 0);
	exec_result__release(&r);
	xfree(data);
}

static void t_exit_codes(void)
{
	struct exec_result r = run_sh("echo out; echo err >&2; exit 42", true);
	CHECK_INT(r.exit_code, 42);
	CHECK_INT(r.term_signal, 0);
	CHECK_STR(r.out, "out\n");
	CHECK_STR(r.err, "err\n");
	CHECK(!r.timed_out);
	CHECK(r.duration_s > 0);
	exec_result__release(&r);
}

static void t_signal(void)
{
	struct exec_result r = run_sh("kill -SEGV $$", true);
	CHECK_INT(r.term_signal, SIGSEGV);
	CHECK_INT(r.exit_code, 128 + SIGSEGV);
	exec_result__release(&r);
}

static void t_timeout(void)
{
	const char *argv[] = {"sleep", "20", NULL};
	struct exec_request req = {.argv = argv, .timeout_s = 0.2, .capture_stdout = true};
	struct exec_result r = run_req(&req);
	CHECK(r.timed_out);
	CHECK_INT(r.term_signal, SIGTERM);
	CHECK_INT(r.exit_code, 128 + SIGTERM);
	exec_result__release(&r);
	/* A child ignoring SIGTERM gets SIGKILL after the grace period. */
	const char *argv2[] = {"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done", NULL};
	req.argv = argv2;
	r = run_req(&req);
	CHECK(r.timed_out);
	CHECK_INT(r.term_signal, SIGKILL);
	exec_result__release(&r);
}

static void t_env_cwd(void)
{
	setenv("NUNATAK_TEST_DROP", "x", 1);
	setenv("NUNATAK_TEST_OVER", "old", 1);
	const char *argv[] = {"sh", "-c",
			      "echo \"$FOO:${NUNATAK_TEST_DROP-unset}:$NUNATAK_TEST_OVER:$(pwd)\"", NULL};
	const char *set[] = {"FOO=bar", "NUNATAK_TEST_OVER=new", NULL};
	const char *unset[] = {"NUNATAK_TEST_DROP", NULL};
	struct exec_request req = {.argv = argv, .env_set = set, .env_unset = unset, .cwd = "/",
				   .capture_stdout = true};
	struct exec_result r = run_req(&req);
	CHECK_STR(r.out, "bar:unset:new:/\n");
	exec_result__release(&r);
}

static void t_launch_failures(void)
{
	const char *argv[] = {"nunatak-no-such-program-xyz", NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
	struct exec_result r = run_req(&req);
	CHECK_INT(r.exit_code, EXEC_NOT_FOUND);
	CHECK(r.err && strstr(r.err, "command not found"));
	exec_result__release(&r);
	char dir[] = "/tmp/nunatak-exec-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/noexec.sh", dir);
	FILE *f = fopen(path, "w");
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	chmod(path, 0644);
	const char *argv2[] = {path, NULL};
	req.argv = argv2;
	r = run_req(&req);
	if (geteuid() != 0 || access(path, X_OK) != 0)
		CHECK_INT(r.exit_code, EXEC_NOT_EXECUTABLE);
	exec_result__release(&r);
	const char *argv3[] = {dir, NULL}; /* a directory is not executable */
	req.argv = argv3;
	r = run_req(&req);
	CHECK_INT(r.exit_code, EXEC_NOT_EXECUTABLE);
	exec_result__release(&r);
	unlink(path);
	rmdir(dir);
	xfree(path);
}

static void t_stdout_path(void)
{
	char path[] = "/tmp/nunatak-exec-out-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	const char *argv[] = {"sh", "-c", "yes z | head -c 500000", NULL};
	struct exec_request req = {.argv = argv, .stdout_path = path, .capture_stdout = true};
	struct exec_result r = run_req(&req);
	CHECK_INT(r.exit_code, 0);
	CHECK(r.out == NULL);
	struct stat st;
	CHECK(stat(path, &st) == 0);
	CHECK_INT(st.st_size, 500000);
	exec_result__release(&r);
	unlink(path);
}

static void t_forward_signals(void)
{
	/* The child asks its parent (this test) to be terminated; with forwarding
	 * the SIGTERM goes to the child, whose trap exits 7, and we survive. The
	 * forward reaches the child's own children too (first): its sleep
	 * ignores SIGTERM here so that the shell's `wait` cannot return on the
	 * sleep's death before the trap runs. */
	const char *argv[] = {"sh", "-c",
			      "trap 'kill -9 $!; exit 7' TERM; (trap '' TERM; exec sleep 5) & "
			      "kill -TERM $PPID; wait",
			      NULL};
	struct exec_request req = {.argv = argv, .forward_signals = true, .capture_stdout = true,
				   .capture_stderr = true};
	struct exec_result r = run_req(&req);
	CHECK_INT(r.exit_code, 7);
	/* The handler is restored afterwards: SIGTERM's disposition is default again. */
	struct sigaction sa;
	sigaction(SIGTERM, NULL, &sa);
	CHECK(sa.sa_handler == SIG_DFL);
	exec_result__release(&r);
}

static void t_ignored_stays_ignored(void)
{
	/* nohup-style: SIGHUP ignored in nunatak must stay ignored in the child,
	 * while a forwarded, handled SIGINT is default again after exec. */
	signal(SIGHUP, SIG_IGN);
	const char *argv[] = {"grep", "^SigIgn:", "/proc/self/status", NULL};
	struct exec_request req = {.argv = argv, .forward_signals = true, .capture_stdout = true};
	struct exec_result r = run_req(&req);
	CHECK_INT(r.exit_code, 0);
	unsigned long long mask = strtoull(r.out + strlen("SigIgn:"), NULL, 16);
	CHECK(mask & (1ULL << (SIGHUP - 1)));
	CHECK(!(mask & (1ULL << (SIGINT - 1))));
	exec_result__release(&r);
}

static void t_alloc_failures(void)
{
	const char *argv[] = {"sh", "-c", "yes x | head -c 200000; echo e >&2; exit 5", NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
	int failed = 0;
	for (int n = 1; n < 12; n++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", n);
		setenv("NUNATAK_FAIL_ALLOC", buf, 1);
		alloc_fault_init();
		struct executor *x = executor__new_real();
		struct exec_result r;
		struct err e = {0};
		if (!x) {
			failed++;
			continue;
		}
		int rc = executor__run(x, &req, &r, &e);
		if (rc < 0) {
			CHECK_STR(e.code, "oom");
			failed++;
		} else {
			CHECK_INT(r.exit_code, 5);
			CHECK_INT(r.out_len, 200000);
		}
		exec_result__release(&r);
		executor__free(x);
	}
	setenv("NUNATAK_FAIL_ALLOC", "0", 1);
	alloc_fault_init();
	CHECK(failed > 3);
}

static void t_sigchld_ignored(void)
{
	/* Inherited SIGCHLD=SIG_IGN (auto-reaping) must not lose the exit code. */
	signal(SIGCHLD, SIG_IGN);
	struct exec_result r = run_sh("exit 9", true);
	CHECK_INT(r.exit_code, 9);
	exec_result__release(&r);
	struct sigaction sa;
	sigaction(SIGCHLD, NULL, &sa);
	CHECK(sa.sa_handler == SIG_IGN); /* restored */
}

static void t_which(void)
{
	char *p = NULL;
	CHECK_INT(exec_which("sh", &p), 0);
	CHECK(p && p[0] == '/');
	xfree(p);
	CHECK_INT(exec_which("nunatak-no-such-program-xyz", &p), -ENOENT);
	CHECK(p == NULL);
	CHECK_INT(exec_which_in("sh", "/nonexistent", &p), -ENOENT);
	CHECK_INT(exec_which("/bin/sh", &p), 0);
	xfree(p);
	CHECK_STR(exec_basename("/usr/bin/perf"), "perf");
	CHECK_STR(exec_basename("perf"), "perf");
}

/* A PATH entry we may not search (another user's 0700 home) is skipped,
 * as the shells do, not taken for "present but not executable" (126): the
 * lookup goes on to /bin, and a program found nowhere is absent (127). Checked as an ordinary user (nobody when root:
 * root searches every directory). */
static void t_which_unsearchable(void)
{
	char dir[] = "/tmp/nunatak-which-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(chmod(dir, 0), 0);
	char *path = xasprintf("%s:/bin:/usr/bin", dir);
	pid_t pid = fork();
	if (pid == 0) {
		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		char *p = NULL;
		int rc = exec_which_in("sh", path, &p);
		if (rc != 0 || !p || strcmp(p + strlen(p) - 3, "/sh") != 0)
			_exit(1);
		/* found nowhere: absent (127), not "not executable" (126) */
		_exit(exec_which_in("nunatak-no-such-program-xyz", path, &p) == -ENOENT ? 0 : 2);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	xfree(path);
	rmdir(dir);
}

/* executor__run_batch on the real executor: every result in its own slot
 * (large outputs, stdin, exit codes, a missing program, a timeout), and the
 * children really overlap: two that each wait on a FIFO the other opens only
 * finish when both run at once (a sequential batch would end the writer by its timeout). */
static void t_batch(void)
{
	size_t n = 300000;
	char *data = xmalloc(n + 1);
	memset(data, 'i', n);
	data[n] = '\0';
	char dir[] = "/tmp/nunatak-batch-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *fifo = xasprintf("%s/f", dir);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	char *w = xasprintf("echo hi > '%s'", fifo), *r = xasprintf("cat '%s'", fifo);
	const char *a0[] = {"sh", "-c", "yes o | head -c 500000; exit 4", NULL};
	const char *a1[] = {"cat", NULL};
	const char *a2[] = {"nunatak-no-such-tool", NULL};
	const char *a3[] = {"sh", "-c", w, NULL};
	const char *a4[] = {"sh", "-c", r, NULL};
	struct exec_request rq[5] = {
		{.argv = a0, .capture_stdout = true, .capture_stderr = true},
		{.argv = a1, .capture_stdout = true, .capture_stderr = true, .stdin_data = data,
		 .stdin_len = n},
		{.argv = a2, .capture_stdout = true, .capture_stderr = true},
		{.argv = a3, .capture_stdout = true, .capture_stderr = true, .timeout_s = 10},
		{.argv = a4, .capture_stdout = true, .capture_stderr = true, .timeout_s = 10},
	};
	struct exec_result res[5];
	struct executor *x = executor__new_real();
	struct err e = {0};
	CHECK_INT(executor__run_batch(x, rq, 5, res, &e), 0);
	CHECK_INT(res[0].exit_code, 4);
	CHECK_INT(res[0].out_len, 500000);
	CHECK_INT(res[1].exit_code, 0);
	CHECK_INT(res[1].out_len, n);
	CHECK(res[1].out && memcmp(res[1].out, data, n) == 0);
	CHECK_INT(res[2].exit_code, EXEC_NOT_FOUND);
	CHECK(!res[3].timed_out && !res[4].timed_out);
	CHECK_INT(res[3].exit_code, 0);
	CHECK_STR(res[4].out, "hi\n");
	for (int i = 0; i < 5; i++)
		exec_result__release(&res[i]);
	CHECK_INT(executor__run_batch(x, rq, 0, res, &e), 0); /* empty batch */
	executor__free(x);
	unlink(fifo);
	rmdir(dir);
	xfree(fifo);
	xfree(w);
	xfree(r);
	xfree(data);
}

/* ---- exec_isolate: a call in a bounded child ---- */

static int iso_answer(void *arg, int fd)
{
	const char *msg = arg;
	size_t n = strlen(msg);
	for (int i = 0; i < 1000; i++) /* more than a pipe holds: read as it comes */
		if (write(fd, msg, n) != (ssize_t)n)
			return 9;
	return 3;
}

static int iso_crash(void *arg, int fd)
{
	(void)arg;
	if (write(fd, "partial", 7) != 7)
		return 9;
	raise(SIGSEGV);
	return 0;
}

static int iso_spin(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	for (volatile unsigned long i = 0;; i++)
		;
	return 0;
}

static int iso_sleep(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	for (;;)
		pause();
	return 0;
}

static int iso_greedy(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	size_t n = (size_t)1 << 30; /* beyond the child's 64 MiB: refused */
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 12;
	munmap(p, n);
	return 0;
}

static void t_isolate(void)
{
	struct exec_bounds b = {.cpu_s = 60, .wall_s = 600};
	struct exec_isolated x;
	struct err e = {0};
	const char *msg = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";
	CHECK_INT(exec_isolate(iso_answer, (void *)msg, &b, &x, &e), 0);
	CHECK_INT(x.exit_code, 3);
	CHECK_INT(x.term_signal, 0);
	CHECK(!x.timed_out && !x.cpu_exceeded && !x.out_cut);
	CHECK_INT((long long)x.out_len, 1000LL * (long long)strlen(msg));
	CHECK(x.out && memcmp(x.out, msg, strlen(msg)) == 0);
	exec_isolated__release(&x);

	/* a crash is an outcome, with what came before it */
	CHECK_INT(exec_isolate(iso_crash, NULL, &b, &x, &e), 0);
	CHECK_INT(x.term_signal, SIGSEGV);
	CHECK(!x.timed_out && !x.cpu_exceeded);
	CHECK(x.out && x.out_len == 7 && memcmp(x.out, "partial", 7) == 0);
	exec_isolated__release(&x);

	/* more output than allowed: killed */
	struct exec_bounds small = {.cpu_s = 60, .wall_s = 600, .out_max = 4096};
	CHECK_INT(exec_isolate(iso_answer, (void *)msg, &small, &x, &e), 0);
	CHECK(x.out_cut); /* (it may have ended before the kill) */
	exec_isolated__release(&x);

	/* memory beyond the bound is refused to the child, not to us */
	struct exec_bounds mem = {.cpu_s = 60, .wall_s = 600, .mem_bytes = (size_t)64 << 20};
	CHECK_INT(exec_isolate(iso_greedy, NULL, &mem, &x, &e), 0);
	CHECK_INT(x.exit_code, 12);
	exec_isolated__release(&x);
}

static void t_isolate_bounds(void)
{
	struct exec_isolated x;
	struct err e = {0};
	/* a loop is stopped by its CPU time (whatever the machine's load) */
	struct exec_bounds cpu = {.cpu_s = 1, .wall_s = 900};
	CHECK_INT(exec_isolate(iso_spin, NULL, &cpu, &x, &e), 0);
	CHECK(x.cpu_exceeded);
	CHECK(!x.timed_out);
	CHECK(x.term_signal == SIGXCPU || x.term_signal == SIGKILL);
	CHECK(x.cpu_s >= 0.5); /* the kernel's tick accounting: 0.83 s seen */
	exec_isolated__release(&x);
	/* a wait is stopped by the wall clock */
	struct exec_bounds wall = {.cpu_s = 60, .wall_s = 1};
	CHECK_INT(exec_isolate(iso_sleep, NULL, &wall, &x, &e), 0);
	CHECK(x.timed_out);
	CHECK(!x.cpu_exceeded);
	CHECK_INT(x.term_signal, SIGKILL);
	exec_isolated__release(&x);
}

static const struct test_case cases[] = {
	{"isolate", "exec_isolate: output streamed back, a crash, too much output and memory "
	 "are outcomes of the child", t_isolate},
	{"isolate_bounds", "exec_isolate: a loop stopped by CPU time, a wait by wall time",
	 t_isolate_bounds},
	{"large_capture", "3 MB stdout + 2 MB stderr captured without deadlock", t_large_capture},
	{"stdin", "1 MiB stdin fed while stdout drains; unread stdin is harmless",
	 t_stdin_roundtrip},
	{"exit_codes", "exit code and both streams captured", t_exit_codes},
	{"signal", "a child killed by signal N gives 128+N and term_signal", t_signal},
	{"timeout", "timeout sends SIGTERM, then SIGKILL after the grace", t_timeout},
	{"env_cwd", "env set/override/unset and cwd reach the child", t_env_cwd},
	{"launch_failures", "missing -> 127, not executable -> 126", t_launch_failures},
	{"stdout_path", "stdout_path receives a large output", t_stdout_path},
	{"forward_signals", "SIGTERM sent to us is forwarded to the child", t_forward_signals},
	{"ignored_signals", "a signal ignored by nunatak stays ignored in the child",
	 t_ignored_stays_ignored},
	{"alloc_failures", "a failed allocation is an oom error, the child reaped",
	 t_alloc_failures},
	{"sigchld_ignored", "an inherited SIGCHLD=SIG_IGN does not lose exit codes",
	 t_sigchld_ignored},
	{"which", "PATH lookup", t_which},
	{"which_unsearchable", "a PATH entry we may not search is skipped", t_which_unsearchable},
	{"batch", "a batch runs concurrently, each result in its slot", t_batch},
};

TEST_MAIN(cases)
