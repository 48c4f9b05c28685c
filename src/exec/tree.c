// SPDX-License-Identifier: BSD-3-Clause
/* A child's process tree, killed when the user stopped waiting for it (a
 * second Ctrl-C while `nunatak run` waits for the application). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "exec/exec.h"
#include "exec/exec_internal.h"

/* The parent pid of `pid` from /proc/<pid>/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *rp = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
	int ppid = -1;
	return rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : -1;
}

enum { MAX_TREE = 4096 };

/* root and its descendants as /proc shows them now, parents before their
 * children, into tree[0..return). With stop, each is stopped as it is found
 * (a stopped process neither forks nor loses its children to init). */
static size_t find_tree(pid_t root, pid_t *tree, bool stop)
{
	size_t n = 0;
	DIR *d = opendir("/proc");
	if (stop)
		kill(root, SIGSTOP);
	tree[n++] = root;
	for (bool grew = d != NULL; grew && n < MAX_TREE;) {
		grew = false;
		rewinddir(d);
		for (struct dirent *de; (de = readdir(d)) && n < MAX_TREE;) {
			pid_t pid = (pid_t)atoi(de->d_name), pp;
			if (pid <= 0 || (pp = parent_of(pid)) <= 0)
				continue;
			bool known = false, child = false;
			for (size_t i = 0; i < n; i++) {
				known = known || tree[i] == pid;
				child = child || tree[i] == pp;
			}
			if (child && !known) {
				if (stop)
					kill(pid, SIGSTOP);
				tree[n++] = pid;
				grew = true;
			}
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* SIGKILL to `root` and every descendant (the application under perf, the
 * ranks under mpirun): a second interrupt means the user stopped waiting.
 * Bounded: a fork storm cannot keep us here. */
void exec_kill_tree(pid_t root)
{
	pid_t *tree = xcalloc(MAX_TREE, sizeof(*tree));
	if (!tree) {
		kill(root, SIGKILL);
		return;
	}
	size_t n = find_tree(root, tree, true);
	for (size_t i = 0; i < n; i++)
		kill(tree[i], SIGKILL);
	xfree(tree);
}

enum role { ROLE_OTHER, ROLE_COLLECTOR, ROLE_RANK_SHIM };

/* `rank-shim --status-file` before its `--`: perf stat's relay in a rank. */
static bool relay_argv(const char *a, const char *end)
{
	for (; a < end && strcmp(a, "--") != 0; a += strlen(a) + 1)
		if (strcmp(a, "--status-file") == 0)
			return true;
	return false;
}

/* What `pid` is to us, from its argv: a collector running the application
 * through `nunatak fg-exec` (collect_fg_argv: our executable followed by
 * "fg-exec" past argv[0]) or a rank's relay (perf stat: our executable
 * followed by "rank-shim" past argv[0]), a rank's `nunatak rank-shim`, or
 * anything else.
 * `self` is /proc/self/exe's target. */
static enum role role_of(pid_t pid, const char *self)
{
	char path[64], buf[16384];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ROLE_OTHER;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return ROLE_OTHER;
	buf[n] = '\0';
	for (const char *a = buf, *end = buf + n; a < end; a += strlen(a) + 1) {
		const char *next = a + strlen(a) + 1;
		if (next >= end || strcmp(a, self) != 0)
			continue;
		/* perf record running fg-exec, perf stat running a rank's relay */
		if ((strcmp(next, "fg-exec") == 0 || strcmp(next, "rank-shim") == 0) && a != buf)
			return ROLE_COLLECTOR;
		if (strcmp(next, "rank-shim") == 0 && a == buf)
			return relay_argv(next, end) ? ROLE_OTHER : ROLE_RANK_SHIM;
	}
	return ROLE_OTHER;
}

/* A rank's shim as its launcher started it: not the writer half of a split
 * shim (exec_rank_split: its parent is the shim), nor perf stat's relay. */
static bool launched_shim(pid_t pid, const char *self)
{
	return role_of(pid, self) == ROLE_RANK_SHIM && role_of(parent_of(pid), self) != ROLE_RANK_SHIM;
}

/* `sig` to root and its descendants, the deepest first, as a terminal's
 * Ctrl-C reaches its foreground group: the application under perf and the
 * ranks under a local mpirun get the very signal (mpirun, signalled first,
 * would SIGKILL ranks it had not yet told). Collectors are left out: perf,
 * signalled, would SIGTERM the application and end by the signal itself,
 * hiding the application's own status; it ends when the application does.
 * With outside_only (the terminal's Ctrl-C already reached our process
 * group), only the processes outside our group get it: the application
 * should `fg-exec` have failed to join ours; never another session's (a
 * daemon that detached itself); nothing under an MPI launcher in our group,
 * which got it too and signals its ranks as it does bare. */
void exec_signal_tree(pid_t root, int sig, bool outside_only, int ranks)
{
	pid_t *tree = xcalloc(MAX_TREE, sizeof(*tree));
	size_t n = tree ? find_tree(root, tree, false) : 0;
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[sl > 0 ? sl : 0] = '\0';
	pid_t group = getpgrp(), session = getsid(0);
	if (!tree)
		tree = &root, n = 1;
	/* A terminal's Ctrl-C reached an MPI launcher in our group too: it does
	 * what it does bare (Open MPI's mpirun kills the job, MPICH's sends the
	 * ranks SIGINT); the ranks get what it sends them, nothing of ours. */
	if (outside_only && ranks > 0 && getpgid(root) == group)
		n = 0;
	int shims = 0;
	for (size_t i = n; i-- > 0;) {
		pid_t p = tree[i];
		enum role r = sl > 0 ? role_of(p, self) : ROLE_OTHER;
		shims += r == ROLE_RANK_SHIM && launched_shim(p, self);
		if (r == ROLE_COLLECTOR)
			continue;
		if (outside_only && (getpgid(p) == group || getsid(p) != session))
			continue;
		/* Every rank of the launch runs here, below the launcher, and has
		 * the signal: the launcher would only SIGKILL the ranks' shims
		 * while they write their data; it ends when they do. */
		if (p == root && i == 0 && ranks > 0 && shims >= ranks)
			continue;
		kill(p, sig);
	}
	if (tree != &root)
		xfree(tree);
}

bool exec_tree_in_group(pid_t root, pid_t group)
{
	pid_t *tree = xcalloc(MAX_TREE, sizeof(*tree));
	size_t n = tree ? find_tree(root, tree, false) : 0;
	bool found = false;
	for (size_t i = 1; i < n && !found; i++)
		found = getpgid(tree[i]) == group;
	xfree(tree);
	return found;
}

void exec_signal_below(pid_t root, int sig)
{
	pid_t *tree = xcalloc(MAX_TREE, sizeof(*tree));
	size_t n = tree ? find_tree(root, tree, false) : 0;
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[sl > 0 ? sl : 0] = '\0';
	for (size_t i = n; i-- > 1;)
		if (sl <= 0 || role_of(tree[i], self) != ROLE_COLLECTOR)
			kill(tree[i], sig);
	xfree(tree);
}

/* Whether `pid` runs the same program as this process: another nunatak (the
 * `nunatak run` above a rank's shim), which signals its whole tree itself. */
bool exec_is_nunatak(pid_t pid)
{
	char path[64], mine[4096], theirs[4096];
	ssize_t a = readlink("/proc/self/exe", mine, sizeof(mine) - 1);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t b = pid > 0 ? readlink(path, theirs, sizeof(theirs) - 1) : -1;
	return a > 0 && a == b && memcmp(mine, theirs, (size_t)a) == 0;
}

void exec_signal_children(int sig)
{
	/* Async-signal-safe calls only: no snprintf, no allocation, no stdio. */
	char path[64] = "/proc/self/task/", digits[24], buf[4096];
	size_t at = strlen(path), k = 0;
	for (pid_t p = getpid(); p > 0 && k < sizeof(digits); p /= 10)
		digits[k++] = (char)('0' + p % 10);
	while (k && at < sizeof(path) - 12)
		path[at++] = digits[--k];
	memcpy(path + at, "/children", 10);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	pid_t pid = 0;
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] >= '0' && buf[i] <= '9') {
			pid = pid * 10 + (buf[i] - '0');
			continue;
		}
		if (pid > 0)
			kill(pid, sig);
		pid = 0;
	}
	if (pid > 0)
		kill(pid, sig);
}

