/* SPDX-License-Identifier: BSD-3-Clause */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "modules.h"
#include "registry.h"
#include "scope_profiler.h"
#include "spill.h"
#include "site_read.h"
#include "stream.h"

/* Site pointer -> region index (-1: not a valid descriptor). */
struct ptr_map {
	const void **keys;
	int32_t *vals;
	size_t cap, nr;
};

/* Region name -> region index, to merge sites with equal names. */
struct name_map {
	int32_t *slots; /* region index + 1, 0 = empty */
	size_t cap;
};

struct builder {
	struct sp_trace *tr;
	struct ptr_map sites;
	struct name_map names;
	size_t cap_regions;
	const void *last_key; /* one-entry cache: calls come in runs per site */
	int32_t last_val;
	bool oom;
};

static uint64_t hash_ptr(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}


static bool ptr_map_grow(struct ptr_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	const void **keys = calloc(cap, sizeof(*keys));
	int32_t *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = hash_ptr(m->keys[i]) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return true;
}

static int32_t *ptr_map_slot(struct ptr_map *m, const void *key, bool *fresh)
{
	if ((m->nr + 1) * 2 > m->cap && !ptr_map_grow(m))
		return NULL;
	size_t j = hash_ptr(key) & (m->cap - 1);
	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	*fresh = !m->keys[j];
	if (*fresh) {
		m->keys[j] = key;
		m->nr++;
	}
	return &m->vals[j];
}

static int32_t region_by_name(struct builder *b, char *name, char *file, int32_t line)
{
	struct sp_trace *tr = b->tr;
	if ((tr->nr_regions + 1) * 2 > b->names.cap) {
		size_t cap = b->names.cap ? b->names.cap * 2 : 128;
		int32_t *slots = calloc(cap, sizeof(*slots));
		if (!slots)
			goto oom;
		for (size_t i = 0; i < tr->nr_regions; i++) {
			size_t j = hash_str(tr->regions[i].name) & (cap - 1);
			while (slots[j])
				j = (j + 1) & (cap - 1);
			slots[j] = (int32_t)i + 1;
		}
		free(b->names.slots);
		b->names.slots = slots;
		b->names.cap = cap;
	}
	size_t j = hash_str(name) & (b->names.cap - 1);
	for (; b->names.slots[j]; j = (j + 1) & (b->names.cap - 1)) {
		struct sp_region_out *r = &tr->regions[b->names.slots[j] - 1];
		if (strcmp(r->name, name) != 0)
			continue;
		if (!r->file && file) { /* the first site with a location gives it */
			r->file = file;
			r->line = line;
			file = NULL;
		}
		free(name);
		free(file);
		return b->names.slots[j] - 1;
	}
	if (tr->nr_regions == b->cap_regions) {
		size_t cap = b->cap_regions ? b->cap_regions * 2 : 32;
		struct sp_region_out *r = realloc(tr->regions, cap * sizeof(*r));
		if (!r)
			goto oom;
		tr->regions = r;
		b->cap_regions = cap;
	}
	struct sp_region_out *r = &tr->regions[tr->nr_regions];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->file = file;
	r->line = file ? line : -1;
	b->names.slots[j] = (int32_t)tr->nr_regions + 1;
	return (int32_t)tr->nr_regions++;
oom:
	free(name);
	free(file);
	b->oom = true;
	return -1;
}


/* Reads a descriptor without trusting it: a stale or garbage handle must
 * not crash the host at finalize. */
static int32_t resolve_new(struct builder *b, const struct sp_site *site)
{
	struct sp_site copy;
	char *name, *file;
	if (!sp_site__read(site, &copy, &name, &file))
		return -1;
	return region_by_name(b, name, file, file ? copy.line : -1);
}

static int32_t resolve(struct builder *b, const struct sp_site *site)
{
	if (site == b->last_key)
		return b->last_val;
	bool fresh;
	int32_t *slot = ptr_map_slot(&b->sites, site, &fresh);
	if (!slot) {
		b->oom = true;
		return -1;
	}
	if (fresh) {
		*slot = resolve_new(b, site);
		if (*slot < 0)
			b->tr->bad_sites++;
	}
	b->last_key = site;
	b->last_val = *slot;
	return *slot;
}

/* Pass 1 over the trace file: calls per region and per thread. */
struct pass {
	struct builder *b;
	const struct sp_trace_input *in;
	size_t *per_thread;
	const int32_t *lane_of;
	size_t *fill;
	struct sp_clock_map *map;
};

static int count_frame(void *ctx, int order, const struct sp_call *calls, size_t n)
{
	struct pass *p = ctx;
	if (order < 0 || (size_t)order >= p->in->nr_threads)
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int32_t r = resolve(p->b, calls[i].site);
		if (r >= 0) {
			p->b->tr->regions[r].nr_calls++;
			k++;
		}
	}
	p->per_thread[order] += k;
	p->b->tr->nr_calls += k;
	return p->b->oom ? -ENOMEM : 0;
}

