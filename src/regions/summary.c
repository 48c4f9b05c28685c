// SPDX-License-Identifier: BSD-3-Clause
#include "regions/summary.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "regions/callstack.h"
#include <stdint.h>
#include "regions/trace_set.h"

int summary__init(struct summary *s, size_t nr_ranks)
{
	memset(s, 0, sizeof(*s));
	s->nr_ranks = nr_ranks;
	s->rank_ids = xcalloc(nr_ranks + 1, sizeof(*s->rank_ids));
	s->session_ns = xcalloc(nr_ranks + 1, sizeof(*s->session_ns));
	s->span_ns = xcalloc(nr_ranks + 1, sizeof(*s->span_ns));
	s->wall_ns = xcalloc(nr_ranks + 1, sizeof(*s->wall_ns));
	return s->rank_ids && s->session_ns && s->span_ns && s->wall_ns ? 0 : -ENOMEM;
}

void summary__release(struct summary *s)
{
	for (size_t i = 0; i < s->nr; i++)
		xfree(s->r[i].rank_cov);
	xfree(s->r);
	xfree(s->rank_ids);
	xfree(s->session_ns);
	xfree(s->span_ns);
	xfree(s->wall_ns);
	xfree(s->node_nested);
	path_stats__release(&s->ps);
	memset(s, 0, sizeof(*s));
}

static int grow_regions(struct summary *s, size_t n)
{
	if (n <= s->nr)
		return 0;
	if (xgrow((void **)&s->r, &s->cap, n, sizeof(*s->r)))
		return -ENOMEM;
	for (size_t i = s->nr; i < n; i++) {
		memset(&s->r[i], 0, sizeof(s->r[i]));
		s->r[i].rank_cov = xcalloc(s->nr_ranks + 1, sizeof(int64_t));
		if (!s->r[i].rank_cov)
			return -ENOMEM;
		s->nr = i + 1;
	}
	return 0;
}

/* Whether a path node has an ancestor of its own region, memoised per node:
 * the call paths are few even when the calls are many. */
static int node_nested(struct summary *s, const struct path_tree *pt, uint32_t node)
{
	if (node >= s->cap_nodes) {
		size_t old = s->cap_nodes;
		if (xgrow((void **)&s->node_nested, &s->cap_nodes, pt->n, 1))
			return -ENOMEM;
		memset(s->node_nested + old, -1, s->cap_nodes - old);
	}
	if (s->node_nested[node] < 0) {
		int8_t v = 0;
		for (int32_t a = pt->parent[node]; a >= 0 && !v; a = pt->parent[a])
			v = pt->region[a] == pt->region[node];
		s->node_nested[node] = v;
	}
	return s->node_nested[node];
}

static inline void sat_add(int64_t *acc, int64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		*acc = v > 0 ? INT64_MAX : INT64_MIN;
}

int summary__begin_rank(struct summary *s, size_t slot, int32_t rank, int32_t nr_lanes,
			const struct trace_set *ts, const struct path_tree *pt)
{
	if (grow_regions(s, ts->nr_regions))
		return -ENOMEM;
	path_stats__release(&s->ps);
	if (path_stats__init(&s->ps, nr_lanes))
		return -ENOMEM;
	s->pt = pt;
	s->slot = slot;
	s->rank_ids[slot] = rank;
	s->session_region = -1;
	for (size_t i = 0; i < s->nr; i++)
		if (strcmp(ts->regions[i].name, SESSION_REGION) == 0)
			s->session_region = (int64_t)i;
	return 0;
}

struct call_sink summary__sink(struct summary *s)
{
	struct call_sink k = {.stats = &s->ps};
	return k;
}

