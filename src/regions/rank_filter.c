// SPDX-License-Identifier: BSD-3-Clause
#include "regions/rank_filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

int rank_filter_parse(struct rank_filter *f, const char *list, struct err *e)
{
	size_t cap = 0;
	const char *p = list;
	memset(f, 0, sizeof(*f));
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0)
			goto bad;
		if (*end == '-') {
			const char *q = end + 1;
			b = strtol(q, &end, 10);
			if (end == q || b < a)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		if (b - a > 1000000)
			goto bad;
		for (long r = a; r <= b; r++) {
			if (xgrow((void **)&f->ranks, &cap, f->nr + 1, sizeof(*f->ranks)))
				return err_oom(e);
			f->ranks[f->nr++] = (int32_t)r;
		}
		p = *end ? end + 1 : end;
	}
	if (f->nr)
		return 0;
bad:
	zfree(&f->ranks);
	f->nr = 0;
	return err_set(e, -EINVAL, ERR_USAGE,
		       "--ranks '%s': expected a list of ranks and ranges such as 0,2,4-7", list);
}

bool rank_filter__has(const struct rank_filter *f, int32_t rank)
{
	if (!f || f->nr == 0)
		return true;
	for (size_t i = 0; i < f->nr; i++)
		if (f->ranks[i] == rank)
			return true;
	return false;
}
