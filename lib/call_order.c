/* SPDX-License-Identifier: BSD-3-Clause */
/* The order of a region's calls in a trace (trace.h): a natural merge sort,
 * linear on the library's own output, where each thread's calls already come
 * in runs. */
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Order of calls in a region: by start; at equal starts (nested calls of a
 * recursive region less than a clock step apart) the longer one first, so
 * an enclosing call precedes the calls it contains. */
static bool before(const struct sp_call_out *x, const struct sp_call_out *y)
{
	return x->start_ns < y->start_ns || (x->start_ns == y->start_ns && x->end_ns > y->end_ns);
}

static void merge(const struct sp_call_out *a, size_t na, const struct sp_call_out *b,
		  size_t nb, struct sp_call_out *out)
{
	size_t i = 0, j = 0, k = 0;
	while (i < na && j < nb)
		out[k++] = before(&b[j], &a[i]) ? b[j++] : a[i++];
	while (i < na)
		out[k++] = a[i++];
	while (j < nb)
		out[k++] = b[j++];
}

void sp_trace__sort_calls_in(struct sp_call_out *calls, size_t n, struct sp_call_out *tmp,
			     size_t *bounds)
{
	size_t nr = 0;
	bounds[nr++] = 0;
	for (size_t i = 1; i < n; i++)
		if (before(&calls[i], &calls[i - 1]))
			bounds[nr++] = i;
	bounds[nr] = n;
	struct sp_call_out *src = calls, *dst = tmp;
	while (nr > 1) { /* merge adjacent runs pairwise; bounds[nr] == n */
		size_t out = 0;
		for (size_t r = 0; r < nr; r += 2) {
			size_t lo = bounds[r];
			if (r + 1 >= nr) {
				memcpy(dst + lo, src + lo, (n - lo) * sizeof(*dst));
			} else {
				size_t mid = bounds[r + 1], hi = bounds[r + 2];
				merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
			}
			bounds[out++] = lo;
		}
		bounds[out] = n;
		nr = out;
		struct sp_call_out *t = src;
		src = dst;
		dst = t;
	}
	if (src != calls)
		memcpy(calls, src, n * sizeof(*calls));
}

int sp_trace__sort_calls(struct sp_call_out *calls, size_t n)
{
	size_t runs = 0;
	for (size_t i = 1; i < n; i++)
		runs += before(&calls[i], &calls[i - 1]);
	if (runs == 0)
		return 0;
	struct sp_call_out *tmp = malloc(n * sizeof(*tmp));
	size_t *bounds = malloc((runs + 2) * sizeof(*bounds));
	if (!tmp || !bounds) {
		free(tmp);
		free(bounds);
		return -ENOMEM;
	}
	sp_trace__sort_calls_in(calls, n, tmp, bounds);
	free(tmp);
	free(bounds);
	return 0;
}
