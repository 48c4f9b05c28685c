/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ingestion of the OMPT tool's profiles (lib/ompt/nunatak_ompt.c): each
 * <dir>/ompt.<pid>.txt becomes omp_sites rows of the pivot, one per thread
 * and parallel region, on the thread's Locus (node, rank, tid); the sites
 * are named later by attribution (ompt_sites_symbolize, mpi/sites.h's
 * symbolizer). A file that does not parse is left out whole, with the
 * file, line and what was expected in the degradation
 * `openmp-tool-unreadable`; the other files still count.
 */
#ifndef NUNATAK_INGEST_OMPT_H
#define NUNATAK_INGEST_OMPT_H

#include <stddef.h>

struct pivot;
struct degradations;
struct err;

/* One profile's text (need not be NUL-terminated). node: the Locus's node,
 * or NULL for the file's own (an MPI rank's). 0, -EINVAL with e saying
 * where (path:line, what was expected; nothing added to p), or -ENOMEM. */
int ompt_parse(const char *text, size_t len, const char *path, const char *node,
	       struct pivot *p, struct err *e);

/* Every ompt.*.txt of dir; *nr_files: those read. 0 or -ENOMEM. */
int ingest_ompt(const char *dir, const char *node, struct pivot *p, struct degradations *d,
		int *nr_files, struct err *e);

#endif
