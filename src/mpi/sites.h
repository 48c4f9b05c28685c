/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names the MPI call sites of a pivot (mpi_sites: module + ELF virtual
 * address of the call instruction) with the attribution's own symbolizer
 * adapter (regions/lines_symbolize.h: llvm-symbolizer, else GNU addr2line,
 * located by attrib/locate.h): one batched call per module, through the
 * execution boundary, after the samples' attribution. A site its module
 * cannot name keeps module+address. Modules that are not files
 * ("[vdso]") are skipped.
 */
#ifndef NUNATAK_MPI_SITES_H
#define NUNATAK_MPI_SITES_H

struct pivot;
struct executor;
struct attrib_tools;
struct degradations;
struct lines_run;
struct err;

/* run: the Run's decompressed debug copies and the symbolizer's
 * environment edits (regions/lines_symbolize.h), as for its Hotspots, or
 * NULL. Returns 0 (also when nothing could be named: `mpi-sites-unresolved` in d
 * then), or -ENOMEM / executor failure with e filled. */
int mpi_sites_symbolize(struct pivot *p, struct executor *x, const struct attrib_tools *t,
			const struct lines_run *run, struct degradations *d, struct err *e);

#endif
