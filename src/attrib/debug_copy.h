/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decompressed copies of separate debug files (docs/attribution.md, "Debug
 * copies"). A module's debug file with zlib-compressed .debug_* sections
 * (libc6-dbg's, `-gz`) makes llvm-symbolizer inflate them at every start:
 * 42 ms of libc's 95 ms in a warm LAMMPS finish. nunatak keeps a copy with
 * those sections decompressed (made by llvm-objcopy of the symbolizer's
 * install, through the executor) and hands it to llvm-symbolizer with
 * --debug-file-directory, before the directory it reads anyway.
 *
 * Each copy is keyed by the module's build-id and the original debug
 * file's identity (path, device, inode, size, mtime in ns, and the
 * module's .gnu_debuglink CRC when the file was found by that link): a
 * changed original is copied again. A Run never makes the copy of a file
 * it meets for the first time (it leaves a marker), so a first Run costs
 * what it did; the next Run that needs the file makes it beside its
 * symbolizer calls, and the Runs after use it (every symbolizer call of a
 * Run: the Hotspots', the MPI call sites', the OpenMP regions'). A failed
 * copy is tried again after a back-off. The copy is checked at each
 * use: directories and file ours (no symlink), and a seal of its identity
 * under the cache's key (common/cache_home.h): a file nunatak did not put
 * there is never handed to the symbolizer. Never under --record or replay.
 */
#ifndef NUNATAK_ATTRIB_DEBUG_COPY_H
#define NUNATAK_ATTRIB_DEBUG_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/cache_home.h"

struct exec_request;
struct exec_result;

/* A copy this Run makes. */
struct debug_copy_job {
	char *name;     /* "<build-id>.<key>": the copy's directory under dir */
	char *original; /* the debug file */
	char *tmp;      /* where llvm-objcopy writes */
	char *build_id;
	unsigned failures; /* earlier attempts that failed (a retry: > 0) */
	const char *argv[5];
};

/* A debug file this Run met (once per Run, whichever call met it first). */
struct debug_copy_met {
	char *name;     /* "<build-id>.<key>" */
	char *build_id;
	char *arg;      /* "--debug-file-directory=<its copy>" while usable, or NULL */
	bool by_link;   /* found by .gnu_debuglink (not with debuginfod in play) */
};

/*
 * The debug copies of one Run, shared by every llvm-symbolizer call it
 * makes (the Hotspots', the MPI call sites', the OpenMP regions'): a file
 * met by several calls is considered once (a marker left by one is not a
 * second meeting for the next), a copy is made once, and each call's
 * batch makes the copies scheduled since the last batch.
 */
struct debug_copies {
	char *dir;           /* "<cache>/debug", or NULL: no copies this Run */
	char *objcopy;       /* llvm-objcopy of the symbolizer's install */
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	time_t now;          /* the Run's clock for retries (set by init; tests move it) */
	struct debug_copy_met *met;
	size_t nr_met;
	struct debug_copy_job *jobs;
	size_t nr_jobs;
	size_t nr_issued;    /* jobs already handed to a batch (requests/finish) */
	size_t nr_seen;      /* markers left (first meetings), for tests and -v */
	size_t nr_made, nr_failed;
	char **notes;        /* what -v says, one line each (debug_copies__notes) */
	size_t nr_notes;
	bool summarized;     /* the counts' line is in notes */
};

/* Where llvm-symbolizer looks for a module's separate debug file when it
 * is given no --debug-file-directory, in its order: by build-id,
 * /usr/lib/debug/.build-id/xx/rest.debug (NULL without a build-id of more
 * than one byte); by .gnu_debuglink name, beside the module, in its .debug/
 * and under /usr/lib/debug (out[3], each allocated; returns how many, 0
 * without a link or a directory in module). One list for attribution's
 * "is there debug information nearby" and for the debug copies. */
char *debug_file_by_build_id(const char *build_id);
size_t debug_files_by_link(const char *module, const char *debuglink, char *out[3]);

/* Ready for a Run: dir (borrowed, may be NULL: nothing is done) holds the
 * copies; symbolizer is the llvm-symbolizer path its llvm-objcopy sits
 * beside. Nothing is done either when LLVM_SYMBOLIZER_OPTS is set (the
 * user's own options would be read before ours) or nunatak's cache key
 * cannot be read. The caller keeps it away from --record and replay.
 * Returns 0 or -ENOMEM. */
int debug_copies__init(struct debug_copies *dc, const char *dir, const char *symbolizer);

/* A module llvm-symbolizer will be asked about, with its build-id (hex)
 * and .gnu_debuglink name (either may be NULL); debuginfod: whether
 * DEBUGINFOD_URLS reaches that call (LLVM asks it before the link's
 * names, so only a build-id file is taken then). Finds its separate debug
 * file as LLVM does and, when that file's sections are compressed, uses its
 * copy, schedules the copy (a second meeting, or a failed copy whose
 * back-off has passed), or leaves the marker. Once per file and Run. Best
 * effort: a problem only means no copy. Returns 0 or -ENOMEM. */
int debug_copies__consider(struct debug_copies *dc, const char *module, const char *build_id,
			   const char *debuglink, bool debuginfod);

/* The same for a module known by its path only (the MPI call sites', the
 * OpenMP regions' modules): its build-id, link and whether it has
 * .debug_info of its own are read from its section headers (bounded). */
int debug_copies__consider_module(struct debug_copies *dc, const char *module, bool debuginfod);

/* A call's extra arguments (NULL-terminated, malloc'd array of borrowed
 * strings; the caller frees the array before dc): each copy met this Run
 * whose identity and seal still hold, checked now, then /usr/lib/debug
 * (which LLVM no longer reads by itself once a directory is given); NULL
 * when no copy is usable. With debuginfod, copies found by the link are
 * left out. */
const char **debug_copies__args(struct debug_copies *dc, bool debuginfod);

/* argv (a symbolizer call, --obj=M at argv[2]) with extra after argv[2]:
 * malloc'd, of borrowed strings, or NULL when extra is NULL or argv too
 * short (use argv as is). *oom is set when allocation failed. */
const char **debug_copies__argv(const char *const *argv, const char *const *extra, bool *oom);

/* The copies scheduled since the last batch: how many, and as requests
 * for the caller's batch (argv borrowed from dc) into out[0..pending). */
size_t debug_copies__pending(const struct debug_copies *dc);
void debug_copies__requests(const struct debug_copies *dc, struct exec_request *out);

/* After the batch: each pending job's result (res[0..pending)) checked
 * and put in place, sealed; a failure is marked for a retry after a
 * back-off (DEBUG_COPY_RETRY_*). */
void debug_copies__finish(struct debug_copies *dc, const struct exec_result *res);

/* A failed copy is tried again on the first Run after
 * DEBUG_COPY_RETRY_FIRST_S, the wait doubling with each failure up to
 * DEBUG_COPY_RETRY_MAX_S: a file llvm-objcopy cannot decompress costs one
 * attempt a week at most, a full disk is tried again the next hour. */
#define DEBUG_COPY_RETRY_FIRST_S 3600
#define DEBUG_COPY_RETRY_MAX_S (7 * 86400)
time_t debug_copy_retry_wait(unsigned failures);

/* What -v says of this Run's copies (NULL-terminated, borrowed): each
 * failure, retry, back-off and space refusal, then one line of counts;
 * NULL when the Run met no compressed debug file. */
const char *const *debug_copies__notes(struct debug_copies *dc);

void debug_copies__release(struct debug_copies *dc);

/* What fd's section headers say (little-endian ELF32/ELF64): 1 when a
 * .debug_* section is zlib-compressed (what a copy is made for), 0 when
 * none is, -EINVAL when fd is not such an ELF; *build_id (malloc'd, or
 * NULL) its .note.gnu.build-id. Reads headers and notes only, bounded:
 * the entry of the fuzz target (tests/fuzz/fuzz_debug_scan.c). */
int debug_copy_scan(int fd, char **build_id);

#endif
