/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace file while the program runs: each thread's bounded call buffer
 * is appended to it as frames (sp_format.h, docs/formats.md "unfinished
 * trace") when it fills, about once a second while the thread records, and
 * when the thread exits. A process killed at any moment leaves every frame
 * written so far, which the readers recover. sp_finalize() drains the
 * buffers, reads the frames back and writes the finished .spt over it.
 *
 * The file is created at the first flush, at the .spt path of the current
 * prefix (moved if sp_init() changes the prefix later). If it cannot be
 * created the calls go to an anonymous memory file instead (announced: a
 * crash then loses them). One lock (the stream lock) orders all writes.
 */
#ifndef SP_STREAM_H
#define SP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_call;
struct sp_thread;

/* Where the file goes: the .spt path (copied) and the rank. Renames an
 * already created file. Called at init and when sp_init sets a prefix. */
void sp_stream__set_path(const char *path, int rank);

/* Appends @p t's buffered calls and resets its buffer. Cold path of the
 * recording thread (or its exit); drops them, counted, once @p t is
 * drained by finalize. */
void sp_stream__flush(struct sp_thread *t);

/* Finalize: flushes every thread's remaining calls and marks it drained. */
void sp_stream__drain(struct sp_thread **threads, size_t nr);

/* Reads the calls back in file order: @p fn(ctx, lane order, calls, n) per
 * frame. Returns 0 or -errno (the file could not be read). */
int sp_stream__each_call(int (*fn)(void *ctx, int order, const struct sp_call *calls,
				   size_t n),
			 void *ctx);

/* The same, each frame with its calls' counts (sp_format.h 'CVAL'):
 * @p vals holds @p per_call values per call, NULL when the frame has none
 * (no events counted, or the thread had no counter group). */
int sp_stream__each_call_values(int (*fn)(void *ctx, int order, const struct sp_call *calls,
					  size_t n, const int64_t *vals, int per_call),
				void *ctx);

/* Calls @p fn(ctx, handle, calls flushed) for every handle in the file.
 * Returns false (and calls nothing) when the counts are not exact (memory
 * ran out, a write failed): then count by reading the file back. */
struct sp_site;
bool sp_stream__each_site(void (*fn)(void *ctx, const struct sp_site *site, uint64_t calls),
			  void *ctx);

/* Path of the unfinished trace, NULL if none was created (or it is in
 * memory). Borrowed until sp_stream__close. */
const char *sp_stream__path(void);

/* Closes the file; removes it when @p remove and it is not @p keep_path
 * (the finished trace that replaced it). */
void sp_stream__close(bool remove, const char *keep_path);

/* In a fork child: forget the parent's file without touching it. */
void sp_stream__after_fork_child(void);

#endif
