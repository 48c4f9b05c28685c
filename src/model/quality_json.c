// SPDX-License-Identifier: BSD-3-Clause
/* The one JSON shape of a number that carries its Quality. */
#include <jansson.h>
#include <math.h>

#include "model/model.h"

json_t *quality__json(double v, const char *unit, enum quality q, const char *reason)
{
	bool avail = q != QUALITY_UNAVAILABLE && isfinite(v);
	if (!avail && !reason)
		reason = "no value";
	return json_pack("{s:o, s:s?, s:s, s:s?}", "value", avail ? json_real(v) : json_null(),
			 "unit", unit, "quality", quality__name(avail ? q : QUALITY_UNAVAILABLE),
			 "reason", q == QUALITY_MEASURED && avail ? NULL : reason);
}

json_t *quality__json_clock(double v, const char *unit, enum quality q, const char *reason,
			    const char *clock)
{
	json_t *o = quality__json(v, unit, q, reason);
	if (o && clock)
		json_object_set_new(o, "clock", json_string(clock));
	return o;
}