static void count_site(void *ctx, const struct sp_site *site, uint64_t calls)
{
	struct builder *b = ctx;
	int32_t r = resolve(b, site);
	if (r >= 0) {
		b->tr->regions[r].nr_calls += calls;
		b->tr->nr_calls += calls;
	}
}

/* Counts per region from the stream's per-handle tallies (no pass over the
 * file), else by reading the file back. */
static int count_calls(struct builder *b, const struct sp_trace_input *in, size_t *per_thread)
{
	if (sp_stream__each_site(count_site, b)) {
		for (size_t k = 0; k < in->nr_threads; k++)
			per_thread[k] = in->threads[k]->nr_calls;
		return b->oom ? -ENOMEM : 0;
	}
	for (size_t r = 0; r < b->tr->nr_regions; r++)
		b->tr->regions[r].nr_calls = 0;
	b->tr->nr_calls = 0;
	struct pass p = {.b = b, .in = in, .per_thread = per_thread};
	int rc = sp_stream__each_call(count_frame, &p);
	return rc ? rc : b->oom ? -ENOMEM : 0;
}

static int fill_frame(void *ctx, int order, const struct sp_call *calls, size_t n)
{
	struct pass *p = ctx;
	struct sp_trace *tr = p->b->tr;
	if (order < 0 || (size_t)order >= p->in->nr_threads)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct sp_call *c = &calls[i];
		int32_t r = resolve(p->b, c->site);
		if (r < 0 || p->fill[r] == tr->regions[r].nr_calls)
			continue;
		struct sp_call_out *o = &tr->regions[r].calls[p->fill[r]++];
		o->start_ns = sp_clock_map__ns(p->map, c->start);
		o->end_ns = sp_clock_map__ns(p->map, c->end);
		o->lane = p->lane_of[order];
	}
	return 0;
}

static int fill_calls(struct builder *b, const struct sp_trace_input *in,
		      const size_t *per_thread, const int32_t *lane_of,
		      struct sp_clock_map *map)
{
	(void)per_thread;
	struct sp_trace *tr = b->tr;
	size_t *fill = calloc(tr->nr_regions + 1, sizeof(*fill));
	tr->calls = malloc((tr->nr_calls + 1) * sizeof(*tr->calls));
	if (!fill || !tr->calls) {
		free(fill);
		return -ENOMEM;
	}
	size_t off = 0;
	for (size_t r = 0; r < tr->nr_regions; r++) {
		tr->regions[r].calls = tr->calls + off;
		off += tr->regions[r].nr_calls;
	}
	struct pass p = {.b = b, .in = in, .lane_of = lane_of, .fill = fill, .map = map};
	int rc = sp_stream__each_call(fill_frame, &p);
	for (size_t r = 0; r < tr->nr_regions; r++)
		tr->regions[r].nr_calls = fill[r];
	free(fill);
	return rc;
}

/* What a streamed trace's writer needs to read the calls back (the builder's
 * site map, the lanes, the clock map), kept from sp_trace__build. */
struct sp_trace_src {
	struct builder b;
	const struct sp_trace_input *in;
	int32_t *lane_of;
	struct sp_clock_map *map;
	size_t *fill;
};

struct each_pass {
	struct sp_trace_src *src;
	int (*fn)(void *ctx, uint32_t region, const struct sp_call_out *c);
	void *ctx;
};

static int each_frame(void *ctx, int order, const struct sp_call *calls, size_t n)
{
	struct each_pass *p = ctx;
	struct sp_trace_src *src = p->src;
	struct sp_trace *tr = src->b.tr;
	if (order < 0 || (size_t)order >= src->in->nr_threads)
		return 0;
	struct sp_call_out o;
	memset(&o, 0, sizeof(o)); /* the padding may reach a scratch file */
	o.lane = src->lane_of[order];
	for (size_t i = 0; i < n; i++) {
		const struct sp_call *c = &calls[i];
		int32_t r = resolve(&src->b, c->site);
		if (r < 0 || src->fill[r] == tr->regions[r].nr_calls)
			continue;
		src->fill[r]++;
		o.start_ns = sp_clock_map__ns(src->map, c->start);
		o.end_ns = sp_clock_map__ns(src->map, c->end);
		int rc = p->fn(p->ctx, (uint32_t)r, &o);
		if (rc)
			return rc;
	}
	return 0;
}