/* The state letter and start time (clock ticks since boot) of `pid` from
 * /proc/<pid>/stat, its command name into comm[16]; false when gone. */
static bool stat_of(pid_t pid, char *state, unsigned long long *start, char comm[16])
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return false;
	size_t len = (size_t)(rp - lp - 1);
	len = len > 15 ? 15 : len;
	memcpy(comm, lp + 1, len);
	comm[len] = '\0';
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime (field 22) */
	return sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			      "%*d %*d %*d %*d %llu",
		      state, start) == 2;
}

/* This process's children: one pid per call of next() (0 at the end), from
 * the kernel's own lists (/proc/self/task/<tid>/children, every thread's: a
 * child forked by a thread, or an orphan given to this subreaper, is listed
 * under one thread) when it keeps them (CONFIG_PROC_CHILDREN), else by the
 * parent field of every process in /proc. The lists cost a few reads where
 * the scan opens every process of the node (1-2 ms for ~130 here, more on
 * a busy node), twice at each rank's end and once after the launcher
 * (issue 27). */
struct children {
	DIR *d;          /* /proc (the scan) */
	pid_t *list;     /* the kernel's lists, when read */
	size_t n, at;
	bool listed;
};

static void add_child(struct children *c, const char *word, size_t *cap)
{
	pid_t pid = (pid_t)atoi(word);
	if (pid > 0 && xgrow((void **)&c->list, cap, c->n + 1, sizeof(*c->list)) == 0)
		c->list[c->n++] = pid;
}