static int64_t clamp(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Folds one path node of this rank into its region. */
static int fold(struct summary *s, uint32_t node, const struct node_acc *a)
{
	struct region_summary *r = &s->r[s->pt->region[node]];
	int nested = node_nested(s, s->pt, node);
	if (nested < 0)
		return -ENOMEM;
	int64_t rel = a->first - s->ps.min_start;
	if (!r->seen || rel < r->first_start_ns)
		r->first_start_ns = rel;
	if (!r->seen || a->min < r->min_ns)
		r->min_ns = a->min;
	if (!r->seen || a->max > r->max_ns)
		r->max_ns = a->max;
	r->seen = true;
	r->calls += (int64_t)a->calls;
	sat_add(&r->total_ns, clamp(a->total));
	sat_add(&r->exclusive_ns, clamp(a->excl));
	r->sumsq += a->sumsq;
	sat_add(&r->parent_ns, clamp(a->parent_ns));
	if (a->root_seen)
		sat_add(&r->parent_ns, s->session_ns[s->slot]);
	if (!nested) {
		sat_add(&r->coverage_ns, clamp(a->total));
		sat_add(&r->rank_cov[s->slot], clamp(a->total));
	}
	s->nr_calls += (int64_t)a->calls;
	return 0;
}

int summary__end_rank(struct summary *s)
{
	size_t slot = s->slot;
	const struct path_stats *ps = &s->ps;
	if (ps->failed)
		return -ENOMEM;
	/* The session: the outermost calls of SESSION_REGION when there are. */
	int64_t session = -1;
	for (int32_t l = 0; l < ps->nr_lanes; l++)
		for (size_t i = 0; i < ps->cap[l] && i < s->pt->n; i++)
			if (ps->lane[l][i].calls && s->pt->parent[i] < 0 &&
			    (int64_t)s->pt->region[i] == s->session_region)
				session = (session < 0 ? 0 : session) + clamp(ps->lane[l][i].total);
	s->span_ns[slot] = ps->max_end - ps->min_start;
	/* Without a session region, each thread's session is its own first
	 * entry to last exit, and the rank's is their sum: a region's coverage
	 * (outermost calls, summed over threads) never exceeds it. */
	int64_t threads = 0;
	for (int32_t l = 0; l < ps->nr_lanes; l++) {
		int64_t first = INT64_MAX, last = INT64_MIN;
		for (size_t i = 0; i < ps->cap[l] && i < s->pt->n; i++) {
			const struct node_acc *a = &ps->lane[l][i];
			if (a->calls && s->pt->parent[i] < 0) {
				first = a->first < first ? a->first : first;
				last = a->last > last ? a->last : last;
			}
		}
		if (last >= first)
			sat_add(&threads, last - first);
	}
	s->session_ns[slot] = session >= 0 ? session : threads;
	s->wall_ns[slot] = session >= 0 ? session : s->span_ns[slot];
	int rc = 0;
	for (int32_t l = 0; l < ps->nr_lanes; l++)
		for (size_t i = 0; rc == 0 && i < ps->cap[l] && i < s->pt->n; i++)
			if (ps->lane[l][i].calls)
				rc = fold(s, (uint32_t)i, &ps->lane[l][i]);
	path_stats__release(&s->ps);
	s->nr_loaded++;
	return rc;
}

/* Folds src (its ranks in `slots`) into dst; both sized for the same ranks. */
int summary__merge(struct summary *dst, const struct summary *src, const size_t *slots,
		   size_t nr_slots)
{
	if (grow_regions(dst, src->nr))
		return -ENOMEM;
	for (size_t i = 0; i < src->nr; i++) {
		const struct region_summary *a = &src->r[i];
		struct region_summary *r = &dst->r[i];
		if (!a->seen)
			continue;
		if (!r->seen || a->first_start_ns < r->first_start_ns)
			r->first_start_ns = a->first_start_ns;
		if (!r->seen || a->min_ns < r->min_ns)
			r->min_ns = a->min_ns;
		if (!r->seen || a->max_ns > r->max_ns)
			r->max_ns = a->max_ns;
		r->seen = true;
		r->calls += a->calls;
		sat_add(&r->total_ns, a->total_ns);
		sat_add(&r->exclusive_ns, a->exclusive_ns);
		sat_add(&r->coverage_ns, a->coverage_ns);
		sat_add(&r->parent_ns, a->parent_ns);
		r->sumsq += a->sumsq;
		for (size_t k = 0; k < nr_slots; k++)
			r->rank_cov[slots[k]] += a->rank_cov[slots[k]];
	}
	for (size_t k = 0; k < nr_slots; k++) {
		size_t j = slots[k];
		dst->rank_ids[j] = src->rank_ids[j];
		dst->session_ns[j] = src->session_ns[j];
		dst->span_ns[j] = src->span_ns[j];
		dst->wall_ns[j] = src->wall_ns[j];
	}
	dst->nr_loaded += src->nr_loaded;
	dst->nr_calls += src->nr_calls;
	return 0;
}

int64_t summary__session_total(const struct summary *s)
{
	int64_t t = 0;
	for (size_t i = 0; i < s->nr_ranks; i++)
		t += s->session_ns[i];
	return t;
}

int64_t summary__wall_ns(const struct summary *s)
{
	int64_t t = 0;
	for (size_t i = 0; i < s->nr_ranks; i++) {
		t = s->wall_ns[i] > t ? s->wall_ns[i] : t;
	}
	return t;
}

double region_summary__std(const struct region_summary *r)
{
	if (r->calls <= 0 || r->total_ns == INT64_MAX)
		return 0.0;
	/* n * sum(d^2) - (sum d)^2 = n^2 var, exact in 128 bits for real traces. */
	unsigned __int128 n = (unsigned __int128)r->calls, sum = (unsigned __int128)r->total_ns;
	unsigned __int128 a = n * r->sumsq, b = sum * sum;
	long double var = a > b ? (long double)(a - b) / ((long double)n * (long double)n) : 0;
	return (double)sqrtl(var);
}

static const char *const col_names[NR_COLS] = {
	"region", "calls", "percent", "parent_percent", "total", "avg", "min", "max", "std",
	"imbalance", "exclusive"};

int summary_parse_columns(const char *list, int *cols, struct err *e)
{
	size_t n = 0;
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		int found = -1;
		for (int c = 0; c < NR_COLS; c++)
			if (strlen(col_names[c]) == len && strncmp(p, col_names[c], len) == 0)
				found = c;
		if (found < 0)
			return err_set(e, -EINVAL, ERR_USAGE,
				       "unknown column '%.*s': expected a comma-separated list of "
				       "region, calls, percent, parent_percent, total, avg, min, "
				       "max, std, imbalance, exclusive",
				       (int)len, p);
		if (n < NR_COLS)
			cols[n++] = found;
		p += len;
		if (*p == ',')
			p++;
	}
	cols[n] = -1;
	return 0;
}