int sp_trace__each_call(const struct sp_trace *tr,
			int (*fn)(void *ctx, uint32_t region, const struct sp_call_out *c),
			void *ctx)
{
	struct sp_trace_src *src = tr->src;
	if (!src)
		return -EINVAL;
	memset(src->fill, 0, (tr->nr_regions + 1) * sizeof(*src->fill));
	struct each_pass p = {src, fn, ctx};
	int rc = sp_stream__each_call(each_frame, &p);
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++)
		if (src->fill[r] != tr->regions[r].nr_calls)
			rc = -EIO; /* the file no longer holds what was counted */
	return rc;
}

struct counts_pass {
	struct sp_trace_src *src;
	size_t *fill;
	int (*fn)(void *ctx, int32_t region, int32_t lane, int64_t start_ns,
		  const int64_t *vals);
	void *ctx;
};

static int counts_frame(void *ctx, int order, const struct sp_call *calls, size_t n,
			const int64_t *vals, int per_call)
{
	struct counts_pass *p = ctx;
	struct sp_trace_src *src = p->src;
	struct sp_trace *tr = src->b.tr;
	if (order < 0 || (size_t)order >= src->in->nr_threads)
		return 0;
	int32_t lane = src->lane_of[order];
	bool usable = vals && per_call == tr->nr_ctr_counted;
	for (size_t i = 0; i < n; i++) {
		int32_t r = resolve(&src->b, calls[i].site);
		if (r < 0 || p->fill[r] == tr->regions[r].nr_calls)
			continue;
		p->fill[r]++;
		int rc = p->fn(p->ctx, r, lane, sp_clock_map__ns(src->map, calls[i].start),
			       usable ? vals + i * (size_t)per_call : NULL);
		if (rc)
			return rc;
	}
	return 0;
}