/* Appends the pids of one "children" file ("<pid> <pid> ... "). */
static void read_children(struct children *c, const char *path, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[4096];
	size_t have = 0; /* the start of a pid cut by the end of the last read */
	for (ssize_t r; (r = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0;) {
		size_t len = have + (size_t)r;
		char *p = buf, *q;
		buf[len] = '\0';
		for (; (q = strchr(p, ' ')); p = q + 1)
			add_child(c, p, cap);
		have = len - (size_t)(p - buf);
		memmove(buf, p, have);
	}
	buf[have] = '\0';
	if (have)
		add_child(c, buf, cap);
	close(fd);
}

static void children__open(struct children *c)
{
	memset(c, 0, sizeof(*c));
	DIR *t = access("/proc/thread-self/children", R_OK) == 0 ? opendir("/proc/self/task") : NULL;
	size_t cap = 0;
	for (struct dirent *de; t && (de = readdir(t));) {
		char path[96];
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/proc/self/task/%.32s/children", de->d_name);
			read_children(c, path, &cap); /* a thread gone meanwhile: none */
		}
	}
	if (t) {
		closedir(t);
		c->listed = true;
	} else {
		c->d = opendir("/proc");
	}
}

static pid_t children__next(struct children *c)
{
	if (c->listed)
		return c->at < c->n ? c->list[c->at++] : 0;
	pid_t self = getpid();
	for (struct dirent *de; c->d && (de = readdir(c->d));) {
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid > 0 && parent_of(pid) == self)
			return pid;
	}
	return 0;
}

static void children__close(struct children *c)
{
	if (c->d)
		closedir(c->d);
	xfree(c->list);
	memset(c, 0, sizeof(*c));
}

pid_t exec_find_zombie(const char *comm)
{
	pid_t found = -1;
	unsigned long long first = 0;
	struct children ch;
	children__open(&ch);
	for (pid_t pid; (pid = children__next(&ch)) > 0;) {
		char state = 0, name[16];
		unsigned long long start = 0;
		if (!stat_of(pid, &state, &start, name))
			continue;
		if (state == 'Z' && strcmp(name, comm) == 0 && (found < 0 || start < first))
			found = pid, first = start;
	}
	children__close(&ch);
	return found;
}

pid_t exec_find_child(pid_t except)
{
	pid_t found = -1;
	struct children ch;
	children__open(&ch);
	for (pid_t pid; found < 0 && (pid = children__next(&ch)) > 0;)
		if (pid != except)
			found = pid;
	children__close(&ch);
	return found;
}

int exec_survivors(pid_t *first, char comm[16])
{
	int n = 0;
	struct children ch;
	comm[0] = '\0';
	*first = -1;
	children__open(&ch);
	for (pid_t pid; (pid = children__next(&ch)) > 0;) {
		char state = 0, c[16];
		unsigned long long start = 0;
		if (!stat_of(pid, &state, &start, c) || state == 'Z')
			continue;
		if (n++ == 0) {
			*first = pid;
			memcpy(comm, c, 16);
		}
	}
	children__close(&ch);
	return n;
}

