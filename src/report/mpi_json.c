// SPDX-License-Identifier: BSD-3-Clause
#include "report/mpi_json.h"

#include <errno.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "analysis/comm_collectives.h"
#include "analysis/comm_matrix.h"
#include "analysis/mpi_view.h"
#include "common/alloc.h"
#include "model/model.h"

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* Time inside MPI calls, measured by interposition on the wall clock; for a
 * polling function timed 1 call in N (timed >= 0 of calls), estimated. */
static json_t *interposed_ns(int64_t ns, int64_t timed, int64_t calls)
{
	char why[160];
	if (timed < 0)
		return quality__json_clock((double)ns, "ns", QUALITY_MEASURED, NULL, CLOCK_WALL);
	snprintf(why, sizeof(why), "%lld of %lld calls timed (a polling call is timed 1 in N), "
		 "the others' time estimated from them", (long long)timed, (long long)calls);
	return quality__json_clock((double)ns, "ns", QUALITY_ESTIMATED, why, CLOCK_WALL);
}

static json_t *sites_json(const struct pivot *p, int rank, const char *call, int64_t timed,
			  int64_t calls)
{
	const struct mpi_site **v = NULL;
	int n = mpi_view_sites(p, rank, call, &v);
	json_t *a = n >= 0 ? json_array() : NULL;
	for (int i = 0; a && i < n; i++) {
		char where[96];
		snprintf(where, sizeof(where), "%s+0x%llx", base(v[i]->module),
			 (unsigned long long)v[i]->address);
		json_array_append_new(
			a, json_pack("{s:o, s:o, s:o, s:o, s:I, s:s}", "file",
				     v[i]->file ? json_string(v[i]->file) : json_null(), "line",
				     v[i]->line > 0 ? json_integer(v[i]->line) : json_null(),
				     "function",
				     v[i]->function ? json_string(v[i]->function) : json_null(),
				     "time_ns", interposed_ns(v[i]->time_ns, timed, calls), "calls",
				     (json_int_t)v[i]->calls, "address", where));
	}
	xfree(v);
	return a;
}

