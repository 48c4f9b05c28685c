// SPDX-License-Identifier: BSD-3-Clause
#include "report/roofline_csv.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/err_codes.h"
#include "report/csv.h"

static const char HEADER[] =
	"kind,name,rank,module,source_file,share,share_quality,"
	"dram_intensity_flop_per_byte,dram_intensity_quality,achieved_flop_per_s,achieved_quality,"
	"attainable_flop_per_s,attainable_quality,envelope_fraction,envelope_fraction_quality,roof,"
	"flops_dp_flop_per_s,flops_dp_quality,dram_bandwidth_byte_per_s,dram_bandwidth_quality\n";

/* A text field, quoted as RFC 4180 asks (csv_put_field); NULL is empty. */
static void text(FILE *out, const char *s)
{
	csv_put_field(out, s ? s : "");
}

/* The number of a payload Value {value, quality}, or NAN when unavailable. */
static double value_of(const json_t *v)
{
	const json_t *x = json_object_get(v, "value");
	const char *q = json_string_value(json_object_get(v, "quality"));
	if (!json_is_number(x) || !q || strcmp(q, "unavailable") == 0)
		return NAN;
	return json_number_value(x);
}

static const char *quality_of(const json_t *v)
{
	const char *q = json_string_value(json_object_get(v, "quality"));
	return q && isfinite(value_of(v)) ? q : "unavailable";
}

/* ",<value>,<quality>": the value in the shortest form that reads back to
 * the same double, as the payload's JSON writes it (whole numbers whole). */
static void value(FILE *out, const json_t *v)
{
	double x = value_of(v);
	char buf[40];
	if (isfinite(x) && x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, sizeof(buf), "%.0f", x);
	else
		for (int digits = 1; isfinite(x) && digits <= 17; digits++) {
			snprintf(buf, sizeof(buf), "%.*g", digits, x);
			if (strtod(buf, NULL) == x)
				break;
		}
	if (isfinite(x))
		fprintf(out, ",%s,", buf);
	else
		fputs(",,", out);
	fputs(quality_of(v), out);
}

static bool placeable(const json_t *h)
{
	double i = value_of(json_object_get(h, "dram_intensity"));
	double a = value_of(json_object_get(h, "achieved"));
	return isfinite(i) && i > 0 && isfinite(a) && a > 0;
}

/* The Run-wide roof: its nodes' summed Ceilings (payload "roofline") when
 * the Run spans nodes, else the Machine's. */
static const json_t *ceiling(const json_t *payload, const char *name)
{
	const json_t *list = json_object_get(json_object_get(payload, "roofline"), "ceilings"), *c;
	if (!json_is_array(list))
		list = json_object_get(json_object_get(payload, "machine"), "ceilings");
	size_t k;
	json_array_foreach(list, k, c)
	{
		const char *n = json_string_value(json_object_get(c, "name"));
		double v = value_of(c);
		if (n && strcmp(n, name) == 0 && isfinite(v) && v > 0)
			return c;
	}
	return NULL;
}

struct roofs {
	const json_t *peak, *bw;
};

/* One row: kind, name, rank (empty for the whole Run), the figures of h,
 * the module and source of whole (h itself, or the Hotspot of a rank row). */
static void row(FILE *out, const char *kind, const char *name, const json_t *h, const json_t *whole,
		const json_t *rank, const struct roofs *r)
{
	text(out, kind);
	fputc(',', out);
	text(out, name);
	if (json_is_integer(rank))
		fprintf(out, ",%lld", (long long)json_integer_value(rank));
	else
		fputc(',', out);
	fputc(',', out);
	text(out, json_string_value(json_object_get(whole, "module")));
	fputc(',', out);
	text(out, json_string_value(json_object_get(whole, "source_file")));
	value(out, json_object_get(h, "share"));
	value(out, json_object_get(h, "dram_intensity"));
	value(out, json_object_get(h, "achieved"));
	value(out, json_object_get(h, "attainable"));
	value(out, json_object_get(h, "envelope_fraction"));
	double ridge = value_of(r->peak) / value_of(r->bw);
	fputs(value_of(json_object_get(h, "dram_intensity")) < ridge ? ",memory" : ",compute", out);
	value(out, r->peak);
	value(out, r->bw);
	fputc('\n', out);
}

/* A rank row's roof: the Ceilings it was placed against (its node's, the
 * payload's hotspots[].ranks[].ceilings), else the Run's. */
static struct roofs rank_roofs(const json_t *x, const struct roofs *run)
{
	const json_t *c = json_object_get(x, "ceilings");
	const json_t *peak = json_object_get(c, "flops_dp"), *bw = json_object_get(c, "dram_bandwidth");
	double p = value_of(peak), b = value_of(bw);
	if (isfinite(p) && p > 0 && isfinite(b) && b > 0)
		return (struct roofs){peak, bw};
	return *run;
}

int roofline_csv_write(const json_t *payload, FILE *out, size_t *placed, struct err *e)
{
	*placed = 0;
	struct roofs r = {ceiling(payload, "flops_dp"), ceiling(payload, "dram_bandwidth")};
	fputs(HEADER, out);
	const json_t *h, *x;
	size_t i, k;
	if (r.peak && r.bw) {
		json_array_foreach(json_object_get(payload, "hotspots"), i, h)
		{
			if (!placeable(h))
				continue;
			const char *name = json_string_value(json_object_get(h, "name"));
			row(out, "hotspot", name, h, h, NULL, &r);
			++*placed;
			json_array_foreach(json_object_get(h, "ranks"), k, x)
				if (placeable(x)) {
					struct roofs own = rank_roofs(x, &r);
					row(out, "hotspot-rank", name, x, h, json_object_get(x, "rank"), &own);
				}
		}
		json_array_foreach(json_object_get(payload, "regions"), i, h)
			if (placeable(h)) {
				row(out, "region", json_string_value(json_object_get(h, "path")), h, h, NULL,
				    &r);
				++*placed;
			}
	}
	if (ferror(out))
		return err_set(e, -EIO, ERR_OUTPUT_WRITE, "could not write the roofline CSV");
	return 0;
}
