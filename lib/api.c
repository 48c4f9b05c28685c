/* SPDX-License-Identifier: BSD-3-Clause */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "log.h"
#include "rank_env.h"
#include "registry.h"
#include "sampler.h"
#include "scope_profiler.h"
#include "stream.h"
#include "thread.h"
#include "writer.h"

/* The hot functions call nothing on their fast path (slow paths are
 * separate functions reached by tail calls), so with
 * -momit-leaf-frame-pointer they set up no frame at all. */
#define SP_HOT __attribute__((hot))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

int sp_enabled = 1;
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static char *prefix, *label;
static bool prefix_from_env, explicit_init, exit_hooked;
static struct sp_rank_info rank_info;
static pid_t owner_pid;
static bool finalized_once;
static _Atomic bool forked_child;

/* What sp_region() hands out while disabled: valid, never recorded. */
static const struct sp_site dummy_site = {SP_SITE_MAGIC, -1, "(disabled)", NULL};

static const char *env_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}


static int finalize_now(void);

static void on_exit_hook(void)
{
	int st0 = atomic_load(&sp_state);
	if (st0 == SP_STATE_UNINIT || st0 == SP_STATE_DISABLED)
		return; /* hooked at load, never recorded: nothing to write */
	if (getpid() != owner_pid || atomic_load(&forked_child)) {
		sp_log(SP_LOG_INFO, "fork child %ld: nothing written (the parent owns rank %d's files)",
		       (long)getpid(), rank_info.rank);
		return;
	}
	sp_lock(&api_lock);
	if (atomic_load(&sp_state) == SP_STATE_LIVE)
		finalize_now();
	else if (finalized_once) {
		uint64_t late = sp_registry__misuse_total(SP_MISUSE_AFTER_FINALIZE);
		if (late)
			sp_log(SP_LOG_WARN, "misuse: %llu calls after sp_finalize() were ignored",
			       (unsigned long long)late);
	}
	sp_unlock(&api_lock);
}

static void on_fork_child(void)
{
	int st = atomic_load(&sp_state);
	if (st == SP_STATE_UNINIT || st == SP_STATE_DISABLED)
		return; /* hooked at load, never initialised: the child is on its own */
	atomic_store(&forked_child, true);
	atomic_store(&sp_fast, 0);
	if (st == SP_STATE_LIVE || st == SP_STATE_FINALIZED) {
		atomic_store(&sp_state, SP_STATE_FORKED);
		sp_enabled = 0;
	}
	sp_registry__after_fork_child();
	sp_sampler__after_fork_child();
	sp_stream__after_fork_child();
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&api_lock, &fresh, sizeof(fresh));
}

static void set_prefix_from_env(void)
{
	const char *p = getenv("SCOPE_PROFILER_PREFIX");
	prefix_from_env = p && *p;
	free(prefix);
	prefix = strdup(prefix_from_env ? p : "scope_profiler");
}

/* Tells the stream where the .spt goes (prefix and rank known). */
static void stream_path(void)
{
	char *p = prefix ? sp_writer__path(prefix, rank_info.rank, ".spt") : NULL;
	if (p)
		sp_stream__set_path(p, rank_info.rank);
	free(p);
}

static void hook_exit(void)
{
	if (!exit_hooked) {
		exit_hooked = true;
		atexit(on_exit_hook);
		pthread_atfork(NULL, NULL, on_fork_child);
	}
}

/* The process's first call may be made in a signal handler (one that may
 * have interrupted malloc): what it needs that allocates (the prefix, the
 * trace's path, the exit and fork hooks) is prepared when the library is
 * loaded (sp_api_ctor), from the environment then. The first call redoes
 * it only if SCOPE_PROFILER_PREFIX or the rank's variables changed since. */
static char *prefix_env_at_load;
static bool prepared;

static void prepare_locked(void)
{
	sp_thread__prepare();
	sp_rank_env__detect(env_lookup, NULL, &rank_info);
	set_prefix_from_env();
	stream_path();
	const char *p = getenv("SCOPE_PROFILER_PREFIX");
	prefix_env_at_load = p ? strdup(p) : NULL;
	prepared = prefix && (!p || prefix_env_at_load);
	hook_exit();
}

