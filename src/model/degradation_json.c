// SPDX-License-Identifier: BSD-3-Clause
// The one JSON form of a list of Degradations, shared by the manifest, the
// run's --json document, the rank shim's rank.json and doctor --json.
#include "model/model.h"

#include <jansson.h>

json_t *degradations__to_json(const struct degradations *d)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < d->n; i++) {
		const struct degradation *g = &d->v[i];
		json_t *o = json_pack("{s:s, s:s, s:s}", "name", g->name ? g->name : "", "message",
				      g->message ? g->message : "", "remedy",
				      g->remedy ? g->remedy : "");
		if (json_array_append_new(arr, o) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}
