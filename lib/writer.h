/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writers of the output files (layouts in docs/formats.md). Every file is
 * written to a fresh "<final>.tmp.<random>" (tmpname.h: exclusive, never
 * through a symlink) and renamed over the final name only when
 * complete, so a failure or a crash never leaves a partial file there.
 */
#ifndef SP_WRITER_H
#define SP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "out.h"

struct sp_trace;

/* "<prefix>_rank<NNNNN><suffix>"; caller frees. NULL on ENOMEM. */
char *sp_writer__path(const char *prefix, int rank, const char *suffix);

/* The .spt trace: version 2 when at most one lane recorded, else 3, then
 * the extension block (timing context, misuse; sp_format.h). */
int sp_writer__spt(const struct sp_trace *tr, const char *path);
/* The region records of a streamed trace (tr->src), read back from the
 * unfinished trace and written in place (writer_stream.c); errors in o->err. */
void sp_writer__regions_streamed(struct sp_out *o, const struct sp_trace *tr, int version);
/* The .sps samples (version 1). */
int sp_writer__sps(const struct sp_trace *tr, const char *path);
/* The .h5 profile; -ENOTSUP when built without HDF5. */
int sp_writer__h5(const struct sp_trace *tr, const char *path, const char *label);

#endif
