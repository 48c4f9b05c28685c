// SPDX-License-Identifier: BSD-3-Clause
#include "report/flame.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "build_config.h"
#include "common/alloc.h"
#include "model/model.h"
#include "report/payload_stacks.h"

#define MAX_DEPTH 512

static int new_node(struct flame *f, const char *name, size_t len)
{
	if (xgrow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v)) < 0)
		return -ENOMEM;
	char *s = xstrndup(name, len);
	if (!s)
		return -ENOMEM;
	for (char *c = s; *c; c++) /* ';' separates frames in the collapsed text */
		if (*c == ';')
			*c = ':';
	f->v[f->n] = (struct flame_node){.name = s};
	return (int)f->n++;
}

/* The child of `parent` named name[0..len), created when absent. */
static long child_of(struct flame *f, size_t parent, const char *name, size_t len)
{
	size_t last = 0;
	for (size_t c = f->v[parent].child; c; c = f->v[c].sibling) {
		if (strlen(f->v[c].name) == len && strncmp(f->v[c].name, name, len) == 0)
			return (long)c;
		last = c;
	}
	int id = new_node(f, name, len);
	if (id < 0)
		return id;
	if (last)
		f->v[last].sibling = (size_t)id;
	else
		f->v[parent].child = (size_t)id;
	return id;
}

static int add_path(struct flame *f, const char *const *names, size_t n, double value)
{
	size_t cur = 0;
	f->v[0].value += value;
	for (size_t i = 0; i < n; i++) {
		long c = child_of(f, cur, names[i], strlen(names[i]));
		if (c < 0)
			return (int)c;
		cur = (size_t)c;
		f->v[cur].value += value;
	}
	return 0;
}

static char *frame_label(const struct stack_frame *sf)
{
	if (sf->function)
		return xstrdup(sf->function);
	const char *base = sf->module ? strrchr(sf->module, '/') : NULL;
	base = base ? base + 1 : (sf->module ? sf->module : "?");
	return xasprintf("%s+0x%llx", base, (unsigned long long)sf->offset);
}

static int from_stacks(struct flame *f, const struct pivot *p)
{
	struct stack_index si;
	if (stack_index__build(&si, p) < 0)
		return -ENOMEM;
	char *names[MAX_DEPTH];
	int rc = 0;
	int pass = stacks_lowest_pass(p, f->time_base); /* multi-pass: each pass once */
	for (size_t s = 0; rc == 0 && s < p->nr_stacks; s++) {
		const struct stack *st = &p->stacks[s];
		if (!st->counter || strcmp(st->counter, f->time_base) != 0 || si.first[s] >= si.n ||
		    st->pass_index != pass)
			continue;
		size_t depth = 0;
		while (si.first[s] + depth < si.n && si.v[si.first[s] + depth]->stack == (int64_t)s &&
		       depth < MAX_DEPTH)
			depth++;
		for (size_t d = 0; d < depth; d++) /* root first: the deepest frame */
			names[d] = frame_label(si.v[si.first[s] + depth - 1 - d]);
		for (size_t d = 0; d < depth; d++)
			if (!names[d])
				rc = -ENOMEM;
		if (rc == 0) {
			rc = add_path(f, (const char *const *)names, depth, st->value);
			f->from_stacks = true;
		}
		for (size_t d = 0; d < depth; d++)
			xfree(names[d]);
	}
	stack_index__release(&si);
	return rc;
}

/* Hotspots one level deep, under their region path (" > "-joined) when the
 * Run has region samples. */
static int from_hotspots(struct flame *f, const struct pivot *p)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nr_region_samples; i++) {
		const struct region_sample *rs = &p->region_samples[i];
		if (!rs->counter || strcmp(rs->counter, f->time_base) != 0 || rs->hotspot < 0)
			continue;
		f->with_regions = true;
		char *path = rs->region_path ? xstrdup(rs->region_path) : xstrdup("(outside regions)");
		char *leaf = hotspot__display_name(&p->hotspots[rs->hotspot]);
		const char *names[MAX_DEPTH];
		size_t n = 0;
		for (char *tok = path, *next; tok && n + 1 < MAX_DEPTH; tok = next) {
			next = strstr(tok, " > ");
			if (next) {
				*next = '\0';
				next += 3;
			}
			names[n++] = tok;
		}
		names[n++] = leaf ? leaf : "?";
		rc = path && leaf ? add_path(f, names, n, rs->value) : -ENOMEM;
		xfree(path);
		xfree(leaf);
	}
	for (size_t i = 0; rc == 0 && !f->with_regions && i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot < 0 || strcmp(m->counter, f->time_base) != 0 ||
		    m->quality == QUALITY_UNAVAILABLE)
			continue;
		char *leaf = hotspot__display_name(&p->hotspots[m->hotspot]);
		const char *names[1] = {leaf};
		rc = leaf ? add_path(f, names, 1, m->value) : -ENOMEM;
		xfree(leaf);
	}
	return rc;
}

