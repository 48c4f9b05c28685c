/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file scope_profiler.h
 * @brief libscope_profiler: named regions and timer sampling, in process.
 *
 * A region is identified by a handle, the address of a `struct sp_site`
 * descriptor. The SP_* macros declare one `static const` descriptor per
 * call site, so the hot path never hashes a string; sp_region() returns a
 * library-owned descriptor for code that names regions at run time.
 *
 *     #define SP_ENABLE            // before the include; else SP_* are no-ops
 *     #include <scope_profiler.h>
 *     void step(void) { SP_SCOPE("step"); ... }      // timed until '}'
 *
 * Output, written by sp_finalize() (or at exit if it was never called, by
 * an exit handler registered when the library is loaded: it runs after the
 * program's own atexit handlers, so regions they record are kept):
 * `<prefix>_rank<NNNNN>.spt` (regions) and, when sampling ran,
 * `<prefix>_rank<NNNNN>.sps` (samples); docs/formats.md documents them.
 * While the program runs, each thread keeps at most 16384 calls (384 KiB)
 * in memory and appends them to the .spt path as they fill (and about once
 * a second): a killed process leaves a trace the readers recover.
 *
 * Environment: SCOPE_PROFILER_PREFIX (wins over sp_init's prefix),
 * SCOPE_PROFILER_SAMPLE_HZ (starts sampling), SCOPE_PROFILER_DISABLE=1
 * (every call is a no-op), SP_LOG_LEVEL (off|error|warn|info|debug or
 * 0-4; default: errors and misuse, to stderr),
 * SCOPE_PROFILER_HDF5=0 (no .h5 from an HDF5-enabled build),
 * SCOPE_PROFILER_CLOCK=monotonic (stamp with clock_gettime, not the TSC),
 * SCOPE_PROFILER_EVENTS=page-faults,task-clock (counters per region, see
 * sp_set_events()).
 * Preload sampler, no rebuild: LD_PRELOAD=libscope_profiler.so
 * SCOPE_PROFILER_SAMPLE_HZ=200 SCOPE_PROFILER_PREFIX=out/app ./app
 *
 * Thread safety: every function may be called from any thread. No function
 * is async-signal-safe unless its comment says so (sp_begin, sp_end,
 * sp_version).
 */
#ifndef SP_SCOPE_PROFILER_H
#define SP_SCOPE_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_VERSION_MAJOR 1
#define SP_VERSION_MINOR 0
#define SP_VERSION_PATCH 0
/** Version as one comparable number: major * 10000 + minor * 100 + patch. */
#define SP_VERSION_NUMBER                                                      \
	(SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100 + SP_VERSION_PATCH)
#define SP_VERSION_STRING "1.0.0"

#if defined(SP_BUILDING_LIBRARY) && defined(__GNUC__)
#define SP_API __attribute__((visibility("default")))
#else
#define SP_API
#endif

/** Value of sp_site::magic; lets the library validate a handle it is given. */
#define SP_SITE_MAGIC 0x53505354u

/**
 * @brief A region descriptor; its address is the region's handle.
 *
 * Declared `static const` per call site by the SP_* macros, or owned by the
 * library when returned by sp_region(). Regions with equal names are one
 * region in the output, whichever descriptors recorded them. A descriptor
 * must stay mapped until sp_finalize() (do not dlclose() the code holding it
 * before; an unreadable descriptor is counted as misuse, not dereferenced).
 */
struct sp_site {
	uint32_t magic;   /**< SP_SITE_MAGIC */
	int32_t line;     /**< source line, -1 if unknown */
	const char *name; /**< region name, NUL-terminated */
	const char *file; /**< source file, NULL if unknown */
};

/** Log levels passed to the log callback. */
enum sp_log_level {
	SP_LOG_ERROR = 1,
	SP_LOG_WARN = 2,
	SP_LOG_INFO = 3,
	SP_LOG_DEBUG = 4,
};

/**
 * @brief Receives one formatted message (no trailing newline).
 * @param level an enum sp_log_level value
 * @param msg message, borrowed for the duration of the call
 * @param ctx the pointer given to sp_set_log_fn()
 */
typedef void (*sp_log_fn)(int level, const char *msg, void *ctx);

/**
 * @brief Options for sp_init_opts(); zero-initialise, then set sz.
 *
 * New fields are only ever appended; the library reads the fields that
 * fit in sz, so a program built against an older header keeps working.
 */
struct sp_options {
	size_t sz;            /**< sizeof(struct sp_options) */
	const char *prefix;   /**< output prefix; NULL = env or "scope_profiler" */
	const char *label;    /**< run label written to HDF5 output; may be NULL */
	int32_t sample_hz;    /**< > 0: start sampling at this rate */
	int32_t reserved;
};

/**
 * @brief Sets the output prefix and label. Optional: the first sp_* call
 * initialises from the environment otherwise.
 *
 * SCOPE_PROFILER_PREFIX, when set, wins over @p prefix (so a tool can
 * redirect a program's traces). Calling it again before sp_finalize()
 * updates prefix and label. Strings are copied.
 * @param prefix path prefix of the output files, NULL for the default
 * @param label run label, NULL for none
 * @return 0, or -EINVAL after sp_finalize(), -ENOMEM
 */
SP_API int sp_init(const char *prefix, const char *label);

/**
 * @brief sp_init() with options; fields beyond opts->sz are ignored.
 * @param opts options, borrowed for the call
 * @return as sp_init(); -EINVAL if opts is NULL or sz too small
 */
SP_API int sp_init_opts(const struct sp_options *opts);

/**
 * @brief Returns the library-owned handle of the region named @p name.
 *
 * The same name always returns the same handle; cache it, the lookup takes
 * a lock. Valid for the life of the process.
 * @param name region name, copied; NULL is counted as misuse
 * @return the handle, or NULL if @p name is NULL or memory is exhausted
 *         (sp_begin/sp_end ignore a NULL handle)
 */
SP_API const struct sp_site *sp_region(const char *name);

/**
 * @brief sp_region() with a source location, written to the trace.
 * @param name region name, copied
 * @param file source file, copied; NULL if unknown
 * @param line source line, -1 if unknown
 * @return as sp_region()
 */
SP_API const struct sp_site *sp_region_at(const char *name, const char *file,
					  int line);

/**
 * @brief sp_region_at() with explicit lengths (strings need no NUL);
 * trailing blanks are trimmed. This is what the Fortran module calls.
 * @param name region name, @p name_len bytes
 * @param name_len length of name
 * @param file source file, @p file_len bytes, NULL if unknown
 * @param file_len length of file
 * @param line source line, -1 if unknown
 * @return as sp_region()
 */
SP_API const struct sp_site *sp_region_n(const char *name, size_t name_len,
					 const char *file, size_t file_len,
					 int line);

/**
 * @brief Opens region @p h on the calling thread.
 *
 * Lock-free and allocation-free once the thread has recorded once. Regions
 * nest; each must be closed by sp_end() on the same thread.
 *
 * sp_begin() and sp_end() may be called from a signal handler, also one
 * that interrupted them: the interrupted call is kept as made, and a
 * handler's call that finds its thread inside the library where it cannot
 * be re-entered (recording a call, writing the buffer to the file, holding
 * a lock, registering the thread) is dropped and counted as misuse
 * "in_signal_handler" (reported at finalize, in the trace), never waited
 * for. Whatever else a handler's call runs allocates nothing and takes no
 * lock its thread may hold: the thread's periodic flush to the trace file
 * (its creation included), the thread's registration (its first call), the
 * process's first call, counters per region (sp_set_events()). Limits
 * (docs/security.md): the process's first call allocates if
 * SCOPE_PROFILER_PREFIX or the MPI rank's variables changed after the
 * library was loaded (call sp_init() first), and a log callback
 * (sp_set_log_fn()) may be called there when the trace file fails.
 * @param h handle from sp_region() or a static sp_site; NULL is counted
 */
SP_API void sp_begin(const struct sp_site *h);

/**
 * @brief Nonzero unless every call is a no-op (SCOPE_PROFILER_DISABLE=1, or
 * a fork() child). Read inline by the sp_begin()/sp_end() macros below so a
 * disabled call costs one load and a branch; never write it.
 */
SP_API extern int sp_enabled;

/**
 * @brief Closes region @p h, which should be the innermost open region of
 * the calling thread. If it is open deeper, the regions opened after it are
 * discarded; if it is not open, the call is ignored. Both are counted,
 * reported at finalize naming the regions, and recorded in the trace.
 * May be called from a signal handler (see sp_begin()).
 * @param h the handle given to the matching sp_begin()
 */
SP_API void sp_end(const struct sp_site *h);

/**
 * @brief Starts timer sampling of every thread of the process.
 *
 * Timers count each thread's CPU time (so blocked threads are not
 * interrupted and no system call fails with EINTR); the kernel delivers
 * signals at most at its tick rate (CONFIG_HZ) and counts the expirations
 * it folded into one signal (si_overrun): each sample weighs those. The
 * rate achieved (expirations per CPU second) is measured and written,
 * never the requested one. Installs a SIGPROF handler; refuses
 * if the program has its own.
 * @param hz requested rate per thread of CPU time; <= 0 for the default (200)
 * @return 0, -EALREADY if sampling, -EBUSY if SIGPROF is taken, -errno
 */
SP_API int sp_start_sampling(int hz);

/**
 * @brief Stops sampling; samples are kept for sp_finalize().
 * @return 0, or -EINVAL if sampling was not running
 */
SP_API int sp_stop_sampling(void);

/**
 * @brief Counts events per region: every sp_begin/sp_end of a thread reads
 * that thread's counters, and each region keeps, per thread, the inclusive
 * and exclusive sums (written to the trace; `scope-profiler inspect` shows
 * them). The same as SCOPE_PROFILER_EVENTS, which wins when set.
 *
 * Names as perf's or PAPI's (perf::PAGE-FAULTS, page-faults, task-clock,
 * context-switches, cycles, instructions, PAPI_TOT_CYC, r<hex> raw), at
 * most 8. An event the machine cannot count (no PMU, permissions, unknown
 * name) is logged with its reason and written unavailable in the trace;
 * the others are counted and the program runs on. Each read is a system
 * call: about 0.1-1 us per sp_begin and sp_end (docs/regions.md).
 * @param list comma-separated event names
 * @return 0 (unavailable events included), -EBUSY after the first region
 * was entered, -EALREADY if events were set already, -EINVAL for NULL
 */
SP_API int sp_set_events(const char *list);

/** @brief sp_set_events() with an explicit length (Fortran). */
SP_API int sp_set_events_n(const char *list, size_t len);

/**
 * @brief Writes the output files and turns every later call into a no-op.
 *
 * Files are written to a temporary name and renamed, so a failure never
 * leaves a partial file under the final name. Misuse counts are reported
 * once through the log. Call it once, from one thread; other threads may
 * still be recording (their later calls are dropped).
 * @return 0, or -errno of the first failed write (also logged)
 */
SP_API int sp_finalize(void);

/**
 * @brief The library version, e.g. "1.0.0". Async-signal-safe.
 * @return a static string
 */
SP_API const char *sp_version(void);

/**
 * @brief Routes the library's messages to @p fn instead of stderr.
 *
 * By default only errors are reported (to stderr); SP_LOG_LEVEL selects
 * the level (default warn once a callback is set). @p fn may be called from any
 * thread that calls into the library, never from a signal handler.
 * @param fn callback, NULL to restore the default
 * @param ctx passed back to fn
 */
SP_API void sp_set_log_fn(sp_log_fn fn, void *ctx);

/**
 * @brief Initialises with a length-delimited prefix and label (Fortran).
 * @param prefix prefix bytes (trailing blanks trimmed), NULL for default
 * @param prefix_len its length
 * @param label label bytes, NULL for none
 * @param label_len its length
 * @return as sp_init()
 */
SP_API int sp_init_n(const char *prefix, size_t prefix_len, const char *label,
		     size_t label_len);

/* A handle, or a compile error: sp_begin("work") (a string where a handle
 * is expected) is only a warning for a plain prototype, and would record
 * nothing. C++ already refuses the conversion. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SP_HANDLE_(h)                                                          \
	_Generic((h), const struct sp_site *: (h), struct sp_site *: (h),      \
		 void *: (h))
#else
#define SP_HANDLE_(h) (h)
#endif

/* The functions behind a test of sp_enabled: (sp_begin)(h) calls the
 * function directly. SP_NO_INLINE_GATE turns the test off (not the check). */
#if !defined(SP_BUILDING_LIBRARY) && !defined(SP_NO_INLINE_GATE)
#define sp_begin(h) (sp_enabled ? (sp_begin)(SP_HANDLE_(h)) : (void)0)
#define sp_end(h) (sp_enabled ? (sp_end)(SP_HANDLE_(h)) : (void)0)
#elif !defined(SP_BUILDING_LIBRARY)
#define sp_begin(h) (sp_begin)(SP_HANDLE_(h))
#define sp_end(h) (sp_end)(SP_HANDLE_(h))
#endif

/* ---- Convenience macros: compile to nothing without SP_ENABLE ---- */

#define SP_CAT2_(a, b) a##b
#define SP_CAT_(a, b) SP_CAT2_(a, b)

#if defined(SP_ENABLE)

/** @brief Declares the static descriptor of a call site (internal). */
#define SP_SITE_DECL_(var, name)                                               \
	static const struct sp_site var = {SP_SITE_MAGIC, __LINE__, (name),    \
					   __FILE__}

/** @brief Opens region @p name; close it with SP_END(@p tag). */
#define SP_BEGIN(tag, name)                                                    \
	SP_SITE_DECL_(SP_CAT_(sp_site_, tag), name);                           \
	sp_begin(&SP_CAT_(sp_site_, tag))

/** @brief Closes the region opened by SP_BEGIN(@p tag, ...). */
#define SP_END(tag) sp_end(&SP_CAT_(sp_site_, tag))

#if defined(__GNUC__)
static inline const struct sp_site *sp_scope_enter_(const struct sp_site *s)
{
	sp_begin(s);
	return s;
}
static inline void sp_scope_leave_(const struct sp_site *const *s)
{
	sp_end(*s);
}
/** @brief Times the rest of the enclosing block as region @p name. */
#define SP_SCOPE(name)                                                         \
	SP_SITE_DECL_(SP_CAT_(sp_scope_site_, __LINE__), name);                \
	const struct sp_site *SP_CAT_(sp_scope_h_, __LINE__)                   \
		__attribute__((cleanup(sp_scope_leave_), unused)) =             \
			sp_scope_enter_(&SP_CAT_(sp_scope_site_, __LINE__))
#endif

#else /* !SP_ENABLE */

#define SP_BEGIN(tag, name) ((void)0)
#define SP_END(tag) ((void)0)
#define SP_SCOPE(name) ((void)0)

#endif /* SP_ENABLE */

#ifdef __cplusplus
}
#endif

#endif /* SP_SCOPE_PROFILER_H */
