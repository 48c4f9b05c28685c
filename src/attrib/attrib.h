/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attribution: from module-relative addresses to named Hotspots.
 *
 * Input: a pivot whose Hotspots are unresolved (module, module-relative offset)
 * as ingestion left them (docs/ingest.md), with their Measurements; stack
 * frames may carry (module, offset) too. Output, in place:
 *  - each Hotspot whose address resolves is renamed after its physical
 *    function (last frame of the inline chain) with its resolution level
 *    (line / function / symbol); addresses that resolve to the same function
 *    (same module and function start, the physical identity with the
 *    build-id) fuse into one Hotspot and their Measurements are summed - the
 *    totals never change;
 *  - an address no symbol covers (a gap), a module that cannot be read or a
 *    failed symbolization leaves its Hotspot unresolved (module+0x…) with its
 *    exact values, and a degradation says why;
 *  - per-address detail (pivot.addresses: offset, counter, value, samples,
 *    aggregated over Loci) and the inline chain of each address (pivot.frames,
 *    innermost first, depth 0) for every named Hotspot;
 *  - stack_frames get their function names;
 *  - source extracts (pivot.extracts), one per (Hotspot, file), unless
 *    opts->no_source.
 *
 * External calls, in this order (replay serves them FIFO per basename, the
 * order the Python predecessor recorded in the corpus): one symbolizer
 * process per module (modules by decreasing weight, stack-only modules last;
 * two over halves from 8192 addresses), then `llvm-readelf -S` once per
 * module that yielded a bare name and was not read here (a replay's, or
 * under recording), then `llvm-dwarfdump --debug-line` once
 * per module whose named Hotspots carry source positions and whose line
 * table may hold DWARF 5 MD5s (skipped with no_source). Each step runs its
 * calls through one executor__run_batch(): concurrent on the real executor,
 * in issue order for recordings and replays (docs/attribution.md).
 */
#ifndef NUNATAK_ATTRIB_ATTRIB_H
#define NUNATAK_ATTRIB_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>

struct pivot;
struct executor;
struct degradations;
struct attrib_tools;
struct attrib_kprefetch;
struct debug_copies;
struct err;

struct attrib_source_map {
	const char *from; /* recorded prefix, e.g. "/build/x" */
	const char *to;   /* where it lives here, e.g. "/home/me/x" */
};

struct attrib_opts {
	/* [source_map] config entries then --source-map flags: the longest
	 * matching prefix wins, and on equal prefixes the later entry (a flag). */
	const struct attrib_source_map *source_map;
	size_t nr_source_map;
	const char *root;          /* git toplevel, else the cwd; NULL: the cwd */
	bool no_source;            /* --no-source: no extracts, no dwarfdump */
	/* [debuginfod]: disabled strips DEBUGINFOD_URLS from symbolizer calls;
	 * enabled sets DEBUGINFOD_TIMEOUT (seconds) unless the user set it. */
	bool debuginfod_disabled;
	int debuginfod_timeout_s;  /* 0: 10 */
	double symbolizer_timeout_s; /* per symbolizer call; 0: 300 */
	/* Kernel samples ([kernel.kallsyms]+offset from `_text`) are named from
	 * kallsyms_path (NULL: /proc/kallsyms) only when not replay (another
	 * machine's kernel) and recorded_kernel (the release that recorded,
	 * NULL: unknown) is this one's `uname -r` (docs/attribution.md). */
	bool replay;
	/* The executor records (--record): every symbolizer call keeps the
	 * sampled addresses as they are, which its replay serves in order. */
	bool record;
	const char *recorded_kernel;
	const char *kallsyms_path;
	/* The Run's decompressed copies of separate debug files
	 * (attrib/debug_copy.h; a live Run's, in <cache>/nunatak/debug, shared
	 * with its other symbolizer calls), or NULL: none made or used.
	 * Ignored under record and replay. */
	struct debug_copies *debug_copies;
	/* The table read ahead (attrib_kernel_prefetch), or NULL: read then.
	 * Taken over by the kernel's naming; its owner frees it. Not with a
	 * kallsyms_path. */
	struct attrib_kprefetch *kernel_prefetch;
};