static bool same_env(const char *now, const char *then)
{
	return now ? then && strcmp(now, then) == 0 : !then;
}

/* Allocates nothing when prepared at load and the environment is the same
 * (async-signal-safe then: the SCOPE_PROFILER_EVENTS probes are system
 * calls; sampling from the environment started at load). */
static void init_locked(void)
{
	if (atomic_load(&sp_state) != SP_STATE_UNINIT)
		return;
	sp_log__init();
	const char *off = getenv("SCOPE_PROFILER_DISABLE");
	if (off && *off && strcmp(off, "0") != 0) {
		sp_enabled = 0;
		atomic_store(&sp_state, SP_STATE_DISABLED);
		return;
	}
	sp_clock__init();
	struct sp_rank_info ri;
	sp_rank_env__detect(env_lookup, NULL, &ri);
	bool same = prepared && ri.rank == rank_info.rank &&
		    same_env(getenv("SCOPE_PROFILER_PREFIX"), prefix_env_at_load);
	rank_info = ri;
	if (!same) {
		set_prefix_from_env();
		stream_path();
	}
	owner_pid = getpid();
	hook_exit();
	atomic_store(&sp_state, SP_STATE_LIVE);
	atomic_store(&sp_fast, sp_clock_tsc);
	sp_log(SP_LOG_DEBUG, "rank %d (%s), prefix %s, clock %s", rank_info.rank,
	       sp_rank_env__runtime_name(rank_info.runtime), prefix,
	       sp_clock_tsc ? "tsc" : "monotonic");
	const char *events = getenv("SCOPE_PROFILER_EVENTS");
	if (events && *events)
		sp_counters__configure(events, "SCOPE_PROFILER_EVENTS", false);
	const char *hz = getenv("SCOPE_PROFILER_SAMPLE_HZ");
	if (hz && *hz && strcmp(hz, "0") != 0) {
		char *end;
		long v = strtol(hz, &end, 10);
		if (*end || v <= 0 || v > 100000) {
			sp_log(SP_LOG_WARN, "SCOPE_PROFILER_SAMPLE_HZ=%s is not a rate in Hz: "
			       "sampling at the default %d Hz", hz, SP_SAMPLE_HZ_DEFAULT);
			v = 0;
		}
		int rc = sp_sampler__start((int)v);
		if (rc < 0)
			sp_log(SP_LOG_WARN, "SCOPE_PROFILER_SAMPLE_HZ=%s: sampling not started: %s",
			       hz, strerror(-rc));
	}
}

void sp_api__ensure_init(void)
{
	if (likely(atomic_load(&sp_state) != SP_STATE_UNINIT))
		return;
	sp_lock(&api_lock);
	init_locked();
	sp_unlock(&api_lock);
}

/* Starts sampling from the environment as early as possible, so an
 * uninstrumented program under LD_PRELOAD is sampled from its start.
 * Writes nothing by itself: the exit hook does, and only when initialised. */
__attribute__((constructor)) static void sp_api_ctor(void)
{
	sp_lock(&api_lock);
	if (atomic_load(&sp_state) == SP_STATE_UNINIT && !prepared)
		prepare_locked();
	sp_unlock(&api_lock);
	const char *hz = getenv("SCOPE_PROFILER_SAMPLE_HZ");
	if (hz && *hz && strcmp(hz, "0") != 0)
		sp_api__ensure_init();
}

/* Under api_lock. */
static int finalize_now(void)
{
	finalized_once = true;
	struct sp_config cfg = {prefix, label, rank_info.rank, explicit_init,
				rank_info.world_size};
	return sp_finalize__locked(&cfg);
}

/* ---- hot path ---- */

static void begin_slow(const struct sp_site *h) __attribute__((noinline, cold));
static void begin_generic(const struct sp_site *h) __attribute__((noinline));
static void end_generic(const struct sp_site *h) __attribute__((noinline));
static void too_deep(struct sp_thread *t, const struct sp_site *h)
	__attribute__((noinline, cold));
