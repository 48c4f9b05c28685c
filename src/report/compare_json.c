// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak compare --json`: the document of docs/schemas/compare.json, also
 * the payload of report-compare.html. An absent number is null, never 0. */
#include "report/compare_view.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "report/compare_text.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *count(int64_t n)
{
	return n >= 0 ? json_integer(n) : json_null();
}

static const char *kind_name(enum compare_kind k)
{
	static const char *const names[] = {"total", "hotspot", "others", "region", "rank", "line"};
	return names[k];
}

static const char *status_name(enum compare_status s)
{
	return s == COMPARE_NEW ? "new" : s == COMPARE_VANISHED ? "vanished" : "matched";
}

static json_t *item_json(const struct compare_item *it, double fail_pct)
{
	const char *why = compare_interval_reason(it);
	json_t *o = json_object();
	if (!o)
		return NULL;
	int bad = 0;
	bad |= json_object_set_new(o, "name", it->name ? json_string(it->name)
				   : json_string(it->kind == COMPARE_TOTAL ? "total" : "others"));
	bad |= json_object_set_new(o, "kind", json_string(kind_name(it->kind)));
	bad |= json_object_set_new(o, "module", it->module ? json_string(it->module) : json_null());
	if (it->kind == COMPARE_RANK)
		bad |= json_object_set_new(o, "rank", json_integer(it->rank));
	if (it->kind == COMPARE_OTHERS)
		bad |= json_object_set_new(o, "hotspots", json_integer((json_int_t)it->nr_members));
	bad |= json_object_set_new(o, "status", json_string(status_name(it->status)));
	bad |= json_object_set_new(o, "unit", json_string(it->unit));
	bad |= json_object_set_new(o, "a", num(it->a));
	bad |= json_object_set_new(o, "b", num(it->b));
	bad |= json_object_set_new(o, "a_samples", count(it->a_samples));
	bad |= json_object_set_new(o, "b_samples", count(it->b_samples));
	bad |= json_object_set_new(o, "ratio", num(it->ratio));
	bad |= json_object_set_new(o, "ratio_low", num(it->low));
	bad |= json_object_set_new(o, "ratio_high", num(it->high));
	bad |= json_object_set_new(o, "significant", json_boolean(it->significant));
	bad |= json_object_set_new(o, "verdict", json_string(compare_verdict(it)));
	bad |= json_object_set_new(o, "ratio_quality", json_string(quality__name(it->ratio_quality)));
	bad |= json_object_set_new(o, "ratio_reason", it->ratio_quality == QUALITY_MEASURED
				   ? json_null()
				   : json_string(it->ratio_quality == QUALITY_UNAVAILABLE
						 ? "a time-base Measurement behind it is unavailable: "
						   "its time is unknown, not 0; `nunatak report --json` "
						   "of the Runs says why"
						 : "a time-base Measurement behind it is estimated; "
						   "`nunatak report --json` of the Runs says why"));
	bad |= json_object_set_new(o, "interval_quality",
				   json_string(quality__name(it->interval_quality)));
	bad |= json_object_set_new(o, "basis", json_string(compare_basis_code(it->basis)));
	bad |= json_object_set_new(o, "basis_text", json_string(compare_basis_text(it->basis)));
	bad |= json_object_set_new(o, "reason", why ? json_string(why) : json_null());
	bad |= json_object_set_new(o, "df", num(it->df));
	if (it->kind == COMPARE_HOTSPOT || it->kind == COMPARE_LINE)
		bad |= json_object_set_new(o, "build_id_same", json_boolean(it->build_id_same));
	bad |= json_object_set_new(o, "regression", json_boolean(isfinite(fail_pct) &&
					      compare_item__regression(it, fail_pct)));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *side_json(const struct compare_input *in, size_t from, size_t n)
{
	json_t *runs = json_array();
	for (size_t i = from; runs && i < from + n; i++) {
		const struct compare_side_run *s = &in->runs[i];
		const struct compare_run *c = &in->cr[i];
		json_t *cmd = json_array();
		for (size_t k = 0; cmd && k < s->m.nr_command; k++)
			json_array_append_new(cmd, json_string(s->m.command[k]));
		json_t *r = json_pack("{s:s, s:s, s:s?, s:s?, s:o?, s:s, s:s?, s:o, s:o, s:o}",
				      "label", s->label, "path", s->dir, "name", s->m.name,
				      "created", s->m.created, "command", cmd,
				      "machine_identity", s->identity,
				      "cpu_model", s->m.machine.cpu_model,
				      "world_size", s->m.world_size >= 0 ? json_integer(s->m.world_size)
									 : json_null(),
				      "sampling_hz", num(c->frequency_hz),
				      "exit_code", s->m.exit_code >= 0 ? json_integer(s->m.exit_code)
									: json_null());
		if (!r || json_array_append_new(runs, r)) {
			json_decref(runs);
			return NULL;
		}
	}
	return runs;
}

static json_t *items_json(const struct compare_result *r, enum compare_kind kind,
			  double fail_pct, bool single)
{
	json_t *a = single ? NULL : json_array();
	for (size_t i = 0; i < r->nr_items; i++) {
		if (r->items[i].kind != kind)
			continue;
		json_t *o = item_json(&r->items[i], fail_pct);
		if (single)
			return o;
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return single ? json_null() : a;
}

static json_t *notes_json(const struct compare_result *r, const struct compare_input *in)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < r->nr_notes; i++) {
		const struct compare_note *n = &r->notes[i];
		char *t = compare_note_text(n, in);
		json_t *o = t ? json_pack("{s:s, s:b, s:b, s:s}", "code", compare_note_code(n->kind),
					  "refusal", n->refusal, "forced", n->forced, "message", t)
			      : NULL;
		xfree(t);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *regression_json(const struct compare_result *r, double fail_pct, int exit_code)
{
	json_t *names = json_array();
	for (size_t i = 0; names && isfinite(fail_pct) && i < r->nr_items; i++)
		if (compare_item__regression(&r->items[i], fail_pct))
			json_array_append_new(names, json_string(r->items[i].name ? r->items[i].name
										    : "total"));
	return names ? json_pack("{s:o, s:o, s:i}", "threshold_pct", num(fail_pct), "items", names,
				 "exit_code", exit_code)
		     : NULL;
}

json_t *compare_to_json(const struct compare_result *r, const struct compare_input *in,
			double fail_pct, int exit_code)
{
	json_t *doc = json_pack(
		"{s:{s:s, s:i}, s:{s:o}, s:{s:o}, s:s?, s:s?, s:f, s:f, s:i, s:b, s:o}",
		"format", "name", COMPARE_FORMAT_NAME, "schema", COMPARE_SCHEMA,
		"a", "runs", side_json(in, 0, in->na), "b", "runs", side_json(in, in->na, in->nb),
		"time_base", r->time_base, "unit", r->unit, "confidence", r->confidence,
		"threshold", r->threshold, "floor_samples", r->floor_samples,
		"comparable", !r->refused, "notes", notes_json(r, in));
	if (!doc)
		return NULL;
	int bad = 0;
	bad |= json_object_set_new(doc, "total", items_json(r, COMPARE_TOTAL, fail_pct, true));
	bad |= json_object_set_new(doc, "hotspots", items_json(r, COMPARE_HOTSPOT, fail_pct, false));
	bad |= json_object_set_new(doc, "others", items_json(r, COMPARE_OTHERS, fail_pct, true));
	bad |= json_object_set_new(doc, "regions", items_json(r, COMPARE_REGION, fail_pct, false));
	bad |= json_object_set_new(doc, "ranks", items_json(r, COMPARE_RANK, fail_pct, false));
	bad |= json_object_set_new(doc, "lines", items_json(r, COMPARE_LINE, fail_pct, false));
	bad |= json_object_set_new(doc, "regression", regression_json(r, fail_pct, exit_code));
	if (bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}