/*
 * Starts reading the kernel's symbol table for a later attrib_run() (its
 * cache of this boot, else /proc/kallsyms; docs/attribution.md, "Kernel")
 * on a thread of its own, every signal blocked there: a live Run starts it
 * as perf starts, so that the read is off the path after the application.
 * NULL when no thread can start (attrib_run reads it then). The caller
 * frees it with attrib_kernel_prefetch_free() (waits for the thread) before
 * anything that must run with one thread (exec_isolate) and before exiting.
 */
struct attrib_kprefetch *attrib_kernel_prefetch(void);
/* Whether a naming took its table (then a later one reads its own). */
bool attrib_kernel_prefetch_taken(const struct attrib_kprefetch *k);
void attrib_kernel_prefetch_free(struct attrib_kprefetch *k);

/*
 * One read of /proc/kallsyms for the boot's two tables (issue 27): the
 * kernel's (above) and perf's (collect/perf_kallsyms.h: a few lines, the
 * whole file searched for them). A tap takes the lines it keeps as the
 * text goes by; with one the read goes on to the end of the file, not
 * only to the end of the core kernel's text (~4% more here), and its
 * done() gets the kept lines (each with its newline) once the whole file
 * has been read. Both are plain functions, callable from any thread.
 */
struct attrib_ktap {
	bool (*keep)(const char *line, size_t len); /* one line, without newline */
	int (*done)(const char *lines, size_t len); /* 0, or -errno */
};

/*
 * attrib_kernel_prefetch() reading, on a miss of its cache, the tap's
 * lines in the same read (NULL: attrib_kernel_prefetch()). The table and
 * the tap's lines are read under the boot lock below, the cache looked at
 * again once it is held: the first Run of a boot reads the file once
 * between its read-ahead and perf's table, whichever takes the lock first.
 */
struct attrib_kprefetch *attrib_kernel_prefetch_tap(const struct attrib_ktap *tap);

/*
 * The tap's lines from one read of /proc/kallsyms to its end, the kernel's
 * table stored in this boot's cache on the way when the cache holds none
 * (as the read-ahead stores it). The caller holds the boot lock. Returns
 * tap->done()'s answer, or -errno (the file could not be read whole).
 */
int attrib_kernel_read_boot(const struct attrib_ktap *tap);

/*
 * The boot lock of the two tables' reads: an flock on this user's
 * <cache>/kallsyms/<boot id>.lock (one per boot: nodes sharing a home do
 * not wait for each other), waited for. Returns the descriptor to give
 * attrib_kernel_unlock(), or -1 without the lock: no cache home, 20 s
 * waited (going on costs a second read, nothing else), or ready(arg)
 * (NULL: never) said, between two tries, that what the caller waits for
 * is there: perf's table is written before the holder stores the
 * kernel's (~1.7 MB written and sealed: 46 and 74 ms seen here under
 * load), and a rank waiting for perf's table need not wait for that too.
 */
int attrib_kernel_lock(bool (*ready)(void *), void *arg);
void attrib_kernel_unlock(int fd);

/*
 * The environment edits of a Run's llvm-symbolizer calls, from [debuginfod]
 * (docs/attribution.md), the same for every call (the Hotspots', the MPI
 * call sites', the OpenMP regions'): with DEBUGINFOD_URLS set, disabled
 * strips it, enabled sets DEBUGINFOD_TIMEOUT (timeout_s; 0: 10) unless the
 * user set it; nothing without it. set/unset are NULL-terminated lists for
 * exec_request.env_set/env_unset (pass NULL when [0] is NULL); debuginfod:
 * whether the calls reach a server.
 */
struct attrib_sym_env {
	const char *set[2];
	const char *unset[2];
	bool debuginfod;
	char *timeout_;
};
void attrib_sym_env__init(struct attrib_sym_env *env, bool disabled, int timeout_s);
void attrib_sym_env__release(struct attrib_sym_env *env);

/*
 * Names the unresolved Hotspots of p. tools comes from attrib_locate(); with
 * no symbolizer the pivot is left as is and `llvm-missing` is added to d.
 * Degradations met on the way are added to d (deduplicated): `llvm-missing`,
 * `module-unreadable` (once per module), `symbolization-failed`.
 * `kernel-symbols-unavailable` when kernel samples cannot be named.
 * Returns 0, or a negative error (out of memory, executor failure) in e.
 */
int attrib_run(struct pivot *p, struct executor *x, const struct attrib_tools *tools,
	       const struct attrib_opts *opts, struct degradations *d, struct err *e);

#endif