static void end_slow(const struct sp_site *h) __attribute__((noinline, cold));
static void end_mismatch(struct sp_thread *t, const struct sp_site *h, uint64_t now)
	__attribute__((noinline, cold));
static void record_slow(struct sp_thread *t, const struct sp_site *h, uint64_t start,
			uint64_t end, const int64_t *cv) __attribute__((noinline, cold));
static void anchor_slow(struct sp_thread *t) __attribute__((noinline, cold));
static void in_handler(struct sp_thread *t) __attribute__((noinline, cold));
static void end_counted(struct sp_thread *t, const struct sp_site *h, bool tsc)
	__attribute__((noinline));

/* A stamp on the hot path: @p tsc is a constant at each call site, so the
 * fast functions contain a bare rdtsc and no call (hence no frame). */
static inline uint64_t stamp(bool tsc)
{
#if defined(__x86_64__)
	if (tsc)
		return __rdtsc();
#endif
	(void)tsc;
	return sp_clock__mono_ns_outline();
}

static inline void begin_body(struct sp_thread *t, const struct sp_site *h, bool tsc)
{
	uint32_t d = t->depth;
	if (unlikely(d >= SP_STACK_MAX)) {
		too_deep(t, h);
		return;
	}
	/* A signal handler may run a whole sp_begin/sp_end pair between any two
	 * of these lines. Slot d is filled, taken (depth), then filled again:
	 * a handler that used the slot before it was taken cannot leave its
	 * own site there. The sampler's handler reads stack[depth - 1]: it
	 * finds this site from the first store on. */
	t->stack[d].site = h;
	atomic_signal_fence(memory_order_release);
	t->depth = d + 1;
	atomic_signal_fence(memory_order_seq_cst);
	t->stack[d].site = h;
	t->stack[d].start = stamp(tsc);
	/* Counters are read after the stamp: the region's counts include as
	 * little of the library's own work as its time does. */
	if (unlikely(t->ctr != NULL))
		sp_counters__begin(t, d);
}

SP_HOT void sp_begin(const struct sp_site *h)
{
	struct sp_thread *t = sp_tls;
	if (likely(atomic_load_explicit(&sp_fast, memory_order_relaxed) && t && h)) {
		begin_body(t, h, true);
		return;
	}
	begin_generic(h);
}

/* Every case but "recording with the TSC, thread known": the monotonic
 * clock, the first call of a thread, misuse, disabled or finalized. */
static void begin_generic(const struct sp_site *h)
{
	struct sp_thread *t = sp_tls;
	if (atomic_load_explicit(&sp_state, memory_order_relaxed) != SP_STATE_LIVE || !t || !h) {
		begin_slow(h);
		return;
	}
	begin_body(t, h, sp_clock_tsc);
}

static void too_deep(struct sp_thread *t, const struct sp_site *h)
{
	t->depth++;
	sp_registry__misuse_at(t, SP_MISUSE_TOO_DEEP, h);
}

static bool usable(void)
{
	int st = atomic_load_explicit(&sp_state, memory_order_relaxed);
	if (unlikely(sp_tls_inlib)) { /* a signal handler interrupted the library */
		if (st == SP_STATE_LIVE || st == SP_STATE_UNINIT)
			in_handler(sp_tls);
		return false;
	}
	if (st == SP_STATE_UNINIT) {
		sp_api__ensure_init();
		st = atomic_load(&sp_state);
	}
	if (st == SP_STATE_FINALIZED)
		sp_registry__misuse(NULL, SP_MISUSE_AFTER_FINALIZE);
	return st == SP_STATE_LIVE;
}

static void begin_slow(const struct sp_site *h)
{
	if (!usable())
		return;
	struct sp_thread *t = sp_tls;
	if (!h) {
		sp_registry__misuse(t, SP_MISUSE_NULL_HANDLE);
		return;
	}
	if (!t && !(t = sp_thread__new())) {
		sp_registry__misuse(NULL, SP_MISUSE_NO_MEMORY);
		return;
	}
	begin_body(t, h, sp_clock_tsc);
}