int sp_trace__each_call_counts(const struct sp_trace *tr,
			       int (*fn)(void *ctx, int32_t region, int32_t lane,
					 int64_t start_ns, const int64_t *vals),
			       void *ctx, uint64_t *seen)
{
	*seen = 0;
	if (!tr->ctr_src)
		return -EINVAL;
	size_t *fill = calloc(tr->nr_regions + 1, sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	struct counts_pass p = {tr->ctr_src, fill, fn, ctx};
	int rc = sp_stream__each_call_values(counts_frame, &p);
	for (size_t r = 0; r < tr->nr_regions; r++)
		*seen += fill[r];
	free(fill);
	return rc;
}

static void src_free(struct sp_trace_src *src)
{
	if (!src)
		return;
	free(src->b.sites.keys);
	free(src->b.sites.vals);
	free(src->b.names.slots);
	free(src->lane_of);
	free(src->fill);
	free(src);
}

static void add_interned(struct builder *b, const struct sp_trace_input *in)
{
	for (size_t i = 0; i < in->nr_interned; i++)
		resolve(b, in->interned[i]);
}

static int64_t thread_cpu_ns(const struct sp_thread *t)
{
	if (atomic_load(&t->exited))
		return t->cpu_ns;
	struct timespec ts;
	clockid_t clk = (clockid_t)((~(uint32_t)t->tid << 3) | 6u); /* the thread's CPU clock */
	if (clock_gettime(clk, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int build_lanes(struct sp_trace *tr, const struct sp_trace_input *in,
		       const size_t *per_thread, int32_t *lane_of, struct sp_clock_map *map)
{
	tr->lanes = calloc(in->nr_threads + 1, sizeof(*tr->lanes));
	if (!tr->lanes)
		return -ENOMEM;
	for (size_t k = 0; k < in->nr_threads; k++) {
		lane_of[k] = -1;
		if (!per_thread[k])
			continue;
		struct sp_thread *t = in->threads[k];
		struct sp_lane_out *l = &tr->lanes[tr->nr_lanes];
		l->tid = t->tid;
		memcpy(l->name, t->name, sizeof(l->name));
		l->first_ns = sp_clock_map__ns(map, t->first_stamp);
		l->last_ns = sp_clock_map__ns(map, t->last_stamp);
		l->cpu_ns = thread_cpu_ns(t);
		/* Threads may rename themselves after their first region; an
		 * exited thread's name was kept at its exit. */
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%lld/comm", (long long)t->tid);
		FILE *f = atomic_load(&t->exited) ? NULL : fopen(path, "re");
		if (f) {
			if (fgets(l->name, sizeof(l->name), f))
				l->name[strcspn(l->name, "\n")] = 0;
			fclose(f);
		}
		lane_of[k] = (int32_t)tr->nr_lanes++;
	}
	return 0;
}

static int build_samples(struct builder *b, const struct sp_trace_input *in)
{
	struct sp_trace *tr = b->tr;
	size_t n = 0;
	for (struct sp_sample_chunk *c = in->samples; c; c = c->next_all)
		n += atomic_load_explicit(&c->nr, memory_order_acquire);
	tr->sample_region = malloc((n + 1) * sizeof(int32_t));
	tr->sample_module = malloc((n + 1) * sizeof(int32_t));
	tr->sample_addr = malloc((n + 1) * sizeof(uint64_t));
	tr->sample_weight = malloc((n + 1) * sizeof(int32_t));
	if (!tr->sample_region || !tr->sample_module || !tr->sample_addr || !tr->sample_weight)
		return -ENOMEM;
	struct sp_modules mods;
	if (sp_modules__load(&mods) < 0)
		return -ENOMEM;
	for (struct sp_sample_chunk *c = in->samples; c; c = c->next_all) {
		size_t nr = atomic_load_explicit(&c->nr, memory_order_acquire);
		for (size_t i = 0; i < nr && tr->nr_samples < n; i++) {
			size_t s = tr->nr_samples++;
			tr->sample_region[s] = c->s[i].site ? resolve(b, c->s[i].site) : -1;
			tr->sample_addr[s] = c->s[i].addr;
			tr->sample_module[s] = sp_modules__find(&mods, c->s[i].addr);
			uint32_t w = c->s[i].weight;
			tr->sample_weight[s] = w == 0 ? 1 : w > INT32_MAX ? INT32_MAX : (int32_t)w;
		}
	}
	tr->nr_modules = sp_modules__take(&mods, &tr->modules);
	sp_modules__exit(&mods);
	return b->oom ? -ENOMEM : 0;
}

static int32_t region_of_site(void *ctx, const struct sp_site *site)
{
	return resolve(ctx, site);
}

int sp_trace__build(struct sp_trace *tr, const struct sp_trace_input *in,
		    struct sp_clock_map *map)
{
	struct builder b = {.tr = tr, .last_val = -1};
	memset(tr, 0, sizeof(*tr));
	tr->rank = in->rank;
	size_t *per_thread = calloc(in->nr_threads + 1, sizeof(*per_thread));
	int32_t *lane_of = calloc(in->nr_threads + 1, sizeof(*lane_of));
	int rc = -ENOMEM;
	if (!per_thread || !lane_of)
		goto out;
	add_interned(&b, in);
	rc = count_calls(&b, in, per_thread);
	if (rc == 0)
		rc = build_lanes(tr, in, per_thread, lane_of, map);
	if (rc == 0)
		rc = sp_counters__collect(tr, in->threads, in->nr_threads, lane_of,
					  region_of_site, &b);
	/* More calls than one chunk: the .spt writer reads them back itself
	 * (writer_stream.c); tr->calls stays NULL. */
	bool streamed = tr->nr_calls > sp_spill__chunk() && in->scratch_near;
	if (rc == 0 && !streamed)
		rc = fill_calls(&b, in, per_thread, lane_of, map);
	for (size_t r = 0; rc == 0 && !streamed && r < tr->nr_regions; r++)
		rc = sp_trace__sort_calls(tr->regions[r].calls, tr->regions[r].nr_calls);
	tr->has_samples = in->samples != NULL || in->with_modules;
	if (rc == 0 && tr->has_samples)
		rc = build_samples(&b, in);
	/* Kept too when events were counted: the writer reads each call's
	 * counts back from the file (sp_trace__each_call_counts). */
	if (rc == 0 && (streamed || tr->nr_ctr_counted > 0)) {
		struct sp_trace_src *src = calloc(1, sizeof(*src));
		size_t *fill = calloc(tr->nr_regions + 1, sizeof(*fill));
		if (src && fill) {
			*src = (struct sp_trace_src){b, in, lane_of, map, fill};
			tr->src = streamed ? src : NULL;
			tr->ctr_src = src;
			memset(&b, 0, sizeof(b)); /* owned by src now */
			lane_of = NULL;
		} else {
			free(src);
			free(fill);
			rc = -ENOMEM;
		}
	}
out:
	free(b.sites.keys);
	free(b.sites.vals);
	free(b.names.slots);
	free(per_thread);
	free(lane_of);
	if (rc < 0)
		sp_trace__free(tr);
	return rc;
}

void sp_trace__free(struct sp_trace *tr)
{
	for (size_t r = 0; r < tr->nr_regions; r++) {
		free(tr->regions[r].name);
		free(tr->regions[r].file);
	}
	for (size_t m = 0; m < tr->nr_modules; m++)
		free(tr->modules[m].path);
	for (size_t k = 0; k < sizeof(tr->misuse) / sizeof(tr->misuse[0]); k++)
		for (size_t i = 0; i < tr->misuse[k].nr_names; i++)
			free(tr->misuse[k].names[i]);
	free(tr->regions);
	free(tr->calls);
	if (tr->ctr_src != tr->src)
		src_free(tr->ctr_src);
	src_free(tr->src);
	free(tr->lanes);
	free(tr->ctr_rows);
	free(tr->modules);
	free(tr->sample_region);
	free(tr->sample_module);
	free(tr->sample_addr);
	free(tr->sample_weight);
	memset(tr, 0, sizeof(*tr));
}