int flame_build(struct flame *f, const struct pivot *p)
{
	memset(f, 0, sizeof(*f));
	f->time_base = pivot__time_base(p);
	if (new_node(f, "all", 3) < 0)
		return -ENOMEM;
	if (!f->time_base)
		return 0;
	f->unit = strstr(f->time_base, "clock") ? "ns" : f->time_base;
	int rc = from_stacks(f, p);
	if (rc == 0 && !f->from_stacks)
		rc = from_hotspots(f, p);
	return rc;
}

void flame_release(struct flame *f)
{
	for (size_t i = 0; i < f->n; i++)
		xfree(f->v[i].name);
	xfree(f->v);
	memset(f, 0, sizeof(*f));
}

static double self_of(const struct flame *f, size_t i)
{
	double s = f->v[i].value;
	for (size_t c = f->v[i].child; c; c = f->v[c].sibling)
		s -= f->v[c].value;
	return s;
}

/* Depth-first over the paths, with the path of node indexes so far. */
typedef int (*path_fn)(const struct flame *f, const size_t *path, size_t n, double self,
		       void *ctx);

static int walk(const struct flame *f, size_t node, size_t *path, size_t n, path_fn fn,
		void *ctx)
{
	if (n >= MAX_DEPTH)
		return 0;
	path[n] = node;
	double self = self_of(f, node);
	int rc = node && self >= 0.5 ? fn(f, path, n + 1, self, ctx) : 0;
	for (size_t c = f->v[node].child; rc == 0 && c; c = f->v[c].sibling)
		rc = walk(f, c, path, n + 1, fn, ctx);
	return rc;
}

static int collapsed_line(const struct flame *f, const size_t *path, size_t n, double self,
			  void *ctx)
{
	FILE *out = ctx;
	for (size_t i = 1; i < n; i++) /* path[0] is the root */
		if (fprintf(out, "%s%s", i > 1 ? ";" : "", f->v[path[i]].name) < 0)
			return -EIO;
	return fprintf(out, " %.0f\n", self) < 0 ? -EIO : 0;
}

int flame_write_collapsed(const struct flame *f, FILE *out)
{
	size_t path[MAX_DEPTH];
	return f->n ? walk(f, 0, path, 0, collapsed_line, out) : 0;
}

struct ss_ctx {
	json_t *frames, *index, *samples, *weights;
};

static int ss_sample(const struct flame *f, const size_t *path, size_t n, double self, void *ctx)
{
	struct ss_ctx *c = ctx;
	json_t *s = json_array();
	for (size_t i = 1; s && i < n; i++) {
		const char *name = f->v[path[i]].name;
		json_t *idx = json_object_get(c->index, name);
		if (!idx) {
			idx = json_integer((json_int_t)json_array_size(c->frames));
			json_object_set_new(c->index, name, idx);
			json_array_append_new(c->frames, json_pack("{s:s}", "name", name));
		}
		json_array_append(s, idx);
	}
	if (!s)
		return -ENOMEM;
	json_array_append_new(c->samples, s);
	json_array_append_new(c->weights, json_real(self));
	return 0;
}

json_t *flame_speedscope(const struct flame *f, const char *name)
{
	struct ss_ctx c = {json_array(), json_object(), json_array(), json_array()};
	size_t path[MAX_DEPTH];
	bool ns = f->unit && strcmp(f->unit, "ns") == 0;
	json_t *doc = NULL;
	if (c.frames && c.index && c.samples && c.weights && walk(f, 0, path, 0, ss_sample, &c) == 0)
		doc = json_pack(
			"{s:s, s:s, s:s, s:i, s:{s:O}, s:[{s:s, s:s, s:s, s:i, s:f, s:O, s:O}]}",
			"$schema", "https://www.speedscope.app/file-format-schema.json", "exporter",
			"nunatak@" NUNATAK_VERSION, "name", name, "activeProfileIndex", 0, "shared",
			"frames", c.frames, "profiles", "type", "sampled", "name", name, "unit",
			ns ? "nanoseconds" : "none", "startValue", 0, "endValue",
			f->n ? f->v[0].value : 0.0, "samples", c.samples, "weights", c.weights);
	json_decref(c.frames);
	json_decref(c.index);
	json_decref(c.samples);
	json_decref(c.weights);
	return doc;
}

static json_t *node_json(const struct flame *f, size_t i, double floor, int depth)
{
	json_t *kids = json_array();
	for (size_t c = f->v[i].child; kids && c && depth < MAX_DEPTH; c = f->v[c].sibling)
		if (f->v[c].value >= floor)
			json_array_append_new(kids, node_json(f, c, floor, depth + 1));
	return json_pack("{s:s, s:f, s:o}", "n", f->v[i].name, "v", f->v[i].value, "c",
			 kids ? kids : json_array());
}

json_t *flame_payload(const struct flame *f)
{
	if (!f->time_base || f->n == 0 || f->v[0].value <= 0)
		return json_null();
	return json_pack("{s:s, s:s, s:b, s:b, s:o}", "unit", f->unit, "time_base", f->time_base,
			 "from_stacks", f->from_stacks, "with_regions", f->with_regions, "root",
			 node_json(f, 0, f->v[0].value * FLAME_PAYLOAD_MIN, 0));
}
