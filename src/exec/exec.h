/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The execution boundary. Only src/exec/ may fork, exec, posix_spawn, popen or
 * system (a CI grep enforces it). Every external process nunatak starts goes
 * through an executor, which has three implementations behind this interface:
 *
 *  - real:      posix_spawn, stdout/stderr captured or passed through,
 *               environment edits, cwd, timeout, signal forwarding;
 *  - recording: wraps another executor and writes each invocation into a
 *               corpus entry (entry/meta.json, invocations/NNN.{json,stdout,stderr});
 *  - replay:    serves a corpus entry's invocations, one FIFO queue per program
 *               base name (argv[0]'s basename); an unrecorded program answers 127.
 *
 * The layout is exactly that of tests/corpus/recordings/ (see tests/corpus/README.md).
 */
#ifndef NUNATAK_EXEC_EXEC_H
#define NUNATAK_EXEC_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct err;
typedef struct json_t json_t;

/* Exit codes reserved by POSIX shells and by nunatak for a launch failure. */
#define EXEC_NOT_FOUND 127
#define EXEC_NOT_EXECUTABLE 126

struct exec_request {
	const char *const *argv;    /* NULL-terminated; argv[0] is a name (PATH) or a path */
	const char *const *env_set; /* NULL-terminated "K=V" to add or override, or NULL */
	const char *const *env_unset; /* NULL-terminated names to remove, or NULL */
	const char *cwd;             /* NULL: inherit */
	const char *stdin_data;      /* fed to the child's stdin, or NULL (inherit) */
	size_t stdin_len;
	bool capture_stdout;         /* false: the child writes to our stdout */
	bool capture_stderr;         /* false: the child writes to our stderr */
	const char *stdout_path;     /* non-NULL: stdout goes to this file (large outputs) */
	double timeout_s;            /* 0: none; on expiry SIGTERM, then SIGKILL after 2 s */
	bool forward_signals;        /* forward SIGINT/SIGTERM/SIGHUP/SIGQUIT to the child while
					waiting; a second one kills the child's process tree
					(see exec_result.abandoned) */
	bool application;            /* this is the user's application: never captured,
					recorded with captured=false */
	bool wrapper;                /* with forward_signals: argv[0] runs the application as
					its child (perf record): if it dies by a signal, the
					orphaned application is waited for instead */
	bool own_pgrp;               /* with wrapper: the command starts in a process group
					of its own (SIGTTOU ignored), out of the terminal's
					foreground group, so a Ctrl-C does not reach it; the
					application rejoins ours (collect_fg_argv) */
	int local_ranks;             /* with forward_signals, an MPI launch of this many
					ranks: when that many `nunatak rank-shim` run below
					the launcher, a forwarded signal goes to the ranks
					and not to the launcher (mpirun would SIGKILL shims
					still writing their data); 0: signal the launcher */
	pid_t join_pgid;             /* > 0: the command starts in that existing process
					group (a rank's launcher-facing group, see
					exec_rank_split), so the launcher's signals reach
					it; a group gone leaves it in ours */
	const char *writers_lock;    /* an MPI launch: once the launcher ended, wait until
					no rank shim's writer holds this file's shared lock
					(exec_rank_split; the launcher may have killed the
					shims' launcher-facing halves while they wrote), at
					most RANK_WRITERS_WAIT_S or until a second interrupt;
					then the file is removed */
	const char *output_path;     /* a file the command is expected to write (perf
					record's perf.data): the result says whether it
					did, and recording/replay keep that answer */
	bool cacheable;              /* the answer is a function of argv, stdin, env edits
					and the files argv names: a caching executor may
					serve it again (exec/cache.c) */
	bool cache_per_line;         /* cacheable item by item: stdin holds one item a
					line, stdout one line per item in order */
	int merge_slot;              /* > 0, with cache_per_line: in a batch of the real
					executor, calls equal but for argv[merge_slot] run as
					ONE process without that argument, each one's stdin
					lines prefixed by its merge_prefix, and the answer is
					split back line by line (llvm-symbolizer's --obj=M and
					"M" ADDR lines: one process for every module). A call
					that fails so is run again alone, so a fault stays its
					own; a timeout is every member's. 0: never merged */
	const char *merge_prefix;
	const char *const *cache_argv; /* non-NULL, with cacheable: the argv the cache keys
					the call by instead of argv, which only adds
					arguments that change where the tool reads, never
					what it answers (llvm-symbolizer's
					--debug-file-directory naming nunatak's
					decompressed debug copies, attrib/debug_copy.h) */
	const char *cache_salt;      /* more key for a cacheable call whose answer also
					depends on the machine's state, or NULL; a
					salted answer is kept whatever its exit code */
};

struct exec_result {
	int exit_code;      /* 0..255; 128+N when killed by signal N; 127/126 launch failures */
	int term_signal;    /* N when the child was killed by signal N, else 0 */
	bool timed_out;
	char *out;          /* captured stdout (NUL-terminated), or NULL; freed by exec_result__release */
	size_t out_len;
	char *err;          /* captured stderr (NUL-terminated), or NULL */
	size_t err_len;
	double duration_s;
	bool output_written; /* output_path exists and is not empty (replay: as recorded;
				entries recorded without the field: true) */
	int interrupted_by;  /* forward_signals: the first SIGINT/SIGTERM/SIGHUP/SIGQUIT
				nunatak itself received while the child ran (a Ctrl-C,
				a scheduler's SIGTERM), else 0 */
	int wrapper_signal;  /* forward_signals: the command itself (perf record) died by
				this signal while the application it had started ran
				on; nunatak waited for the application instead, and
				exit_code/term_signal are the application's. 0: none */
	bool have_rusage;    /* cpu_*_s hold wait4's rusage of the command and of every
				descendant it waited for (the real executor only) */
	double cpu_user_s, cpu_sys_s;
	int nr_survivors;    /* application: processes it started that still ran when it
				ended (a daemon), adopted by nunatak (a child subreaper
				while an application runs); not waited for, not killed */
	int survivor_pid;    /* the first of them, and its name */
	char survivor_comm[16];
	int writers_unfinished; /* writers_lock: rank shims still held it when nunatak
				   stopped waiting: 1 at the time bound, 2 at a second
				   interrupt; 0: they all finished */
	bool abandoned;      /* forward_signals: a second such signal arrived while the
				child still ran; the child and its descendants were
				killed (SIGKILL) so that nunatak stops waiting */
};

struct executor;

struct executor_ops {
	/* Runs one command to completion. Returns 0 when the command's outcome is
	 * in *res (whatever its exit code, including 127/126), or a negative error
	 * in e when nunatak itself failed (out of memory, cannot write a recording). */
	int (*run)(struct executor *x, const struct exec_request *req, struct exec_result *res,
		   struct err *e);
	/* The recorded meta.json under replay (platform, sampling_blocked, cpu_model,
	 * cpuinfo, collectors), borrowed; NULL for the real executor. */
	const json_t *(*recorded_meta)(struct executor *x);
	/* Finishes (the recorder writes meta.json) and frees. */
	void (*free)(struct executor *x);
	/* Optional (NULL: run() one after the other): see executor__run_batch. */
	int (*run_batch)(struct executor *x, const struct exec_request *reqs, size_t n,
			 struct exec_result *res, struct err *e);
};

struct executor {
	const struct executor_ops *ops;
	void *priv;
};

/* `nunatak fg-exec`: joins process group pgid (nunatak's, the terminal's
 * foreground group; perf runs in one of its own), gives SIGTTOU its default
 * action back when asked, and replaces this process with argv (PATH looked
 * up): returns only on failure, 127 (not found) or 126, errno set. With
 * status_fd >= 0 (an open descriptor), it runs argv as its child instead,
 * deaf to its collector's SIGTERM (other senders' signals pass on),
 * writes how the child ended to status_fd at offset 0 ("exit N\n",
 * "signal N\n") and ends the same way (returns the exit code). */
int exec_become(pid_t pgid, bool ttou_default, int status_fd, char *const *argv);

/* How long `nunatak run` waits for the rank shims' writers after the
 * launcher ended (exec_request.writers_lock). */
#define RANK_WRITERS_WAIT_S 600

/* A rank's `nunatak rank-shim` splits in two: this process, the one the
 * launcher started and signals (with its process group), stays in that
 * group, waits for its child and ends as the child ends (exit code or
 * signal); it never returns. The child returns 0: it is the writer, in a
 * process group of its own, out of the launcher's reach, holding a shared
 * lock on lock_path until it exits; *group is the launcher-facing group,
 * which the application joins (exec_request.join_pgid, fg-exec --pgid) to
 * get the launcher's signals as it would bare. A signal sent to the waiting
 * half by someone else than the launcher's group kill or a `nunatak run`
 * (which reach the application themselves) is passed on to the writer's
 * descendants. Returns 1 in the writer when the lock could not be taken (a
 * file system without locks: nunatak will not wait for this writer), -errno
 * (no split, *group 0) when the fork fails. */
int exec_rank_split(const char *lock_path, pid_t *group);

struct executor *executor__new_real(void);
/* Records every invocation made through `inner` into `entry_dir` (created;
 * refused when it exists and is not empty). Takes ownership of inner. `meta`
 * (borrowed, may be NULL) is merged into meta.json (command, platform, ...). */
struct executor *executor__new_recording_take(struct executor *inner, const char *entry_dir,
					      const json_t *meta, struct err *e);
struct executor *executor__new_replay(const char *entry_dir, struct err *e);
/* Answers `cacheable` requests from files under dir (created on first store)
 * when the same call was made before on the same files, else through inner
 * (exec/cache.c). Takes ownership of inner; returns inner itself when dir is
 * NULL or on ENOMEM (uncached, never failed). Not for recording or replay. */
struct executor *executor__new_caching_take(struct executor *inner, const char *dir);
/* Merges `meta` (borrowed object) into a recording's meta.json, e.g. the
 * collectors[{tool,version}] known only after `perf --version`; rewritten at
 * once and again at free. A no-op returning 0 for other executors. Returns
 * -EIO/-ENOMEM when the file cannot be rewritten. */
int executor__annotate(struct executor *x, const json_t *meta);
void executor__free(struct executor *x);

static inline int executor__run(struct executor *x, const struct exec_request *req,
				struct exec_result *res, struct err *e)
{
	return x->ops->run(x, req, res, e);
}

/*
 * Runs reqs[0..n) to completion and fills res[i] for each, as n run() calls
 * would, but the real executor runs up to one per online CPU (at most 4) at
 * once: independent tool calls (a symbolizer per module) overlap their
 * waiting. Everything else keeps the issue order: a recording numbers the
 * invocations in it, a replay serves them from its FIFOs in it. Tools only
 * (no application, no forward_signals). Returns 0, or negative as run()
 * does; then every res[i] is still released by the caller.
 */
int executor__run_batch(struct executor *x, const struct exec_request *reqs, size_t n,
			struct exec_result *res, struct err *e);

static inline const json_t *executor__recorded_meta(struct executor *x)
{
	return x->ops->recorded_meta ? x->ops->recorded_meta(x) : NULL;
}

void exec_result__release(struct exec_result *res);

/* What exec_isolate() allows its child. */
struct exec_bounds {
	double cpu_s;     /* CPU seconds (RLIMIT_CPU: SIGXCPU, then SIGKILL); 0: none */
	double wall_s;    /* wall-clock seconds, then SIGKILL; 0: none */
	size_t mem_bytes; /* address space it may map beyond what it inherited; 0: none */
	size_t out_max;   /* output bytes kept at most (more: killed, out_cut) */
};

struct exec_isolated {
	int exit_code;     /* fn's return value & 0xff, when it returned */
	int term_signal;   /* killed by this signal (SIGSEGV, SIGXCPU, SIGKILL...), else 0 */
	bool timed_out;    /* killed at wall_s */
	bool cpu_exceeded; /* stopped at cpu_s */
	bool out_cut;      /* wrote more than out_max: killed */
	double cpu_s;      /* the child's CPU time (user + system) */
	char *out;         /* what it wrote to out_fd (NUL-terminated), or NULL */
	size_t out_len;
};

/*
 * Runs fn(arg, out_fd) in a forked child of this process (no exec: the
 * same image, nothing loaded in the parent) and reads what it writes to
 * out_fd back into res->out as it comes. For code that cannot be trusted
 * with untrusted input (a third-party parser that crashes or loops on a
 * corrupt file): the child has no core dump, dies with nunatak, and is
 * bounded by *b; a crash, a hang or a limit is an outcome in *res, never
 * nunatak's. Returns 0, or negative (e filled) when the child could not be
 * started. Call only while nunatak has one thread. Release with
 * exec_isolated__release().
 */
int exec_isolate(int (*fn)(void *arg, int out_fd), void *arg, const struct exec_bounds *b,
		 struct exec_isolated *res, struct err *e);
void exec_isolated__release(struct exec_isolated *res);

/* Looks `name` up in PATH (or checks it when it contains a '/'). Returns 0 and
 * a malloc'd absolute path, -ENOENT when absent, -EACCES when not executable. */
int exec_which(const char *name, char **path_out);

/* Same lookup with an explicit PATH value (NULL: the process's PATH, then the
 * confstr default). Used by the real executor when env_set overrides PATH. */
int exec_which_in(const char *name, const char *path_env, char **path_out);

/* argv[0]'s base name, the key of replay queues ("/usr/bin/perf" -> "perf");
 * borrowed from argv0. */
const char *exec_basename(const char *argv0);

/* `sig` to every child of nunatak's main thread (the tools it started,
 * listed by /proc/self/task/<pid>/children). Async-signal-safe: a signal
 * handler abandoning a Run calls it so that no tool outlives nunatak. */
void exec_signal_children(int sig);

/* Ownership and errors, for every executor:
 *  - exec_request and everything it points to is borrowed for the call;
 *  - *res is zeroed by run() first, then owned by the caller: release it with
 *    exec_result__release() whatever run() returned;
 *  - a program that cannot be started is an outcome, not an error: run()
 *    returns 0 with exit_code 127 (not found) or 126 (not executable) and,
 *    when stderr is captured, a one-line reason in res->err;
 *  - run() returns negative only when nunatak itself failed (e.code
 *    "exec.spawn", "exec.record", "exec.replay", "oom").
 * The real executor is not thread-safe while forward_signals is set (it
 * installs process-wide signal handlers for the duration of the call). */

#endif
