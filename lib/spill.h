/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finalize's sort on disk, for the regions of a streamed trace whose calls
 * are not in order (writer_stream.c). Their calls are gathered in chunks of
 * at most `chunk` calls; each full chunk is sorted per region
 * (sp_trace__sort_calls' order, stable: file order among equal calls) and
 * appended to an unlinked scratch file beside the trace, one sorted run per
 * region. The last chunk stays in memory. The writer then merges each
 * region's runs, ties going to the earlier run, which is exactly the order
 * an in-memory finalize gives: the file is the same byte for byte. Memory:
 * 60 B x chunk while gathering (the chunk, its region ids, the sorted copy
 * and the sort's run bounds), then one read buffer per run of the region
 * being merged (at most SP_SPILL_MERGE_BYTES in all).
 */
#ifndef SP_SPILL_H
#define SP_SPILL_H

#include <stddef.h>
#include <stdint.h>

struct sp_call_out;
struct sp_spill;

/* Calls per chunk, unless SCOPE_PROFILER_FINALIZE_CHUNK says otherwise:
 * 256 Ki calls = 15 MiB while gathering (60 B a call with the sort's run
 * bounds). A trace of at most one chunk is finalized in memory as before. */
#define SP_SPILL_CHUNK (1u << 18)
#define SP_SPILL_MERGE_BYTES (8u << 20)

/* The chunk size in effect (the environment's, clamped, or SP_SPILL_CHUNK). */
size_t sp_spill__chunk(void);

/* A spill for @p nr_regions regions whose scratch file, if one is needed, is
 * created beside @p near_path. NULL on ENOMEM. */
struct sp_spill *sp_spill__new(const char *near_path, size_t nr_regions, size_t chunk);

/* Adds one call of @p region (calls come in file order). 0 or -errno. */
int sp_spill__add(struct sp_spill *sp, uint32_t region, const struct sp_call_out *c);

/* After the last call: sorts the chunk left in memory. 0 or -errno. */
int sp_spill__finish(struct sp_spill *sp);

/* Region @p r's calls in order: @p fn(ctx, calls, n) per batch. 0, -errno
 * or fn's non-zero return. */
int sp_spill__region(struct sp_spill *sp, uint32_t r,
		     int (*fn)(void *ctx, const struct sp_call_out *calls, size_t n), void *ctx);

void sp_spill__free(struct sp_spill *sp);

#endif
