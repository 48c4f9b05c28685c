// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/mpi_view.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

static int rank_of(const struct pivot *p, int64_t locus)
{
	return locus >= 0 && (size_t)locus < p->nr_loci ? p->loci[locus].rank : -1;
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* The heaviest site of (rank, call), described for the summary; returns
 * its time (ns), 0 when the call has no site. */
static int64_t site_text(const struct pivot *p, int rank, const char *call, char *out,
			 size_t cap)
{
	const struct mpi_site *best = NULL;
	for (size_t i = 0; i < p->nr_mpi_sites; i++) {
		const struct mpi_site *s = &p->mpi_sites[i];
		if (rank_of(p, s->locus) == rank && s->name && strcmp(s->name, call) == 0 &&
		    (!best || s->time_ns > best->time_ns))
			best = s;
	}
	out[0] = '\0';
	if (!best)
		return 0;
	if (best->file && best->line > 0)
		snprintf(out, cap, "%s:%d", base(best->file), best->line);
	else if (best->function)
		snprintf(out, cap, "%s", best->function);
	else
		snprintf(out, cap, "%s+0x%llx", base(best->module),
			 (unsigned long long)best->address);
	return best->time_ns;
}

static void read_measurements(const struct pivot *p, struct mpi_view *v)
{
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		int r = rank_of(p, m->locus);
		if (m->hotspot != PIVOT_NONE || r < 0 || (size_t)r >= v->nr || !m->counter)
			continue;
		struct mpi_rank_time *t = &v->ranks[r];
		if (strcmp(m->counter, "mpi_time") == 0) {
			t->measured = true;
			t->mpi_ns += m->value;
			t->quality = quality__worst(t->quality, m->quality);
			t->reason = m->reason ? m->reason : t->reason;
		} else if (strcmp(m->counter, "mpi_wall_time") == 0) {
			t->wall_ns += m->value;
		}
	}
}

int mpi_view_build(const struct pivot *p, size_t nr_ranks, struct mpi_view *v)
{
	memset(v, 0, sizeof(*v));
	v->dom_rank = -1;
	if (!nr_ranks)
		return 0;
	v->ranks = xcalloc(nr_ranks, sizeof(*v->ranks));
	if (!v->ranks)
		return -ENOMEM;
	v->nr = nr_ranks;
	read_measurements(p, v);
	for (size_t r = 0; r < nr_ranks; r++)
		v->nr_measured += v->ranks[r].measured;
	for (size_t i = 0; i < p->nr_mpi_calls; i++) {
		const struct mpi_call *c = &p->mpi_calls[i];
		int r = rank_of(p, c->locus);
		if (r < 0 || (size_t)r >= nr_ranks || !(v->ranks[r].wall_ns > 0))
			continue;
		double f = (double)c->time_ns / v->ranks[r].wall_ns;
		if (f > v->dom_fraction) {
			v->dom_fraction = f;
			v->dom_rank = r;
			v->dom_call = c->name;
		}
	}
	if (v->dom_rank >= 0) {
		int64_t site_ns = site_text(p, v->dom_rank, v->dom_call, v->dom_site,
					    sizeof(v->dom_site));
		v->dom_site_fraction = (double)site_ns / v->ranks[v->dom_rank].wall_ns;
	}
	return 0;
}

void mpi_view__release(struct mpi_view *v)
{
	xfree(v->ranks);
	memset(v, 0, sizeof(*v));
}

static int by_time_desc(const void *a, const void *b)
{
	int64_t x = (*(const struct mpi_site *const *)a)->time_ns;
	int64_t y = (*(const struct mpi_site *const *)b)->time_ns;
	return (x < y) - (x > y);
}

/* Time inside MPI calls, measured by interposition on the wall clock. */
static json_t *interposed_ns(int64_t ns)
{
	return quality__json_clock((double)ns, "ns", QUALITY_MEASURED, NULL, CLOCK_WALL);
}

static json_t *sites_json(const struct pivot *p, int rank, const char *call)
{
	const struct mpi_site **v = xcalloc(p->nr_mpi_sites + 1, sizeof(*v));
	json_t *a = json_array();
	size_t n = 0;
	if (!v || !a) {
		xfree(v);
		json_decref(a);
		return NULL;
	}
	for (size_t i = 0; i < p->nr_mpi_sites; i++)
		if (rank_of(p, p->mpi_sites[i].locus) == rank && p->mpi_sites[i].name &&
		    strcmp(p->mpi_sites[i].name, call) == 0)
			v[n++] = &p->mpi_sites[i];
	qsort(v, n, sizeof(*v), by_time_desc);
	for (size_t i = 0; i < n && i < MPI_VIEW_MAX_SITES; i++) {
		char where[96];
		snprintf(where, sizeof(where), "%s+0x%llx", base(v[i]->module),
			 (unsigned long long)v[i]->address);
		json_array_append_new(
			a, json_pack("{s:o, s:o, s:o, s:o, s:I, s:s}", "file",
				     v[i]->file ? json_string(v[i]->file) : json_null(), "line",
				     v[i]->line > 0 ? json_integer(v[i]->line) : json_null(),
				     "function",
				     v[i]->function ? json_string(v[i]->function) : json_null(),
				     "time_ns", interposed_ns(v[i]->time_ns), "calls",
				     (json_int_t)v[i]->calls, "address", where));
	}
	xfree(v);
	return a;
}

