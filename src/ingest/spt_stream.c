// SPDX-License-Identifier: BSD-3-Clause
/*
 * Recovery of an unfinished trace (lib/sp_format.h, docs/formats.md): the
 * frames a recording process appended before it died. Every complete frame
 * counts; the scan stops at the first incomplete or unrecognisable one,
 * which is where the process was cut. The calls are converted to ns with the
 * anchors, grouped by region name, sorted as the library sorts them, and
 * laid out as a finished v2/v3 trace so the one parser reads them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/spt_reader.h"

/* uint64 key -> int32 value, open addressing (value EMPTY: empty slot). */
#define EMPTY INT32_MIN
struct u64map {
	uint64_t *keys;
	int32_t *vals;
	size_t cap, nr;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int32_t *u64map_slot(struct u64map *m, uint64_t key, bool *fresh)
{
	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *k = xcalloc(cap, sizeof(*k));
		int32_t *v = xmalloc(cap * sizeof(*v));
		if (!k || !v) {
			xfree(k);
			xfree(v);
			return NULL;
		}
		for (size_t i = 0; i < cap; i++)
			v[i] = EMPTY;
		for (size_t i = 0; i < m->cap; i++) {
			if (m->vals[i] == EMPTY)
				continue;
			size_t j = mix(m->keys[i]) & (cap - 1);
			while (v[j] != EMPTY)
				j = (j + 1) & (cap - 1);
			k[j] = m->keys[i];
			v[j] = m->vals[i];
		}
		xfree(m->keys);
		xfree(m->vals);
		m->keys = k;
		m->vals = v;
		m->cap = cap;
	}
	size_t j = mix(key) & (m->cap - 1);
	while (m->vals[j] != EMPTY && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	*fresh = m->vals[j] == EMPTY;
	if (*fresh) {
		m->keys[j] = key;
		m->nr++;
	}
	return &m->vals[j];
}

static void u64map_free(struct u64map *m)
{
	xfree(m->keys);
	xfree(m->vals);
}

struct sregion {
	const char *name, *file;
	uint32_t name_len, file_len;
	int32_t line;
	int64_t n, fill;
};

struct sthread {
	int32_t order;
	int64_t tid;
	const char *name;
	uint32_t name_len;
	int64_t calls;
	int32_t lane;
};

struct scall {
	int64_t start, end;
	int32_t lane;
};

struct frame_ref {
	size_t off; /* of the first call */
	size_t n;
	int32_t thread; /* index into threads */
};

struct rec {
	const unsigned char *buf;
	size_t len;
	bool swap;
	const char *path;
	struct err *e;
	bool tsc;
	struct u64map sites;   /* handle -> region index, or -2: not a descriptor */
	struct u64map names;   /* name hash -> first region with that hash */
	struct u64map orders;  /* thread order -> index */
	struct sregion *regions;
	size_t nr_regions, cap_regions;
	struct sthread *threads;
	size_t nr_threads, cap_threads;
	uint64_t *anchors; /* pairs */
	size_t nr_anchors, cap_anchors;
	struct frame_ref *frames;
	size_t nr_frames, cap_frames;
	struct scall *calls;
	int64_t nr_calls;
};

static int nomem(struct rec *r)
{
	return err_set(r->e, -ENOMEM, ERR_OOM, "%s: out of memory", r->path);
}

static uint32_t ld32(const struct rec *r, size_t off)
{
	return (uint32_t)spt_load_i32(r->buf + off, r->swap);
}

static uint64_t ld64(const struct rec *r, size_t off)
{
	return (uint64_t)spt_load_i64(r->buf + off, r->swap);
}

/* A string inside a frame ending at `end`: false if it does not fit. */
static bool frame_str(const struct rec *r, size_t *off, size_t end, const char **s, uint32_t *n)
{
	/* The outputs change only on success: a frame whose length lies must
	 * not leave a length pointing past the buffer beside an older name. */
	if (end - *off < 4)
		return false;
	uint32_t len = ld32(r, *off);
	if (len > end - *off - 4)
		return false;
	*off += 4;
	*s = (const char *)r->buf + *off;
	*n = len;
	*off += len;
	return true;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* Region index of a name, added if new (names with one hash chain by
 * linear probing in `names` keyed by hash + probe count). */
static int32_t region_of(struct rec *r, const char *name, uint32_t len, const char *file,
			 uint32_t file_len, int32_t line)
{
	uint64_t h = hash_bytes(name, len);
	for (uint64_t probe = 0;; probe++) {
		bool fresh;
		int32_t *slot = u64map_slot(&r->names, mix(h + probe), &fresh);
		if (!slot)
			return -1;
		if (!fresh) {
			struct sregion *g = &r->regions[*slot];
			if (g->name_len == len && memcmp(g->name, name, len) == 0) {
				if (!g->file && file) {
					g->file = file;
					g->file_len = file_len;
					g->line = line;
				}
				return *slot;
			}
			continue;
		}
		if (xgrow((void **)&r->regions, &r->cap_regions, r->nr_regions + 1,
			  sizeof(*r->regions)))
			return -1;
		r->regions[r->nr_regions] = (struct sregion){name, file, len, file_len,
							     file ? line : -1, 0, 0};
		*slot = (int32_t)r->nr_regions;
		return (int32_t)r->nr_regions++;
	}
}

static int on_site(struct rec *r, size_t off, size_t end)
{
	if (end - off < 16)
		return 1;
	uint64_t handle = ld64(r, off);
	int32_t line = (int32_t)ld32(r, off + 8), valid = (int32_t)ld32(r, off + 12);
	off += 16;
	const char *name, *file;
	uint32_t nl, fl;
	if (!frame_str(r, &off, end, &name, &nl) || !frame_str(r, &off, end, &file, &fl))
		return 1;
	bool fresh;
	int32_t *slot = u64map_slot(&r->sites, handle, &fresh);
	if (!slot)
		return nomem(r);
	if (!fresh)
		return 0;
	*slot = -2;
	if (valid) {
		int32_t g = region_of(r, name, nl, fl ? file : NULL, fl, line);
		if (g < 0)
			return nomem(r);
		*slot = g;
	}
	return 0;
}

static int32_t thread_of(struct rec *r, int32_t order)
{
	bool fresh;
	int32_t *slot = u64map_slot(&r->orders, (uint64_t)(uint32_t)order, &fresh);
	if (!slot)
		return -1;
	if (fresh) {
		if (xgrow((void **)&r->threads, &r->cap_threads, r->nr_threads + 1,
			  sizeof(*r->threads)))
			return -1;
		r->threads[r->nr_threads] = (struct sthread){order, -1, NULL, 0, 0, -1};
		*slot = (int32_t)r->nr_threads++;
	}
	return *slot;
}

static int on_thread(struct rec *r, size_t off, size_t end)
{
	if (end - off < 16)
		return 1;
	int32_t k = thread_of(r, (int32_t)ld32(r, off));
	if (k < 0)
		return nomem(r);
	struct sthread *t = &r->threads[k];
	t->tid = (int64_t)ld64(r, off + 8);
	off += 16;
	return frame_str(r, &off, end, &t->name, &t->name_len) ? 0 : 1;
}

static int on_anchor(struct rec *r, size_t off, size_t end)
{
	if ((end - off) % 16)
		return 1;
	for (; off < end; off += 16) {
		if (xgrow((void **)&r->anchors, &r->cap_anchors, 2 * r->nr_anchors + 2,
			  sizeof(*r->anchors)))
			return nomem(r);
		r->anchors[2 * r->nr_anchors] = ld64(r, off);
		r->anchors[2 * r->nr_anchors + 1] = ld64(r, off + 8);
		r->nr_anchors++;
	}
	return 0;
}

static int on_calls(struct rec *r, size_t off, size_t end)
{
	if (end - off < 8 || (end - off - 8) % SP_STREAM_CALL_LEN)
		return 1;
	int32_t k = thread_of(r, (int32_t)ld32(r, off));
	if (k < 0 || xgrow((void **)&r->frames, &r->cap_frames, r->nr_frames + 1,
			   sizeof(*r->frames)))
		return nomem(r);
	r->frames[r->nr_frames++] = (struct frame_ref){off + 8, (end - off - 8) / SP_STREAM_CALL_LEN,
						      k};
	return 0;
}

/* Walks the frames; stops at the first incomplete or unknown one. */
static int scan(struct rec *r, struct spt_cut *cut)
{
	size_t off = SP_STREAM_HEADER_LEN;
	cut->bytes_used = off;
	while (r->len - off >= SP_FRAME_HEADER_LEN) {
		uint32_t tag = ld32(r, off), n = ld32(r, off + 4);
		size_t body = off + SP_FRAME_HEADER_LEN;
		if (n > SP_FRAME_MAX || n > r->len - body)
			break;
		int rc = tag == SP_FRAME_SITE	  ? on_site(r, body, body + n)
			 : tag == SP_FRAME_THREAD ? on_thread(r, body, body + n)
			 : tag == SP_FRAME_ANCHOR ? on_anchor(r, body, body + n)
			 : tag == SP_FRAME_CALLS  ? on_calls(r, body, body + n)
			 /* each call's counts: the finished trace's CCAL section
			  * carries them; a cut trace's are skipped, as its sums */
			 : tag == SP_FRAME_VALUES ? 0
						  : 1;
		if (rc < 0)
			return rc;
		if (rc > 0)
			break; /* not a frame we can trust: the end of what we recover */
		off = body + n;
		cut->bytes_used = off;
	}
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Anchors sorted by stamp, strictly increasing in both clocks. */
static void clean_anchors(struct rec *r)
{
	if (!r->nr_anchors)
		return;
	qsort(r->anchors, r->nr_anchors, 2 * sizeof(uint64_t), cmp_pair);
	size_t k = 0;
	for (size_t i = 0; i < r->nr_anchors; i++) {
		uint64_t t = r->anchors[2 * i], m = r->anchors[2 * i + 1];
		if (k && (t <= r->anchors[2 * k - 2] || m < r->anchors[2 * k - 1]))
			continue;
		r->anchors[2 * k] = t;
		r->anchors[2 * k + 1] = m;
		k++;
	}
	r->nr_anchors = k;
}

/* A stamp in ns: anchors interpolate (the nearest segment extrapolates). */
static int64_t to_ns(const struct rec *r, uint64_t stamp)
{
	if (!r->tsc)
		return (int64_t)stamp;
	size_t lo = 0, hi = r->nr_anchors - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->anchors[2 * mid] <= stamp)
			lo = mid;
		else
			hi = mid;
	}
	const uint64_t *a = &r->anchors[2 * lo], *b = &r->anchors[2 * hi];
	double slope = ((double)b[1] - (double)a[1]) / ((double)b[0] - (double)a[0]);
	double ns = (double)(int64_t)a[1] + (double)(int64_t)(stamp - a[0]) * slope;
	/* A damaged anchor must not overflow the conversion: clamp, the
	 * nesting check downstream refuses what makes no sense. */
	if (!(ns > -4e18))
		return -(int64_t)4e18;
	if (ns > 4e18)
		return (int64_t)4e18;
	return (int64_t)ns;
}

static int cmp_call(const void *a, const void *b)
{
	const struct scall *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the enclosing call first */
	return (x->lane > y->lane) - (x->lane < y->lane);
}

static int cmp_thread_order(const void *a, const void *b)
{
	const struct sthread *const *x = a, *const *y = b;
	return ((*x)->order > (*y)->order) - ((*x)->order < (*y)->order);
}

static int32_t site_region(const struct rec *r, uint64_t handle)
{
	if (!r->sites.cap)
		return -1;
	size_t j = mix(handle) & (r->sites.cap - 1);
	while (r->sites.vals[j] != EMPTY) {
		if (r->sites.keys[j] == handle)
			return r->sites.vals[j] < 0 ? -1 : r->sites.vals[j];
		j = (j + 1) & (r->sites.cap - 1);
	}
	return -1;
}

/* Calls per region and per thread; lanes for threads with calls. */
static int count_calls(struct rec *r, struct spt_cut *cut)
{
	for (size_t f = 0; f < r->nr_frames; f++) {
		const struct frame_ref *fr = &r->frames[f];
		for (size_t i = 0; i < fr->n; i++) {
			int32_t g = site_region(r, ld64(r, fr->off + i * SP_STREAM_CALL_LEN));
			if (g < 0) {
				cut->dropped_calls++;
				continue;
			}
			r->regions[g].n++;
			r->threads[fr->thread].calls++;
			r->nr_calls++;
		}
	}
	struct sthread **order = xcalloc(r->nr_threads + 1, sizeof(*order));
	if (!order)
		return nomem(r);
	size_t nl = 0;
	for (size_t k = 0; k < r->nr_threads; k++)
		if (r->threads[k].calls)
			order[nl++] = &r->threads[k];
	qsort(order, nl, sizeof(*order), cmp_thread_order);
	for (size_t k = 0; k < nl; k++)
		order[k]->lane = (int32_t)k;
	xfree(order);
	return 0;
}

static int fill_calls(struct rec *r, struct spt_cut *cut)
{
	r->calls = xmalloc(((size_t)r->nr_calls + 1) * sizeof(*r->calls));
	if (!r->calls)
		return nomem(r);
	int64_t off = 0;
	for (size_t g = 0; g < r->nr_regions; g++) {
		r->regions[g].fill = off;
		off += r->regions[g].n;
	}
	cut->last_ns = -1;
	for (size_t f = 0; f < r->nr_frames; f++) {
		const struct frame_ref *fr = &r->frames[f];
		for (size_t i = 0; i < fr->n; i++) {
			size_t at = fr->off + i * SP_STREAM_CALL_LEN;
			int32_t g = site_region(r, ld64(r, at));
			if (g < 0)
				continue;
			struct scall *c = &r->calls[r->regions[g].fill++];
			c->start = to_ns(r, ld64(r, at + 8));
			c->end = to_ns(r, ld64(r, at + 16));
			c->lane = r->threads[fr->thread].lane;
			cut->last_ns = c->end > cut->last_ns ? c->end : cut->last_ns;
		}
	}
	off = 0;
	for (size_t g = 0; g < r->nr_regions; g++) {
		qsort(r->calls + off, (size_t)r->regions[g].n, sizeof(*r->calls), cmp_call);
		r->regions[g].fill = off;
		off += r->regions[g].n;
	}
	cut->calls = r->nr_calls;
	cut->frames = (int64_t)r->nr_frames;
	return 0;
}

/* A bounded writer: the image is sized from the records first, and a
 * damaged trace whose records disagree must fail, never write past the end. */
struct wcur {
	unsigned char *w, *end;
	bool over;
};

static void put(struct wcur *c, const void *p, size_t n)
{
	if (c->over || (size_t)(c->end - c->w) < n) {
		c->over = true;
		return;
	}
	memcpy(c->w, p, n);
	c->w += n;
}

static void put_str(struct wcur *w, const char *s, uint32_t n)
{
	int32_t len = (int32_t)n;
	put(w, &len, 4);
	if (n)
		put(w, s, n);
}

static size_t image_size(const struct rec *r, int version)
{
	size_t n = 24, per_call = version >= 3 ? 20 : 16;
	for (size_t g = 0; g < r->nr_regions; g++)
		n += 4 + r->regions[g].name_len + 4 + r->regions[g].file_len + 4 + 8 +
		     (size_t)r->regions[g].n * per_call;
	return version >= 3 ? n + 4 : n; /* + the lane count; lanes sized by the caller */
}

/* The finished layout, in our byte order. */
static int write_image(const struct rec *r, int32_t rank, size_t nr_lanes, unsigned char **image,
		       size_t *image_len)
{
	int32_t version = nr_lanes > 1 ? 3 : 2;
	size_t len = image_size(r, version);
	/* Lane -> thread, sized from this one mapping: a damaged trace may
	 * leave a lane without a thread (written as tid 0, no name) or name two
	 * threads for one lane (the last wins), never a size that disagrees. */
	size_t *of_lane = NULL;
	if (version >= 3) {
		of_lane = xmalloc((nr_lanes + 1) * sizeof(*of_lane));
		if (!of_lane)
			return -ENOMEM;
		for (size_t l = 0; l < nr_lanes; l++)
			of_lane[l] = SIZE_MAX;
		for (size_t k = 0; k < r->nr_threads; k++)
			if (r->threads[k].calls && (size_t)r->threads[k].lane < nr_lanes)
				of_lane[r->threads[k].lane] = k;
		for (size_t l = 0; l < nr_lanes; l++)
			len += 8 + 4 + (of_lane[l] == SIZE_MAX ? 0 : r->threads[of_lane[l]].name_len);
	}
	unsigned char *img = xmalloc(len + 1);
	if (!img) {
		xfree(of_lane);
		return -ENOMEM;
	}
	struct wcur wc = {img, img + len, false};
	int64_t nreg = (int64_t)r->nr_regions;
	put(&wc, SP_SPT_MAGIC, 8);
	put(&wc, &version, 4);
	put(&wc, &rank, 4);
	put(&wc, &nreg, 8);
	for (size_t g = 0; g < r->nr_regions; g++) {
		const struct sregion *x = &r->regions[g];
		const struct scall *c = r->calls + x->fill;
		put_str(&wc, x->name, x->name_len);
		put_str(&wc, x->file, x->file ? x->file_len : 0);
		put(&wc, &x->line, 4);
		put(&wc, &x->n, 8);
		for (int64_t i = 0; i < x->n; i++)
			put(&wc, &c[i].start, 8);
		for (int64_t i = 0; i < x->n; i++)
			put(&wc, &c[i].end, 8);
		for (int64_t i = 0; version >= 3 && i < x->n; i++)
			put(&wc, &c[i].lane, 4);
	}
	if (version >= 3) {
		int32_t nt = (int32_t)nr_lanes;
		put(&wc, &nt, 4);
		for (size_t l = 0; l < nr_lanes; l++) {
			if (of_lane[l] == SIZE_MAX) {
				int64_t no_tid = 0;
				put(&wc, &no_tid, 8);
				put_str(&wc, NULL, 0);
				continue;
			}
			const struct sthread *t = &r->threads[of_lane[l]];
			put(&wc, &t->tid, 8);
			put_str(&wc, t->name, t->name_len);
		}
		xfree(of_lane);
	}
	if (wc.over) {
		xfree(img);
		return -EINVAL;
	}
	*image = img;
	*image_len = (size_t)(wc.w - img);
	return 0;
}

static void rec_free(struct rec *r)
{
	u64map_free(&r->sites);
	u64map_free(&r->names);
	u64map_free(&r->orders);
	xfree(r->regions);
	xfree(r->threads);
	xfree(r->anchors);
	xfree(r->frames);
	xfree(r->calls);
}

int spt_stream_recover(const unsigned char *buf, size_t len, const char *path, bool swap,
		       unsigned char **image, size_t *image_len, struct spt_cut *cut,
		       struct err *e)
{
	memset(cut, 0, sizeof(*cut));
	*image = NULL;
	*image_len = 0;
	if (len < SP_STREAM_HEADER_LEN)
		return err_set(e, -EINVAL, ERR_TRACE_TRUNCATED,
			       "%s: byte %zu: truncated: expected the %d-byte header of an "
			       "unfinished trace, found %zu bytes", path, len, SP_STREAM_HEADER_LEN, len);
	struct rec r = {.buf = buf, .len = len, .swap = swap, .path = path, .e = e};
	int32_t rank = (int32_t)ld32(&r, 12), clk = (int32_t)ld32(&r, 16);
	if (clk != SP_CLOCK_NS && clk != SP_CLOCK_TSC)
		return err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte 16: expected a clock kind (0 ns or 1 TSC), found %" PRId32,
			       path, clk);
	r.tsc = clk == SP_CLOCK_TSC;
	cut->cut = true;
	cut->pid = (int64_t)ld64(&r, 24);
	cut->init_ns = (int64_t)ld64(&r, 32);
	cut->bytes_total = len;
	int rc = scan(&r, cut);
	if (rc == 0 && r.tsc) {
		clean_anchors(&r);
		if (r.nr_anchors < 2 && r.nr_frames)
			rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
				     "%s: byte %zu: the unfinished trace holds %zu clock anchors; "
				     "2 are needed to convert its TSC stamps to ns",
				     path, cut->bytes_used, r.nr_anchors);
	}
	if (rc == 0)
		rc = count_calls(&r, cut);
	if (rc == 0)
		rc = fill_calls(&r, cut);
	size_t lanes = 0;
	for (size_t k = 0; k < r.nr_threads; k++)
		lanes += r.threads[k].calls > 0;
	int wrc = rc == 0 ? write_image(&r, rank, lanes, image, image_len) : 0;
	if (wrc == -ENOMEM)
		rc = nomem(&r);
	else if (wrc)
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			     "%s: the unfinished trace's records disagree with each other "
			     "(calls, regions and threads do not add up): nothing recoverable",
			     path);
	rec_free(&r);
	return rc;
}
