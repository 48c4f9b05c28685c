// SPDX-License-Identifier: BSD-3-Clause
#include "model/rank_list.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

/* A decimal rank at *s (advanced past it). */
static int rank_at(const char **s, int64_t *out)
{
	int64_t v = 0;
	const char *p = *s;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > INT32_MAX)
			return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

/* One token: a, or lo-hi[:step]. */
static int token(const char **s, int64_t *lo, int64_t *hi, int64_t *step)
{
	*step = 1;
	if (rank_at(s, lo))
		return -EINVAL;
	*hi = *lo;
	if (**s != '-')
		return 0;
	(*s)++;
	if (rank_at(s, hi) || *hi <= *lo)
		return -EINVAL;
	if (**s == ':') {
		(*s)++;
		if (rank_at(s, step) || *step <= 0 || (*hi - *lo) % *step)
			return -EINVAL;
	}
	return 0;
}

int rank_list_append(const char *text, size_t limit, int **v, size_t *nr, size_t *cap)
{
	const char *s = text;
	while (*s) {
		int64_t lo, hi, step;
		if (token(&s, &lo, &hi, &step) || (*s && *s != ',') || (*s == ',' && !s[1]))
			return -EINVAL;
		s += *s == ',';
		uint64_t count = (uint64_t)((hi - lo) / step) + 1;
		if (count > limit - *nr)
			return -EINVAL;
		if (xgrow((void **)v, cap, *nr + (size_t)count, sizeof(**v)))
			return -ENOMEM;
		for (int64_t r = lo; r <= hi; r += step)
			(*v)[(*nr)++] = (int)r;
	}
	return 0;
}

char *rank_list_format(const int *v, size_t n)
{
	size_t cap = n * 24 + 1, len = 0;
	char *out = xmalloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		int64_t step = i + 1 < n ? (int64_t)v[i + 1] - v[i] : 0;
		if (step > 0)
			while (j + 1 < n && (int64_t)v[j + 1] - v[j] == step)
				j++;
		const char *sep = len ? "," : "";
		if (step == 1 || (step > 1 && j - i >= 2)) {
			if (step == 1)
				len += (size_t)snprintf(out + len, cap - len, "%s%d-%d", sep, v[i], v[j]);
			else
				len += (size_t)snprintf(out + len, cap - len, "%s%d-%d:%lld", sep, v[i],
							v[j], (long long)step);
			i = j + 1;
		} else {
			len += (size_t)snprintf(out + len, cap - len, "%s%d", sep, v[i]);
			i++;
		}
	}
	return out;
}
