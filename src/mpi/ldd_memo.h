/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `ldd PROGRAM` before an MPI Run (mpi/abi.h: the MPI library the program
 * links, and that each built probe links the same), remembered between Runs
 * (issue 27: three ldd calls, each a shell script starting the loader 3-4
 * times, were most of an MPI Run's setup).
 *
 * The loader's answer depends on more than the program: what is kept is
 * keyed by ldd's own identity on disk, the program's path, LD_LIBRARY_PATH
 * and LD_PRELOAD (and the working directory when either holds a relative
 * entry), and is used again only while every file it depends on is
 * unchanged (device, inode, size, mtime and ctime in ns): the program, the
 * loader's cache /etc/ld.so.cache and /etc/ld.so.preload, every directory
 * of LD_LIBRARY_PATH, every object ldd resolved and the directory holding
 * each (a library dropped beside one it found changes that directory).
 * An answer naming a library "not found", or depending on a file changed
 * in the last second (a timestamp's granularity may hide a change made in
 * the same tick), is not kept. Entries are sealed (common/cache_home.h). Not
 * covered: a library newly placed in an RPATH/RUNPATH directory that holds
 * none of the objects ldd resolved.
 */
#ifndef NUNATAK_MPI_LDD_MEMO_H
#define NUNATAK_MPI_LDD_MEMO_H

#include <stdbool.h>

struct executor;

/* ldd's stdout and stderr for path, joined by a newline (caller frees), or
 * NULL when ldd could not be started (missing) or on ENOMEM. With memo (not
 * under recording or replay: those must hold or serve every call), a kept
 * answer still valid is returned without starting ldd, and a fresh one is
 * kept. */
char *ldd_memo_run(struct executor *x, const char *path, bool memo);

#endif
