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
 * symbolizer calls, and the Runs after use it. The copy is checked at each
 * use: directories and file ours (no symlink), and a seal of its identity
 * under the cache's key (common/cache_home.h): a file nunatak did not put
 * there is never handed to the symbolizer. Never under --record or replay.
 */
#ifndef NUNATAK_ATTRIB_DEBUG_COPY_H
#define NUNATAK_ATTRIB_DEBUG_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cache_home.h"

struct exec_request;
struct exec_result;

/* A copy this Run makes. */
struct debug_copy_job {
	char *name;     /* "<build-id>.<key>": the copy's directory under dir */
	char *original; /* the debug file */
	char *tmp;      /* where llvm-objcopy writes */
	char *build_id;
	const char *argv[5];
};

struct debug_copies {
	char *dir;           /* "<cache>/debug", or NULL: no copies this Run */
	char *objcopy;       /* llvm-objcopy of the symbolizer's install */
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	bool debuginfod;     /* DEBUGINFOD_URLS reaches the symbolizer */
	char **args;         /* "--debug-file-directory=…": each usable copy's, then the default */
	size_t nr_args;
	struct debug_copy_job *jobs;
	size_t nr_jobs;
	size_t nr_seen;      /* markers left (first meetings), for tests and -v */
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
 * cannot be read. Returns 0 or -ENOMEM. */
int debug_copies__init(struct debug_copies *dc, const char *dir, const char *symbolizer,
		       bool debuginfod);

/* A module llvm-symbolizer will be asked about, with its build-id (hex)
 * and .gnu_debuglink name (either may be NULL): finds its separate debug
 * file as LLVM does and, when that file's sections are compressed, uses its
 * copy, schedules the copy, or leaves the marker. Best effort: a problem
 * only means no copy. Returns 0 or -ENOMEM. */
int debug_copies__consider(struct debug_copies *dc, const char *module, const char *build_id,
			   const char *debuglink);

/* The symbolizer's extra arguments (NULL-terminated, borrowed): each
 * usable copy's directory, then /usr/lib/debug (which LLVM no longer reads
 * by itself once a directory is given); NULL when no copy is usable. */
const char *const *debug_copies__args(struct debug_copies *dc);

/* The copies to make, as requests for the Run's symbolizer batch (argv
 * borrowed from dc): fills out[0..nr_jobs). */
void debug_copies__requests(const struct debug_copies *dc, struct exec_request *out);

/* After the batch: each job's result (res[0..nr_jobs)) checked and put in
 * place, sealed. */
void debug_copies__finish(struct debug_copies *dc, const struct exec_result *res);

void debug_copies__release(struct debug_copies *dc);

/* What fd's section headers say (little-endian ELF32/ELF64): 1 when a
 * .debug_* section is zlib-compressed (what a copy is made for), 0 when
 * none is, -EINVAL when fd is not such an ELF; *build_id (malloc'd, or
 * NULL) its .note.gnu.build-id. Reads headers and notes only, bounded:
 * the entry of the fuzz target (tests/fuzz/fuzz_debug_scan.c). */
int debug_copy_scan(int fd, char **build_id);

#endif