static const char *const sort_keys[] = {"start", "total", "calls", "avg", "min",
					"max",   "std",   "name",  NULL};

int summary_parse_sort(const char *sort, struct err *e)
{
	for (int i = 0; sort_keys[i]; i++)
		if (strcmp(sort, sort_keys[i]) == 0)
			return i;
	return err_set(e, -EINVAL, ERR_USAGE,
		       "unknown sort key '%s': expected start, total, calls, avg, min, max, std "
		       "or name",
		       sort);
}

struct sort_ctx {
	const struct summary *s;
	const struct trace_set *ts;
	int key;
};

static double sort_value(const struct sort_ctx *x, uint32_t id)
{
	const struct region_summary *r = &x->s->r[id];
	switch (x->key) {
	case 0: return (double)r->first_start_ns;
	case 1: return -(double)r->total_ns;
	case 2: return -(double)r->calls;
	case 3: return -(r->calls ? (double)r->total_ns / (double)r->calls : 0);
	case 4: return -(double)r->min_ns;
	case 5: return -(double)r->max_ns;
	case 6: return -region_summary__std(r);
	default: return 0;
	}
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *x = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (x->key != 7) {
		double vi = sort_value(x, i), vj = sort_value(x, j);
		if (vi != vj)
			return vi < vj ? -1 : 1;
	}
	int c = strcmp(x->ts->regions[i].name, x->ts->regions[j].name);
	return c ? c : (i > j) - (i < j);
}

static int compile_all(const char *const *pat, size_t n, regex_t *re, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (regcomp(&re[i], pat[i], REG_EXTENDED | REG_NOSUB) != 0) {
			for (size_t j = 0; j < i; j++)
				regfree(&re[j]);
			return err_set(e, -EINVAL, ERR_USAGE,
				       "invalid regular expression '%s' (POSIX extended syntax)",
				       pat[i]);
		}
	}
	return 0;
}

static bool any_match(const regex_t *re, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (regexec(&re[i], s, 0, NULL, 0) == 0)
			return true;
	return false;
}

int summary__rows(const struct summary *s, const struct trace_set *ts,
		  const struct summary_view *v, uint32_t **ids, size_t *nr, struct err *e)
{
	regex_t inc[v->nr_include + 1], exc[v->nr_exclude + 1];
	int rc = compile_all(v->include, v->nr_include, inc, e);
	if (rc)
		return rc;
	if ((rc = compile_all(v->exclude, v->nr_exclude, exc, e))) {
		for (size_t i = 0; i < v->nr_include; i++)
			regfree(&inc[i]);
		return rc;
	}
	*nr = 0;
	*ids = xmalloc((s->nr + 1) * sizeof(**ids));
	for (uint32_t id = 0; *ids && id < s->nr; id++) {
		const char *nm = ts->regions[id].name;
		if (!s->r[id].seen || (v->nr_include && !any_match(inc, v->nr_include, nm)) ||
		    any_match(exc, v->nr_exclude, nm))
			continue;
		(*ids)[(*nr)++] = id;
	}
	for (size_t i = 0; i < v->nr_include; i++)
		regfree(&inc[i]);
	for (size_t i = 0; i < v->nr_exclude; i++)
		regfree(&exc[i]);
	if (!*ids)
		return err_oom(e);
	struct sort_ctx x = {s, ts, v->sort ? summary_parse_sort(v->sort, NULL) : 0};
	if (x.key < 0)
		x.key = 0;
	qsort_r(*ids, *nr, sizeof(**ids), cmp_rows, &x);
	return 0;
}

const char *fmt_duration(char *buf, size_t n, double ns)
{
	double a = fabs(ns);
	if (a >= 1e9)
		snprintf(buf, n, "%.3f s", ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%.3f ms", ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.3f us", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
	return buf;
}
