// SPDX-License-Identifier: BSD-3-Clause
#include "report/derived_json.h"

#include "analysis/analysis.h"
#include "model/model.h"

json_t *derived_json(const struct derived *d)
{
	json_t *o = quality__json(d->value, d->unit, d->quality, d->reason);
	json_t *lin = json_array();
	for (size_t i = 0; i < DERIVED_MAX_LINEAGE && d->lineage[i]; i++)
		json_array_append_new(lin, json_string(d->lineage[i]));
	json_object_set_new(o, "lineage", lin);
	json_object_set_new(o, "formula", d->formula ? json_string(d->formula) : json_null());
	if (d->bound)
		json_object_set_new(o, "bound", json_string(d->bound));
	return o;
}