json_t *mpi_calls_json(const struct pivot *p, int rank)
{
	const struct mpi_call **v = NULL;
	int n = mpi_view_calls(p, rank, &v);
	json_t *a = n >= 0 ? json_array() : NULL;
	for (int i = 0; a && i < n; i++) {
		int64_t timed = mpi_view_polled_timed(p, rank, v[i]->name);
		json_t *sites = sites_json(p, rank, v[i]->name, timed, v[i]->calls);
		json_t *o = sites ? json_pack("{s:s, s:I, s:o, s:I, s:o}", "name", v[i]->name,
					      "calls", (json_int_t)v[i]->calls, "time_ns",
					      interposed_ns(v[i]->time_ns, timed, v[i]->calls),
					      "bytes",
					      (json_int_t)v[i]->bytes, "sites", sites)
				  : NULL;
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	xfree(v);
	return a;
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

static int add_items(json_t *items, json_t *names, const struct pivot *p,
		     const struct event **v, size_t n, int64_t t0, int kind)
{
	for (size_t i = 0; i < n; i++) {
		json_int_t bytes, peer;
		attrs_of(kind == 0 ? v[i]->attributes : NULL, &bytes, &peer);
		int k = name_index(names, v[i]->name);
		json_t *it = k >= 0 ? json_pack("[i, i, I, I, I, I, i]",
						mpi_view_rank_of(p, v[i]->locus), k,
						(json_int_t)(v[i]->start_ns - t0),
						(json_int_t)v[i]->duration_ns, bytes, peer, kind)
				    : NULL;
		if (!it || json_array_append_new(items, it) < 0)
			return -ENOMEM;
	}
	return 0;
}

json_t *mpi_timeline_json(const struct pivot *p)
{
	size_t nm = 0, nr = 0, total = 0, total_regions = 0, ranks = 0, region_ranks = 0;
	const struct event **m = mpi_view_events(p, "mpi", MPI_VIEW_MAX_EVENTS, &nm, &total, &ranks);
	const struct event **r = m ? mpi_view_events(p, "region", MPI_VIEW_MAX_REGION_EVENTS, &nr,
						     &total_regions, &region_ranks)
				   : NULL;
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
		out = json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "t0_ns",
				(json_int_t)t0, "names", names, "items", items, "total",
				(json_int_t)total, "shown", (json_int_t)nm, "limit",
				(json_int_t)MPI_VIEW_MAX_EVENTS, "regions_total",
				(json_int_t)total_regions, "regions_shown", (json_int_t)nr,
				"ranks_total", (json_int_t)ranks, "ranks_shown",
				(json_int_t)(ranks < MPI_VIEW_MAX_LANES ? ranks : MPI_VIEW_MAX_LANES));
	else {
		json_decref(names);
		json_decref(items);
	}
done:
	xfree(m);
	xfree(r);
	return out;
}

#define COMM_BASIS                                                                          \
	"point-to-point calls measured by interposition in every rank, exact totals: a pair "  \
	"(from, to) holds the messages and bytes `from` sent to `to` and the wall-clock time " \
	"both spent on them (the sends naming `to`, the blocking receives naming `from`); "    \
	"time in MPI_Wait/MPI_Test names no partner and is not in it; collectives are apart "  \
	"(collectives: estimated), one-sided calls per rank only (rows[].mpi_calls)"

#define COLL_REASON                                                                          \
	"the MPI library's algorithm (tree, ring, recursive doubling...) decides which ranks "  \
	"really exchange a collective's data; only the volume its meaning implies is known"
#define COLL_BASIS                                                                           \
	"each rank's collective calls measured by interposition (calls, wall-clock time, its "  \
	"bytes), placed on the communicator's members by rank in MPI_COMM_WORLD; a pair "       \
	"holds the bytes the collective's pattern implies: one-to-all (Bcast, Scatter): root " \
	"-> each member, the bytes it received; all-to-one (Reduce, Gather): each member -> "  \
	"root, the bytes it sent; all-pairs: each member -> each other, its bytes (Allreduce, " \
	"Allgather) or its bytes / members (Alltoall[v], Reduce_scatter); prefix (Scan): "    \
	"each member -> every later one; sync (Barrier): no bytes. A pair's calls are the "   \
	"sending member's; each member's time is spread evenly over its pairs"

static json_t *comm_cells(const struct comm_matrix *m)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < m->nr_cells; i++) {
		const struct comm_pair *c = &m->cells[i];
		if (json_array_append_new(a, json_pack("[i, i, I, I, I]", c->from, c->to,
						       (json_int_t)c->bytes, (json_int_t)c->messages,
						       (json_int_t)c->time_ns)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *comm_top(const struct comm_matrix *m)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < m->nr_pairs && i < COMM_MATRIX_TOP_PAIRS; i++) {
		const struct comm_pair *c = &m->pairs[i];
		if (json_array_append_new(a, json_pack("{s:i, s:i, s:I, s:I, s:o}", "from", c->from,
						       "to", c->to, "messages",
						       (json_int_t)c->messages, "bytes",
						       (json_int_t)c->bytes, "time_ns",
						       interposed_ns(c->time_ns, -1, 0))) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *coll_cells(const struct comm_collectives *c)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < c->nr_cells; i++) {
		const struct comm_pair *q = &c->cells[i];
		if (json_array_append_new(a, json_pack("[i, i, I, I, I]", q->from, q->to,
						       (json_int_t)q->bytes, (json_int_t)q->messages,
						       (json_int_t)q->time_ns)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *coll_bytes(int64_t b)
{
	return quality__json((double)b, "B", QUALITY_ESTIMATED, COLL_REASON);
}

static json_t *coll_groups(const struct comm_collectives *c)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < c->nr_groups && i < COMM_COLL_TOP_GROUPS; i++) {
		const struct comm_coll_group *g = &c->groups[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:o, s:i, s:I, s:o, s:o}", "function",
				      g->name, "pattern", comm_pattern_name(g->pattern), "members",
				      g->members, "size", g->size, "root",
				      g->root >= 0 ? json_integer(g->root) : json_null(),
				      "ranks_reporting", g->nr_reporting, "calls",
				      (json_int_t)g->calls, "bytes", coll_bytes(g->bytes), "time_ns",
				      interposed_ns(g->time_ns, -1, 0));
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The collectives' matrix (analysis/comm_collectives.h): estimated, apart
 * from the point-to-point one; null when no rank left collective rows. */
static json_t *coll_json(const struct pivot *p, int nr_ranks)
{
	struct comm_collectives c;
	if (comm_collectives_build(p, nr_ranks, &c) < 0)
		return NULL;
	if (!c.nr_reporting) {
		comm_collectives__release(&c);
		return json_null();
	}
	json_t *by = json_object();
	for (int k = 0; by && k < COMM_NR_PATTERNS; k++)
		json_object_set_new(by, comm_pattern_name(k), json_integer(c.pattern_bytes[k]));
	json_t *cells = coll_cells(&c), *groups = coll_groups(&c);
	json_t *o = by && cells && groups
		? json_pack("{s:s, s:s, s:i, s:i, s:I, s:o, s:o, s:o, s:{s:I, s:I}, s:i, s:i, s:o, "
			    "s:o, s:I, s:s}",
			    "quality", "estimated", "reason", COLL_REASON, "ranks", c.nr_ranks,
			    "ranks_reporting", c.nr_reporting, "calls", (json_int_t)c.calls,
			    "bytes", coll_bytes(c.bytes), "bytes_by_pattern", by, "time_ns",
			    interposed_ns(c.time_ns, -1, 0), "unplaced", "calls",
			    (json_int_t)c.unplaced_calls, "bytes", (json_int_t)c.unplaced_bytes,
			    "bin", c.bin, "bins", c.nr_bins, "cells", cells, "groups", groups,
			    "groups_total", (json_int_t)c.nr_groups, "basis", COLL_BASIS)
		: NULL;
	if (!o) {
		json_decref(by);
		json_decref(cells);
		json_decref(groups);
	}
	comm_collectives__release(&c);
	return o;
}

json_t *mpi_comm_matrix_json(const struct pivot *p, int nr_ranks)
{
	struct comm_matrix m;
	json_t *coll = coll_json(p, nr_ranks);
	if (!coll || comm_matrix_build(p, nr_ranks, &m) < 0) {
		json_decref(coll);
		return NULL;
	}
	if (!m.nr_reporting && json_is_null(coll)) {
		comm_matrix__release(&m);
		return coll;
	}
	json_t *cells = comm_cells(&m), *top = comm_top(&m);
	json_t *o = cells && top
			    ? json_pack("{s:i, s:i, s:I, s:I, s:o, s:{s:I, s:I}, s:i, s:i, s:o, s:o, "
					"s:s, s:o}",
					"ranks", m.nr_ranks, "ranks_reporting", m.nr_reporting,
					"messages", (json_int_t)m.messages, "bytes",
					(json_int_t)m.bytes, "time_ns", interposed_ns(m.time_ns, -1, 0),
					"unplaced", "messages", (json_int_t)m.unplaced_messages,
					"bytes", (json_int_t)m.unplaced_bytes, "bin", m.bin, "bins",
					m.nr_bins, "cells", cells, "top_pairs", top, "basis",
					COMM_BASIS, "collectives", coll)
			    : NULL;
	if (!o) {
		json_decref(cells);
		json_decref(top);
		json_decref(coll);
	}
	comm_matrix__release(&m);
	return o;
}

/* The plural's "s" of a count: "1 call", "2 calls". */
#define S(n) ((n) == 1 ? "" : "s")

/* "1.2 MB": decimal units, as the page's formatNumber. */
static void bytes_text(int64_t b, char *buf, size_t cap)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	double v = (double)b;
	int u = 0;
	while (v >= 1000 && u < 5)
		v /= 1000, u++;
	snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void mpi_comm_matrix_line(const struct pivot *p, int nr_ranks, char *buf, size_t cap)
{
	struct comm_matrix m;
	buf[0] = '\0';
	if (comm_matrix_build(p, nr_ranks, &m) < 0 || !m.nr_reporting || !m.nr_pairs) {
		comm_matrix__release(&m);
		return;
	}
	char all[32], top[32];
	const struct comm_pair *h = &m.pairs[0];
	bytes_text(m.bytes, all, sizeof(all));
	bytes_text(h->bytes, top, sizeof(top));
	snprintf(buf, cap,
		 "point-to-point: %s in %lld message%s between %zu rank pair%s; heaviest rank %d "
		 "-> rank %d, %s (%.1f%%) in %lld message%s",
		 all, (long long)m.messages, S(m.messages), m.nr_pairs, S(m.nr_pairs), h->from, h->to,
		 top, m.bytes > 0 ? 100.0 * (double)h->bytes / (double)m.bytes : 0.0,
		 (long long)h->messages, S(h->messages));
	comm_matrix__release(&m);
}

void mpi_comm_coll_line(const struct pivot *p, int nr_ranks, char *buf, size_t cap)
{
	struct comm_collectives c;
	buf[0] = '\0';
	if (comm_collectives_build(p, nr_ranks, &c) < 0 || !c.nr_reporting || !c.nr_groups) {
		comm_collectives__release(&c);
		return;
	}
	size_t comms = 0;
	for (size_t i = 0; i < c.nr_groups; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(c.groups[j].members, c.groups[i].members) == 0;
		comms += !seen;
	}
	char all[32], top[32], members[48];
	const struct comm_coll_group *h = &c.groups[0];
	bytes_text(c.bytes, all, sizeof(all));
	bytes_text(h->bytes, top, sizeof(top));
	snprintf(members, sizeof(members), "%.40s%s", h->members,
		 strlen(h->members) > 40 ? "..." : "");
	/* "over rank 0" for a single member, "over ranks 0-3" for a list */
	bool one = strspn(h->members, "0123456789") == strlen(h->members);
	snprintf(buf, cap,
		 "collectives (estimated: the pairs follow each collective's meaning, not the MPI "
		 "library's algorithm): %s in %lld call%s (summed over the ranks) on %zu "
		 "communicator%s; heaviest %s (%s) over rank%s %s, %s (%.1f%%)",
		 all, (long long)c.calls, S(c.calls), comms, S(comms), h->name,
		 comm_pattern_name(h->pattern), one ? "" : "s", members, top,
		 c.bytes > 0 ? 100.0 * (double)h->bytes / (double)c.bytes : 0.0);
	comm_collectives__release(&c);
}
