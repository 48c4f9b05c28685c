/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the executors inside src/exec/ only. */
#ifndef NUNATAK_EXEC_EXEC_INTERNAL_H
#define NUNATAK_EXEC_EXEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads a whole file into a fresh NUL-terminated buffer (caller frees).
 * Returns 0 or -errno. */
int exec_read_file(const char *path, char **out, size_t *len);
/* Writes len bytes to path (created/truncated). Returns 0 or -errno. */
int exec_write_file(const char *path, const char *data, size_t len);

/* SIGKILL to root and every descendant /proc shows (exec/tree.c). */
void exec_kill_tree(pid_t root);
/* A child of this process other than `except` (an orphan reparented to
 * us), or -1 (exec/tree.c). */
pid_t exec_find_child(pid_t except);

/* The earliest-started zombie child of ours whose command name is `comm`
 * (at most 15 characters, as the kernel keeps it), or -1. */
pid_t exec_find_zombie(const char *comm);
/* sig to root's descendants, deepest first, then to root (exec/tree.c). */
void exec_signal_tree(pid_t root, int sig, bool outside_only, int ranks);
bool exec_is_nunatak(pid_t pid);
/* Whether a descendant of root (not root) is in process group `group`. */
bool exec_tree_in_group(pid_t root, pid_t group);
/* sig to root's descendants but root, deepest first, collectors (perf
 * running `nunatak fg-exec`) left out (exec/tree.c). */
void exec_signal_below(pid_t root, int sig);
/* Our live (not zombie) children now: after the application was reaped,
 * what it left running and we adopted as its subreaper. The first one's pid
 * and name into *first, comm. */
int exec_survivors(pid_t *first, char comm[16]);

/* The rank shim's split (exec_rank_split, exec/split.c): the waiting half's
 * handlers for SIGINT/SIGTERM/SIGHUP/SIGQUIT armed and restored (old[NR_SPLIT]), and its
 * wait for the writer, ending as the writer ended (never returns). */
#define NR_SPLIT 4
struct sigaction;
void exec_split_arm(struct sigaction *old);
void exec_split_disarm(const struct sigaction *old);
void exec_split_wait(pid_t writer, pid_t group) __attribute__((noreturn));

/* Merging a batch's per-line calls (exec.h merge_slot; exec/merge.c). */
struct exec_request;
struct exec_result;
struct err;
typedef int (*exec_batch_fn)(const struct exec_request *reqs, size_t n, struct exec_result *res,
			     struct err *e);
/* Runs reqs[0..n) through run as run_batch would, calls that may merge as
 * one process each group; res[i] as if each had run alone. */
int exec_merged_batch(const struct exec_request *reqs, size_t n, struct exec_result *res,
		      struct err *e, exec_batch_fn run);

#endif
