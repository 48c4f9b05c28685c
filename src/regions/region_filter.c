// SPDX-License-Identifier: BSD-3-Clause
#include "regions/region_filter.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/trace_set.h"

static int compile(regex_t **out, const char *const *pat, size_t n, struct err *e)
{
	*out = n ? xcalloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		return err_oom(e);
	for (size_t i = 0; i < n; i++) {
		if (regcomp(&(*out)[i], pat[i], REG_EXTENDED | REG_NOSUB) != 0) {
			for (size_t j = 0; j < i; j++)
				regfree(&(*out)[j]);
			zfree(out);
			return err_set(e, -EINVAL, ERR_USAGE,
				       "invalid regular expression '%s' (POSIX extended syntax)",
				       pat[i]);
		}
	}
	return 0;
}

int region_filter__init(struct region_filter *f, const char *const *inc, size_t nr_inc,
			const char *const *exc, size_t nr_exc, struct err *e)
{
	memset(f, 0, sizeof(*f));
	int rc = compile(&f->inc, inc, nr_inc, e);
	if (rc)
		return rc;
	f->nr_inc = nr_inc;
	if ((rc = compile(&f->exc, exc, nr_exc, e))) {
		region_filter__release(f);
		return rc;
	}
	f->nr_exc = nr_exc;
	return 0;
}

void region_filter__release(struct region_filter *f)
{
	for (size_t i = 0; i < f->nr_inc; i++)
		regfree(&f->inc[i]);
	for (size_t i = 0; i < f->nr_exc; i++)
		regfree(&f->exc[i]);
	xfree(f->inc);
	xfree(f->exc);
	xfree(f->verdict);
	memset(f, 0, sizeof(*f));
}

bool region_filter__active(const struct region_filter *f)
{
	return f && (f->nr_inc || f->nr_exc);
}

static bool any(const regex_t *re, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (regexec(&re[i], s, 0, NULL, 0) == 0)
			return true;
	return false;
}

bool region_filter__keep(struct region_filter *f, const struct trace_set *ts, uint32_t id)
{
	if (!region_filter__active(f))
		return true;
	if (id >= f->cap) {
		size_t old = f->cap;
		if (xgrow((void **)&f->verdict, &f->cap, (size_t)id + 1, sizeof(*f->verdict)))
			goto compute; /* no cache: decide every time */
		memset(f->verdict + old, 0, f->cap - old);
	}
	if (f->verdict[id])
		return f->verdict[id] > 0;
compute:;
	const char *name = ts->regions[id].name;
	bool keep = (!f->nr_inc || any(f->inc, f->nr_inc, name)) && !any(f->exc, f->nr_exc, name);
	if (id < f->cap)
		f->verdict[id] = keep ? 1 : -1;
	return keep;
}

int region_filter__apply(struct region_filter *f, const struct trace_set *ts,
			 struct rank_data *rd)
{
	if (!region_filter__active(f))
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < rd->nr_regions; i++)
		if (region_filter__keep(f, ts, rd->regions[i].id))
			rd->regions[k++] = rd->regions[i];
	rd->nr_regions = k;
	return 0;
}
