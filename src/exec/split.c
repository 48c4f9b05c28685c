// SPDX-License-Identifier: BSD-3-Clause
/* A rank's shim in two processes (exec_rank_split). The launcher knows the
 * shim's pid and, on an interrupt, signals that pid's process group: Open
 * MPI's mpirun sends SIGCONT, SIGTERM a second later and SIGKILL about a
 * millisecond after that; MPICH's sends SIGINT. The application must get
 * exactly that (it does bare), but the shim's collection must survive it
 * long enough to finish perf's data and write rank.json. So the pid the
 * launcher knows stays in its group, with the application, and only waits;
 * the writer (perf, rank.json) runs in a process group of its own, beyond
 * the launcher's reach, and holds a shared lock `nunatak run` waits on
 * after the launcher ended (exec_request.writers_lock). The fork itself is
 * in exec/proc.c (exec_rank_split), the only file that creates processes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/exec_internal.h"

static const int split_signals[NR_SPLIT] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static volatile sig_atomic_t split_sig;
static volatile sig_atomic_t split_from;

static void split_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	split_sig = sig;
	split_from = si && (si->si_code == SI_USER || si->si_code == SI_QUEUE) ? si->si_pid : 0;
}

/* The launcher's side: waits for the writer and ends as it ended. A signal
 * reaches the application itself when it shares our group (the launcher
 * signals the group) or comes from a `nunatak run` (which signals every
 * process of the launch); otherwise it is passed on below the writer. */
void exec_split_wait(pid_t writer, pid_t group)
{
	int status = 0;
	for (;;) {
		pid_t r = waitpid(writer, &status, 0);
		if (r == writer)
			break;
		if (r < 0 && errno != EINTR)
			_exit(1);
		int sig = split_sig;
		pid_t from = (pid_t)split_from;
		split_sig = 0;
		if (sig && !(from > 0 && exec_is_nunatak(from)) &&
		    !exec_tree_in_group(writer, group))
			exec_signal_below(writer, sig);
	}
	if (WIFSIGNALED(status)) {
		/* no core of ours beside the application's */
		setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
		signal(WTERMSIG(status), SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		raise(WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

void exec_split_arm(struct sigaction *old)
{
	struct sigaction sa = {.sa_sigaction = split_handler, .sa_flags = SA_SIGINFO};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_SPLIT; i++)
		sigaction(split_signals[i], &sa, &old[i]);
}

void exec_split_disarm(const struct sigaction *old)
{
	for (size_t i = 0; i < NR_SPLIT; i++)
		sigaction(split_signals[i], &old[i], NULL);
}
