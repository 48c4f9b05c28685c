// SPDX-License-Identifier: BSD-3-Clause
/* This process's children as exec/tree.c finds them (the survivors an
 * application left, perf's zombie application, an adopted orphan): from the
 * kernel's per-thread children lists, or the /proc scan where the kernel has
 * none. A child forked by another thread counts, zombies are told apart, and
 * a list longer than one read (over 4 KB of pids) loses nobody. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/exec_internal.h"
#include "harness.h"

/* A child blocked until its pipe closes (our end stays open until reap). */
static pid_t sleeper(int fd_read, int fd_write)
{
	pid_t pid = fork();
	if (pid == 0) {
		close(fd_write);
		char c;
		while (read(fd_read, &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	return pid;
}

/* A child that ends at once, under `name`, left unreaped: a zombie. */
static pid_t zombie(const char *name)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		_exit(3);
	}
	return pid;
}

/* Waits until pid is a zombie (it ended, we have not reaped it). */
static void until_zombie(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	CHECK_INT(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

struct thread_fork {
	int fd_read, fd_write;
	pid_t pid;
};

static void *fork_from_thread(void *arg)
{
	struct thread_fork *t = arg;
	t->pid = sleeper(t->fd_read, t->fd_write);
	return NULL;
}

static void t_kinds(void)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	pid_t live = sleeper(p[0], p[1]);
	CHECK(live > 0);
	pid_t z = zombie("ntk-zombie");
	CHECK(z > 0);
	until_zombie(z);
	/* a child of another thread is this process's child too */
	struct thread_fork tf = {p[0], p[1], -1};
	pthread_t th;
	CHECK_INT(pthread_create(&th, NULL, fork_from_thread, &tf), 0);
	pthread_join(th, NULL);
	CHECK(tf.pid > 0);
	pid_t first = -1;
	char comm[16];
	CHECK_INT(exec_survivors(&first, comm), 2); /* the two live ones, not the zombie */
	CHECK(first == live || first == tf.pid);
	CHECK_INT(exec_find_zombie("ntk-zombie"), z);
	CHECK_INT(exec_find_zombie("ntk-other"), -1);
	pid_t other = exec_find_child(live);
	CHECK(other > 0 && other != live);
	close(p[1]); /* the sleepers end */
	close(p[0]);
	reap_all();
	CHECK_INT(exec_survivors(&first, comm), 0);
	CHECK_INT(exec_find_child(-1), -1);
}

static void t_long_list(void)
{
	/* 1200 zombies first: their pids alone take more than one 4 KB read of
	 * a children list; the one live child comes last */
	enum { N = 1200 };
	static pid_t z[N];
	for (int i = 0; i < N; i++) {
		z[i] = zombie("ntk-many");
		if (z[i] < 0) {
			reap_all();
			SKIP("cannot fork 1200 children here (ulimit -u)");
		}
	}
	for (int i = 0; i < N; i++) /* each has ended (a live one would be a survivor) */
		until_zombie(z[i]);
	int p[2];
	CHECK_INT(pipe(p), 0);
	pid_t live = sleeper(p[0], p[1]);
	CHECK(live > 0);
	pid_t first = -1;
	char comm[16];
	CHECK_INT(exec_survivors(&first, comm), 1);
	CHECK_INT(first, live);
	CHECK(exec_find_zombie("ntk-many") > 0);
	close(p[1]);
	close(p[0]);
	reap_all();
}

static const struct test_case cases[] = {
	{"kinds", "live children (one forked by another thread) are survivors, a zombie is "
		  "found by name", t_kinds},
	{"long_list", "a live child after 1200 zombies is still found", t_long_list},
};
TEST_MAIN(cases)
