// SPDX-License-Identifier: BSD-3-Clause
#include "common/alloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fault injection counter: process-wide by nature (it counts every allocation
 * of the process), set only from the environment in tests. */
static atomic_long fail_at;

void alloc_fault_init(void)
{
	const char *s = getenv("NUNATAK_FAIL_ALLOC");
	atomic_store(&fail_at, s ? atol(s) : 0);
}

static int should_fail(void)
{
	if (atomic_load_explicit(&fail_at, memory_order_relaxed) <= 0)
		return 0;
	return atomic_fetch_sub(&fail_at, 1) == 1;
}

void *xmalloc(size_t n)
{
	return should_fail() ? NULL : malloc(n ? n : 1);
}

void *xcalloc(size_t nmemb, size_t size)
{
	return should_fail() ? NULL : calloc(nmemb ? nmemb : 1, size ? size : 1);
}

void *xrealloc(void *p, size_t n)
{
	return should_fail() ? NULL : realloc(p, n ? n : 1);
}

int xgrow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > ((size_t)-1) / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > ((size_t)-1) / elem)
		return -ENOMEM;
	void *n = xrealloc(*p, ncap * elem);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}

char *xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);
	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *s = xmalloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void xfree(void *p)
{
	free(p);
}
