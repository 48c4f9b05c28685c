// SPDX-License-Identifier: BSD-3-Clause
#include "report/attrib_json.h"

#include <jansson.h>
#include <stdbool.h>

#include "attrib/views.h"
#include "common/alloc.h"
#include "model/model.h"

json_t *attrib_share_json(double share)
{
	return quality__json(share, "ratio", QUALITY_MEASURED,
			     "the Hotspot's time-base samples carry no value");
}

static json_t *shares_json(const struct attrib_share *v, size_t n, bool function, bool sites)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		json_t *o = json_object();
		if (function)
			json_object_set_new(o, "function", json_string(v[i].function));
		json_object_set_new(o, "file", v[i].file ? json_string(v[i].file) : json_null());
		json_object_set_new(o, "line", v[i].line > 0 ? json_integer(v[i].line) : json_null());
		json_object_set_new(o, "share", attrib_share_json(v[i].share));
		if (sites)
			json_object_set_new(o, "sites", json_integer(v[i].sites));
		if (json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *attrib_hotspot_json(const struct pivot *p, int64_t hotspot, const char *counter)
{
	struct attrib_share *lines = NULL, *inl = NULL;
	size_t nl = 0, ni = 0;
	json_t *o = NULL;
	if (attrib_lines(p, hotspot, counter, &lines, &nl) == 0 &&
	    attrib_inline_frames(p, hotspot, counter, &inl, &ni) == 0 && (o = json_object())) {
		json_object_set_new(o, "lines", shares_json(lines, nl, false, false));
		json_object_set_new(o, "inline_frames", shares_json(inl, ni, true, false));
	}
	xfree(lines);
	xfree(inl);
	return o;
}

json_t *attrib_inline_view_json(const struct pivot *p, const char *counter)
{
	struct attrib_share *v = NULL;
	size_t n = 0;
	json_t *a = attrib_inline_view(p, counter, &v, &n) == 0 ? shares_json(v, n, true, true) : NULL;
	xfree(v);
	return a;
}