/* About once a second of a recording thread: an anchor (TSC mode), and
 * its buffered calls go to the file, so a crash loses at most a second
 * (or a buffer) of them. */
static void anchor_slow(struct sp_thread *t)
{
	t->next_anchor = sp_clock__anchor() + sp_clock_anchor_interval;
	sp_stream__flush(t);
}

/* t->busy is set from before the buffer's count is read until after it is
 * stored (and through a flush): a signal handler's call recorded in that
 * window would take the same slot, so it is dropped and counted instead.
 * A handler that ran before busy was set has finished: the count read
 * after includes its call.
 * @p cv: the call's counts (sp_counters__end, on the caller's stack, so a
 * handler's own call cannot change them), kept at the call's index; NULL
 * (a constant at the call sites without counters): nothing more to do. */
static inline void record(struct sp_thread *t, const struct sp_site *h, uint64_t start,
			  uint64_t end, const int64_t *cv)
{
	if (unlikely(t->busy)) {
		in_handler(t);
		return;
	}
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	size_t n = atomic_load_explicit(&t->n, memory_order_acquire);
	if (unlikely(n == SP_BUF_CALLS || end >= t->next_anchor)) {
		record_slow(t, h, start, end, cv);
		return;
	}
	struct sp_call *call = &t->buf[n];
	call->site = h;
	call->start = start;
	call->end = end;
	if (cv)
		sp_counters__keep(t, n, cv);
	/* Publishes the call to a concurrent sp_finalize (plain store on x86). */
	atomic_store_explicit(&t->n, n + 1, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

/* A call from a signal handler that interrupted the library on its thread:
 * dropped, counted (inlib.h). Lock-free. */
static void in_handler(struct sp_thread *t)
{
	sp_registry__misuse(t, SP_MISUSE_IN_HANDLER);
}

/* Entered with t->busy set; clears it. */
static void record_slow(struct sp_thread *t, const struct sp_site *h, uint64_t start,
			uint64_t end, const int64_t *cv)
{
	if (sp_tls_inlib) { /* a handler: this thread holds a lock of ours */
		in_handler(t);
		goto out;
	}
	if (end >= t->next_anchor)
		anchor_slow(t);
	size_t n = atomic_load_explicit(&t->n, memory_order_acquire);
	if (n >= SP_BUF_CALLS) {
		sp_stream__flush(t);
		n = atomic_load_explicit(&t->n, memory_order_acquire);
		if (n >= SP_BUF_CALLS) { /* drained by a concurrent finalize */
			sp_registry__misuse(t, SP_MISUSE_AFTER_FINALIZE);
			goto out;
		}
	}
	struct sp_call *call = &t->buf[n];
	call->site = h;
	call->start = start;
	call->end = end;
	if (cv) /* after the flush: the counts go with the call's new index */
		sp_counters__keep(t, n, cv);
	atomic_store_explicit(&t->n, n + 1, memory_order_release);
out:
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

/* sp_end off the fast path: the region is open deeper, or not at all. */
static void end_mismatch(struct sp_thread *t, const struct sp_site *h, uint64_t now)
{
	uint32_t d = t->depth;
	if (d > SP_STACK_MAX) { /* closing a region too deep to be recorded */
		t->depth = d - 1;
		return;
	}
	if (!h) {
		sp_registry__misuse(t, SP_MISUSE_NULL_HANDLE);
		return;
	}
	for (uint32_t i = d; i-- > 0;) {
		if (t->stack[i].site != h)
			continue;
		if (i + 1 < d)
			sp_registry__misuse_at(t, SP_MISUSE_END_NOT_INNER, h);
		for (uint32_t k = i + 1; k < d; k++)
			sp_registry__misuse_at(t, SP_MISUSE_DISCARDED, t->stack[k].site);
		uint64_t start = t->stack[i].start;
		atomic_signal_fence(memory_order_seq_cst);
		t->depth = i;
		if (t->ctr) {
			int64_t cv[SP_CTR_MAX];
			sp_counters__end(t, h, i, cv);
			record(t, h, start, now, cv);
		} else {
			record(t, h, start, now, NULL);
		}
		return;
	}
	sp_registry__misuse_at(t, SP_MISUSE_END_UNOPENED, h);
}

static void end_slow(const struct sp_site *h)
{
	if (!usable())
		return;
	struct sp_thread *t = sp_tls;
	if (t)
		end_mismatch(t, h, sp_clock__now());
	else if (h)
		sp_registry__misuse_at(NULL, SP_MISUSE_END_UNOPENED, h);
	else
		sp_registry__misuse(NULL, SP_MISUSE_NULL_HANDLE);
}

static inline void end_body(struct sp_thread *t, const struct sp_site *h, bool tsc)
{
	if (unlikely(t->ctr != NULL)) {
		end_counted(t, h, tsc);
		return;
	}
	uint64_t now = stamp(tsc);
	uint32_t d = t->depth;
	/* The stack never holds NULL, so a NULL h takes the mismatch path. */
	if (unlikely(d - 1 >= SP_STACK_MAX || t->stack[d - 1].site != h)) {
		end_mismatch(t, h, now);
		return;
	}
	d--;
	uint64_t start = t->stack[d].start;
	/* read before the slot is given back to a signal handler's sp_begin */
	atomic_signal_fence(memory_order_seq_cst);
	t->depth = d;
	record(t, h, start, now, NULL);
}

/* sp_end with counters: they are read before the stamp (see begin_body). */
static void end_counted(struct sp_thread *t, const struct sp_site *h, bool tsc)
{
	uint32_t d = t->depth;
	bool inner = d - 1 < SP_STACK_MAX && t->stack[d - 1].site == h;
	int64_t cv[SP_CTR_MAX];
	if (inner)
		sp_counters__end(t, h, d - 1, cv);
	uint64_t now = stamp(tsc);
	if (!inner) {
		end_mismatch(t, h, now);
		return;
	}
	uint64_t start = t->stack[d - 1].start;
	atomic_signal_fence(memory_order_seq_cst);
	t->depth = d - 1;
	record(t, h, start, now, cv);
}

SP_HOT void sp_end(const struct sp_site *h)
{
	struct sp_thread *t = sp_tls;
	if (likely(atomic_load_explicit(&sp_fast, memory_order_relaxed) && t)) {
		end_body(t, h, true);
		return;
	}
	end_generic(h);
}

static void end_generic(const struct sp_site *h)
{
	struct sp_thread *t = sp_tls;
	if (atomic_load_explicit(&sp_state, memory_order_relaxed) != SP_STATE_LIVE || !t) {
		end_slow(h);
		return;
	}
	end_body(t, h, sp_clock_tsc);
}

/* ---- setup and regions ---- */

static char *dup_trimmed(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == 0))
		n--;
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

int sp_init_n(const char *pfx, size_t pfx_len, const char *lbl, size_t lbl_len)
{
	sp_api__ensure_init();
	int rc = 0;
	sp_lock(&api_lock);
	int st = atomic_load(&sp_state);
	if (st == SP_STATE_FINALIZED) {
		rc = -EINVAL;
	} else if (st == SP_STATE_LIVE) {
		explicit_init = true;
		if (pfx && !prefix_from_env) {
			char *p = dup_trimmed(pfx, pfx_len);
			if (p && *p) {
				free(prefix);
				prefix = p;
				stream_path();
			} else {
				free(p);
			}
		}
		if (lbl) {
			free(label);
			label = dup_trimmed(lbl, lbl_len);
		}
	}
	sp_unlock(&api_lock);
	return rc;
}

int sp_init(const char *pfx, const char *lbl)
{
	return sp_init_n(pfx, pfx ? strlen(pfx) : 0, lbl, lbl ? strlen(lbl) : 0);
}

int sp_init_opts(const struct sp_options *opts)
{
	struct sp_options o;
	memset(&o, 0, sizeof(o));
	if (!opts || opts->sz < offsetof(struct sp_options, label) + sizeof(o.label))
		return -EINVAL;
	memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	int rc = sp_init(o.prefix, o.label);
	if (rc == 0 && opts->sz >= offsetof(struct sp_options, sample_hz) + sizeof(o.sample_hz) &&
	    o.sample_hz > 0)
		rc = sp_start_sampling(o.sample_hz);
	return rc;
}

const struct sp_site *sp_region_n(const char *name, size_t name_len, const char *file,
				  size_t file_len, int line)
{
	if (!usable())
		return &dummy_site;
	if (!name) {
		sp_registry__misuse(sp_tls, SP_MISUSE_NULL_HANDLE);
		return NULL;
	}
	while (name_len && (name[name_len - 1] == ' ' || name[name_len - 1] == 0))
		name_len--;
	while (file && file_len && (file[file_len - 1] == ' ' || file[file_len - 1] == 0))
		file_len--;
	if (file && !file_len)
		file = NULL;
	return sp_registry__intern(name, name_len, file, file_len, line);
}

const struct sp_site *sp_region_at(const char *name, const char *file, int line)
{
	return sp_region_n(name, name ? strlen(name) : 0, file, file ? strlen(file) : 0,
			   line);
}

const struct sp_site *sp_region(const char *name)
{
	return sp_region_at(name, NULL, -1);
}

int sp_start_sampling(int hz)
{
	if (!usable())
		return atomic_load(&sp_state) == SP_STATE_DISABLED ? 0 : -EINVAL;
	int rc = sp_sampler__start(hz);
	if (rc < 0)
		sp_log(SP_LOG_WARN, "sampling not started: %s", strerror(-rc));
	return rc;
}

int sp_stop_sampling(void)
{
	if (!usable())
		return atomic_load(&sp_state) == SP_STATE_DISABLED ? 0 : -EINVAL;
	return sp_sampler__stop();
}

int sp_set_events_n(const char *list, size_t len)
{
	if (!list)
		return -EINVAL;
	if (!usable())
		return atomic_load(&sp_state) == SP_STATE_DISABLED ? 0 : -EINVAL;
	char *l = dup_trimmed(list, len);
	if (!l)
		return -ENOMEM;
	struct sp_thread **threads = NULL;
	size_t nr = sp_registry__threads(&threads);
	free(threads);
	sp_lock(&api_lock);
	int rc = sp_counters__configure(l, "sp_set_events", nr > 0);
	sp_unlock(&api_lock);
	/* Said at the default level: counts the caller asked for are missing. */
	if (rc == -EALREADY && sp_log__enabled(SP_LOG_ERROR))
		sp_log__emit(SP_LOG_WARN, "sp_set_events(\"%s\") ignored: events were already set "
		       "(SCOPE_PROFILER_EVENTS or an earlier call)", l);
	else if (rc == -EBUSY && sp_log__enabled(SP_LOG_ERROR))
		sp_log__emit(SP_LOG_WARN, "sp_set_events(\"%s\") ignored: a region was already "
		       "entered; call it before the first region", l);
	free(l);
	return rc;
}

int sp_set_events(const char *list)
{
	return sp_set_events_n(list, list ? strlen(list) : 0);
}

const char *sp_version(void)
{
	return SP_VERSION_STRING;
}

int sp_finalize(void)
{
	sp_api__ensure_init();
	sp_lock(&api_lock);
	int rc = 0;
	int st = atomic_load(&sp_state);
	if (st == SP_STATE_LIVE) {
		rc = finalize_now();
	} else if (st == SP_STATE_FINALIZED) {
		sp_registry__misuse(NULL, SP_MISUSE_FINALIZE_AGAIN);
		sp_log(SP_LOG_WARN, "misuse: sp_finalize called again (ignored)");
		rc = -EALREADY;
	}
	sp_unlock(&api_lock);
	return rc;
}
