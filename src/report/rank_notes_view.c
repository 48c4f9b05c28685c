// SPDX-License-Identifier: BSD-3-Clause
#include "report/rank_notes_view.h"

#include <inttypes.h>
#include <jansson.h>

#include "regions/rank_notes.h"

/* What each kind of misuse did to the calls, for the text output. */
static const char *const kind_text[SP_MISUSE_KIND_NR] = {
	"calls with a NULL handle (ignored)",
	"sp_end of a region that was not open (ignored)",
	"sp_end of a region that was not the innermost open one",
	"inner regions discarded by an out-of-order sp_end (not recorded)",
	"regions opened deeper than the library's stack (not recorded)",
	"regions still open at finalize (not recorded)",
	"calls after sp_finalize (ignored)",
	"extra sp_finalize calls (ignored)",
	"handles that are not region descriptors (their calls dropped)",
	"calls dropped: no memory, or the trace file could not be written",
	"calls from a signal handler that interrupted the library on its thread (dropped)",
};

static void print_cut(const struct rank_note *r, FILE *out)
{
	const struct spt_cut *c = &r->cut;
	fprintf(out, "rank %" PRId32 ": trace cut short: the process (pid %" PRId64 ") ended "
		"before sp_finalize; %" PRId64 " calls recovered from %" PRId64 " complete frames",
		r->rank, c->pid, c->calls, c->frames);
	if (c->last_ns >= 0 && c->init_ns > 0)
		fprintf(out, ", the last ending %.3f s after the library's start",
			(double)rank_notes_diff_ns(c->last_ns, c->init_ns) / 1e9);
	fprintf(out, "; the file ends at byte %zu", c->bytes_total);
	if (c->bytes_total > c->bytes_used)
		fprintf(out, " (%zu bytes of an incomplete frame after byte %zu ignored)",
			c->bytes_total - c->bytes_used, c->bytes_used);
	fprintf(out, ". Calls still buffered in the process (at most 16384 per thread, about "
		"a second) are lost.\n");
	if (c->dropped_calls)
		fprintf(out, "rank %" PRId32 ": %" PRId64 " recovered calls had no region "
			"descriptor and were dropped\n", r->rank, c->dropped_calls);
}

static void print_misuse(const struct rank_note *r, FILE *out)
{
	for (int k = 0; k < SP_MISUSE_KIND_NR; k++) {
		const struct misuse_note *m = &r->misuse[k];
		if (!m->count)
			continue;
		fprintf(out, "rank %" PRId32 ": misuse: %s: %" PRId64, r->rank, kind_text[k],
			m->count);
		for (size_t j = 0; j < m->nr_names; j++)
			fprintf(out, "%s'%s' x%" PRId64, j ? ", " : " (", m->names[j], m->counts[j]);
		fprintf(out, "%s\n", m->nr_names ? ")" : "");
	}
}

static void secs(char *buf, size_t n, int64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3f s", (double)ns / 1e9);
}

/* The start of the run: the process start when the trace knows it, else
 * sp_init (the seed's setup() moment). */
/* The seed's thread table and startup time, one line per rank. */
static void print_timing(const struct rank_note *r, FILE *out)
{
	if (!r->has_timing)
		return;
	char a[32], b[32];
	secs(a, sizeof(a), rank_notes_diff_ns(r->finalize_ns, r->init_ns));
	fprintf(out, "rank %" PRId32 ": library init to finalize %s", r->rank, a);
	if (rank_note__startup_ns(r) >= 0) {
		secs(a, sizeof(a), rank_note__startup_ns(r));
		fprintf(out, ", startup (%s to the first region) %s",
			r->start_ns >= 0 ? "process start" : "library init", a);
	}
	for (int32_t l = 0; l < r->nr_lanes; l++) {
		const struct lane_time *t = &r->lanes[l];
		secs(a, sizeof(a), rank_notes_diff_ns(t->last_ns, t->first_ns));
		if (t->cpu_ns >= 0)
			secs(b, sizeof(b), t->cpu_ns);
		/* Two bases, each said: the wall span covers the thread's regions,
		 * its CPU time the whole thread (start-up included), so CPU may
		 * exceed that wall span. */
		fprintf(out, "; thread %" PRId32 "%s%s wall %s (first to last region), CPU %s "
			     "(whole thread)", l, t->name[0] ? " " : "",
			t->name, a, t->cpu_ns >= 0 ? b : "unavailable");
	}
	fputc('\n', out);
}

void rank_notes_print(const struct rank_notes *n, FILE *out)
{
	for (size_t i = 0; i < n->nr; i++) {
		if (n->v[i].cut.cut)
			print_cut(&n->v[i], out);
		print_misuse(&n->v[i], out);
		print_timing(&n->v[i], out);
	}
}

static json_t *misuse_json(const struct rank_note *r)
{
	json_t *o = json_object();
	for (int k = 0; k < SP_MISUSE_KIND_NR; k++) {
		const struct misuse_note *m = &r->misuse[k];
		if (!m->count)
			continue;
		json_t *names = json_object();
		for (size_t j = 0; j < m->nr_names; j++)
			json_object_set_new(names, m->names[j], json_integer(m->counts[j]));
		json_object_set_new(o, sp_misuse_kind_key(k),
				    json_pack("{s:I, s:o}", "count", (json_int_t)m->count,
					      "regions", names));
	}
	return o;
}

static json_t *timing_json(const struct rank_note *r)
{
	if (!r->has_timing)
		return json_null();
	json_t *lanes = json_array();
	for (int32_t l = 0; l < r->nr_lanes; l++) {
		const struct lane_time *t = &r->lanes[l];
		json_array_append_new(
			lanes, json_pack("{s:i, s:s, s:I, s:I, s:I, s:o}", "lane", (int)l, "name",
					 t->name, "first_ns", (json_int_t)t->first_ns, "last_ns", (json_int_t)t->last_ns,
					 "wall_ns", (json_int_t)rank_notes_diff_ns(t->last_ns, t->first_ns), "cpu_ns",
					 t->cpu_ns >= 0 ? json_integer(t->cpu_ns) : json_null()));
	}
	return json_pack("{s:I, s:I, s:I, s:o, s:I, s:o}", "init_ns", (json_int_t)r->init_ns,
			 "finalize_ns", (json_int_t)r->finalize_ns, "init_unix_ns",
			 (json_int_t)r->init_real_ns, "startup_ns",
			 rank_note__startup_ns(r) >= 0 ? json_integer(rank_note__startup_ns(r)) : json_null(),
			 "session_ns", (json_int_t)rank_notes_diff_ns(r->finalize_ns, r->init_ns), "threads", lanes);
}

json_t *rank_notes_json(const struct rank_notes *n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n->nr; i++) {
		const struct rank_note *r = &n->v[i];
		const struct spt_cut *c = &r->cut;
		json_t *cut = !c->cut ? json_null()
			: json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "cut", 1, "pid",
				    (json_int_t)c->pid, "calls_recovered", (json_int_t)c->calls,
				    "frames", (json_int_t)c->frames, "calls_dropped",
				    (json_int_t)c->dropped_calls, "bytes_used",
				    (json_int_t)c->bytes_used, "bytes_total",
				    (json_int_t)c->bytes_total, "last_end_ns",
				    c->last_ns >= 0 ? json_integer(c->last_ns) : json_null());
		json_array_append_new(a, json_pack("{s:i, s:o, s:o, s:o}", "rank", (int)r->rank,
						   "truncated", cut, "misuse", misuse_json(r),
						   "timing", timing_json(r)));
	}
	return a;
}
