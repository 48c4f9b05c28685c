/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory for what a signal handler's sp_end may reach (the thread's
 * periodic flush: the staging buffer, the table of described regions, the
 * clock's anchors, scratch strings): anonymous mappings grown with mremap,
 * never malloc. mmap, mremap and munmap are system calls that take no lock
 * of the process, so they are safe in a handler that interrupted malloc
 * (malloc is not: its arena lock is held by the interrupted code).
 * Zero-filled when new or grown. Header-only, like tmpname.h.
 */
#ifndef SP_AMEM_H
#define SP_AMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static inline size_t sp_amem__round(size_t n)
{
	size_t page = 4096;
	return (n + page - 1) & ~(page - 1);
}

/* Makes *p (holding *cap bytes, NULL/0 at first) hold at least @p need
 * bytes, keeping its content. Returns false (*p and *cap unchanged) when
 * the system refuses. */
static inline bool sp_amem__reserve(void **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t want = *cap ? *cap : 4096;
	while (want < need)
		want *= 2;
	want = sp_amem__round(want);
	void *q = *p ? mremap(*p, *cap, want, MREMAP_MAYMOVE)
		     : mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			    0);
	if (q == MAP_FAILED)
		return false;
	*p = q;
	*cap = want;
	return true;
}

/* A fresh zero-filled area of at least @p bytes (*cap: its size), NULL on
 * failure. */
static inline void *sp_amem__zeroed(size_t bytes, size_t *cap)
{
	void *p = NULL;
	*cap = 0;
	return sp_amem__reserve(&p, cap, bytes) ? p : NULL;
}

static inline void sp_amem__free(void *p, size_t cap)
{
	if (p && cap)
		munmap(p, cap);
}

#endif
