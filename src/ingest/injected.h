/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Samples in the libraries nunatak injects into the application: the PMPI
 * probe (libnunatak-mpi*.so) and the preload sampler (libscope_profiler.so*).
 * Their code runs inside the application's calls, and the user never wrote
 * it: no Hotspot, stack frame or flame node may name these libraries or
 * their internals (issue 29).
 *
 * Every frame of a sample that lies in one of them is replaced, before
 * aggregation, by a pseudo-module frame with no offset named after the call
 * the application made:
 *  - in the probe: the MPI function its wrapper wraps, `[mpi:MPI_Test]`
 *    (a Fortran binding `mpi_test_` is `MPI_Test` too); a frame in the
 *    probe's internals (the bookkeeping after the call) takes the wrapper
 *    found further out in the call chain, or `[mpi:MPI]` without one. Such a
 *    frame is MPI time (analysis/threads.h counts `[mpi:` modules as MPI);
 *  - in the preload library: its public entry point the application called
 *    (`sp_*`, `[collection:sp_region_begin]`), else `[collection:overhead]`;
 *  - in nunatak's OMPT tool (libnunatak_ompt.so*), called back by the
 *    OpenMP runtime: `[collection:overhead]`;
 *  - in nunatak's own executable (`nunatak fg-exec` or the rank shim,
 *    sampled before it execs the application): `[collection:overhead]`.
 * Consecutive frames that become the same pseudo frame are one frame.
 * The functions come from the library's own ELF symbols (attrib/elf.h); a
 * library that cannot be read is still hidden, under the generic names.
 */
#ifndef NUNATAK_INGEST_INJECTED_H
#define NUNATAK_INGEST_INJECTED_H

#include <stdbool.h>
#include <stddef.h>

struct ingest_sample;
struct injected;

/* A new cache of the injected libraries met (their symbols), or NULL; the
 * running executable counts as nunatak's own when it is named nunatak. */
struct injected *injected__new(void);
/* The same with nunatak's executable given (NULL: none). */
struct injected *injected__new_self(const char *self);
void injected__free(struct injected *c);

/* Whether a frame in module (len bytes) is one injected__rewrite()
 * replaces: a pure function of the name, the same for every frame of it
 * (the aggregator asks once per module). */
bool injected__is_injected(const struct injected *c, const char *module, size_t len);

/* When s has a frame in an injected library, *out is s rewritten (its
 * frames owned by c, valid until the next call) and 1 is returned; 0 when
 * s has none (*out untouched); -ENOMEM. */
int injected__rewrite(struct injected *c, const struct ingest_sample *s,
		      struct ingest_sample *out);

/* True for a pseudo-module this file writes ("[mpi:...]", "[collection:...]"). */
bool injected_is_pseudo(const char *module);
/* The function name a pseudo-module stands for ("MPI_Test" for
 * "[mpi:MPI_Test]"), written into out; false when module is not one. */
bool injected_pseudo_name(const char *module, char *out, size_t cap);

#endif