static int call_desc(const void *a, const void *b)
{
	int64_t x = (*(const struct mpi_call *const *)a)->time_ns;
	int64_t y = (*(const struct mpi_call *const *)b)->time_ns;
	return (x < y) - (x > y);
}

json_t *mpi_view_calls_json(const struct pivot *p, int rank)
{
	const struct mpi_call **v = xcalloc(p->nr_mpi_calls + 1, sizeof(*v));
	json_t *a = json_array();
	size_t n = 0;
	if (!v || !a) {
		xfree(v);
		json_decref(a);
		return NULL;
	}
	for (size_t i = 0; i < p->nr_mpi_calls; i++)
		if (rank_of(p, p->mpi_calls[i].locus) == rank)
			v[n++] = &p->mpi_calls[i];
	qsort(v, n, sizeof(*v), call_desc);
	for (size_t i = 0; i < n; i++) {
		json_t *sites = sites_json(p, rank, v[i]->name);
		json_t *o = sites ? json_pack("{s:s, s:I, s:o, s:I, s:o}", "name", v[i]->name,
					      "calls", (json_int_t)v[i]->calls, "time_ns",
					      interposed_ns(v[i]->time_ns), "bytes",
					      (json_int_t)v[i]->bytes, "sites", sites)
				  : NULL;
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			a = NULL;
			break;
		}
	}
	xfree(v);
	return a;
}

static int ev_longest(const void *a, const void *b)
{
	int64_t x = (*(const struct event *const *)a)->duration_ns;
	int64_t y = (*(const struct event *const *)b)->duration_ns;
	return (x < y) - (x > y);
}

static int ev_start(const void *a, const void *b)
{
	int64_t x = (*(const struct event *const *)a)->start_ns;
	int64_t y = (*(const struct event *const *)b)->start_ns;
	return (x > y) - (x < y);
}

/* The index of name in names (appended when new), or -1 on ENOMEM. */
static int name_index(json_t *names, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(names, i, v) if (strcmp(json_string_value(v), name) == 0) return (int)i;
	return json_array_append_new(names, json_string(name)) == 0
		       ? (int)json_array_size(names) - 1 : -1;
}

/* {"bytes": n, "peer": r} as the ingestion wrote it; absent keys -1. */
static void attrs_of(const char *text, json_int_t *bytes, json_int_t *peer)
{
	*bytes = *peer = -1;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	if (json_is_integer(json_object_get(j, "bytes")))
		*bytes = json_integer_value(json_object_get(j, "bytes"));
	if (json_is_integer(json_object_get(j, "peer")))
		*peer = json_integer_value(json_object_get(j, "peer"));
	json_decref(j);
}

/* The Events of one kind on ranked Loci, at most cap (the longest), in start
 * order; *total gets how many there were. Caller frees. */
static const struct event **events_of(const struct pivot *p, const char *kind, size_t cap,
				      size_t *n_out, size_t *total)
{
	const struct event **v = xcalloc(p->nr_events + 1, sizeof(*v));
	size_t n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nr_events; i++)
		if (p->events[i].kind && strcmp(p->events[i].kind, kind) == 0 &&
		    p->events[i].name && rank_of(p, p->events[i].locus) >= 0)
			v[n++] = &p->events[i];
	*total = n;
	if (n > cap) {
		qsort(v, n, sizeof(*v), ev_longest);
		n = cap;
	}
	qsort(v, n, sizeof(*v), ev_start);
	*n_out = n;
	return v;
}

static int add_items(json_t *items, json_t *names, const struct pivot *p,
		     const struct event **v, size_t n, int64_t t0, int kind)
{
	for (size_t i = 0; i < n; i++) {
		json_int_t bytes, peer;
		attrs_of(kind == 0 ? v[i]->attributes : NULL, &bytes, &peer);
		int k = name_index(names, v[i]->name);
		json_t *it = k >= 0 ? json_pack("[i, i, I, I, I, I, i]", rank_of(p, v[i]->locus), k,
						(json_int_t)(v[i]->start_ns - t0),
						(json_int_t)v[i]->duration_ns, bytes, peer, kind)
				    : NULL;
		if (!it || json_array_append_new(items, it) < 0)
			return -ENOMEM;
	}
	return 0;
}

json_t *mpi_view_timeline_json(const struct pivot *p)
{
	size_t nm = 0, nr = 0, total = 0, total_regions = 0;
	const struct event **m = events_of(p, "mpi", MPI_VIEW_MAX_EVENTS, &nm, &total);
	const struct event **r = m ? events_of(p, "region", MPI_VIEW_MAX_REGION_EVENTS, &nr,
					       &total_regions) : NULL;
	json_t *out = NULL;
	if (!m || !r)
		goto done;
	if (!nm) {
		out = json_null();
		goto done;
	}
	int64_t t0 = m[0]->start_ns;
	if (nr && r[0]->start_ns < t0)
		t0 = r[0]->start_ns;
	json_t *names = json_array(), *items = json_array();
	if (names && items && add_items(items, names, p, m, nm, t0, 0) == 0 &&
	    add_items(items, names, p, r, nr, t0, 1) == 0)
		out = json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I}", "t0_ns", (json_int_t)t0,
				"names", names, "items", items, "total", (json_int_t)total, "shown",
				(json_int_t)nm, "limit", (json_int_t)MPI_VIEW_MAX_EVENTS,
				"regions_total", (json_int_t)total_regions, "regions_shown",
				(json_int_t)nr);
	else {
		json_decref(names);
		json_decref(items);
	}
done:
	xfree(m);
	xfree(r);
	return out;
}
