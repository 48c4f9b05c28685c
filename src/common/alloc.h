/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * All allocation in nunatak goes through here so tests can fail the Nth call
 * (NUNATAK_FAIL_ALLOC=N in the environment, read once per process by
 * alloc_fault_init()). The functions return NULL on failure like libc; callers
 * handle it and report -ENOMEM.
 */
#ifndef NUNATAK_COMMON_ALLOC_H
#define NUNATAK_COMMON_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows an array so it holds at least `need` elements of `elem` bytes.
 * Returns 0, or -ENOMEM leaving *p and *cap untouched. */
int xgrow(void **p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void xfree(void *p);
#define zfree(pp) (xfree(*(pp)), *(pp) = NULL)

/* Test builds: fail the Nth allocation from now on (0 disables). */
void alloc_fault_init(void);

#endif
