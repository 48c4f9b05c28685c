/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The region records of a streamed trace (more calls than one finalize
 * chunk, spill.h), in bounded memory. The layout is known before any call
 * is read (each region's count, name and location), so every region's
 * arrays have their place in the file: the calls, read back from the
 * unfinished trace in file order, are buffered per region and written
 * there (pwrite). A region whose calls arrive in the seed's order (one
 * thread, no recursion: the usual case) costs nothing more. The first call
 * out of order sends the region to the spill: what it had written so far
 * is read back into it, the rest follows, and after the pass its sorted
 * runs are merged into its place. The bytes are those of an in-memory
 * finalize (spill.h says why).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spill.h"
#include "call_order.h"
#include "trace.h"
#include "writer.h"

static int pwrite_all(int fd, const void *p, size_t n, off_t at)
{
	const unsigned char *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n, at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
		at += w;
	}
	return 0;
}

static int pread_all(int fd, void *p, size_t n, off_t at)
{
	unsigned char *c = p;
	while (n) {
		ssize_t r = pread(fd, c, n, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		c += r;
		n -= (size_t)r;
		at += r;
	}
	return 0;
}

/* One region's place in the file and its buffered calls. */
struct region_col {
	off_t at;       /* its starts; ends at + 8 n, lanes at + 16 n */
	size_t count;   /* calls it holds (the header's) */
	size_t written; /* calls in place (in order so far) */
	size_t n, cap;  /* buffered */
	int64_t *s, *e;
	int32_t *l;
	struct sp_call_out last;
	bool demoted; /* out of order: its calls go to the spill */
};

struct ctx {
	int fd, version;
	struct region_col *g;
	size_t cap; /* calls buffered per region */
	struct sp_spill *spill;
	size_t nr_regions;
	const char *near;
};

static int col_flush(struct ctx *k, struct region_col *g)
{
	if (!g->n)
		return 0;
	off_t n = (off_t)g->count, w = (off_t)g->written;
	int rc = pwrite_all(k->fd, g->s, g->n * 8, g->at + 8 * w);
	if (rc == 0)
		rc = pwrite_all(k->fd, g->e, g->n * 8, g->at + 8 * n + 8 * w);
	if (rc == 0 && k->version >= 3)
		rc = pwrite_all(k->fd, g->l, g->n * 4, g->at + 16 * n + 4 * w);
	g->written += g->n;
	g->n = 0;
	return rc;
}

/* Hands what @p r wrote in place to the spill, in blocks read back. */
static int demote(struct ctx *k, uint32_t r)
{
	struct region_col *g = &k->g[r];
	int rc = col_flush(k, g);
	if (rc == 0 && !k->spill) {
		k->spill = sp_spill__new(k->near, k->nr_regions, sp_spill__chunk());
		rc = k->spill ? 0 : -ENOMEM;
	}
	off_t n = (off_t)g->count;
	struct sp_call_out c;
	memset(&c, 0, sizeof(c));
	for (size_t done = 0; rc == 0 && done < g->written;) {
		size_t m = g->written - done < g->cap ? g->written - done : g->cap;
		rc = pread_all(k->fd, g->s, m * 8, g->at + 8 * (off_t)done);
		if (rc == 0)
			rc = pread_all(k->fd, g->e, m * 8, g->at + 8 * n + 8 * (off_t)done);
		if (rc == 0 && k->version >= 3)
			rc = pread_all(k->fd, g->l, m * 4, g->at + 16 * n + 4 * (off_t)done);
		for (size_t i = 0; rc == 0 && i < m; i++) {
			c.start_ns = g->s[i];
			c.end_ns = g->e[i];
			c.lane = k->version >= 3 ? g->l[i] : 0;
			rc = sp_spill__add(k->spill, r, &c);
		}
		done += m;
	}
	g->demoted = true;
	g->written = 0; /* its place is rewritten by the merge */
	return rc;
}

static int on_call(void *ctx, uint32_t r, const struct sp_call_out *c)
{
	struct ctx *k = ctx;
	struct region_col *g = &k->g[r];
	if (!g->demoted && (g->written || g->n) && sp_call_out__before(c, &g->last)) {
		int rc = demote(k, r);
		if (rc)
			return rc;
	}
	if (g->demoted)
		return sp_spill__add(k->spill, r, c);
	if (!g->s) {
		g->cap = k->cap;
		g->s = malloc(g->cap * 8);
		g->e = malloc(g->cap * 8);
		g->l = malloc(g->cap * 4);
		if (!g->s || !g->e || !g->l)
			return -ENOMEM;
	}
	g->s[g->n] = c->start_ns;
	g->e[g->n] = c->end_ns;
	g->l[g->n++] = c->lane;
	g->last = *c;
	return g->n == g->cap ? col_flush(k, g) : 0;
}

struct merged {
	struct ctx *k;
	struct region_col *g;
};

/* A demoted region's merged calls, written in place. */
static int put_merged(void *ctx, const struct sp_call_out *calls, size_t n)
{
	struct ctx *k = ((struct merged *)ctx)->k;
	struct region_col *g = ((struct merged *)ctx)->g;
	for (size_t done = 0; done < n;) {
		size_t m = n - done < g->cap ? n - done : g->cap;
		for (size_t i = 0; i < m; i++) {
			g->s[i] = calls[done + i].start_ns;
			g->e[i] = calls[done + i].end_ns;
			g->l[i] = calls[done + i].lane;
		}
		g->n = m;
		int rc = col_flush(k, g);
		if (rc)
			return rc;
		done += m;
	}
	return 0;
}

static size_t header_len(const struct sp_region_out *r)
{
	return 4 + strlen(r->name) + 4 + (r->file ? strlen(r->file) : 0) + 4 + 8;
}

static void put_header(unsigned char *b, const struct sp_region_out *r)
{
	int32_t nl = (int32_t)strlen(r->name), fl = r->file ? (int32_t)strlen(r->file) : 0;
	int32_t line = r->file ? r->line : -1;
	int64_t n = (int64_t)r->nr_calls;
	memcpy(b, &nl, 4);
	memcpy(b + 4, r->name, (size_t)nl);
	b += 4 + nl;
	memcpy(b, &fl, 4);
	if (fl)
		memcpy(b + 4, r->file, (size_t)fl);
	b += 4 + fl;
	memcpy(b, &line, 4);
	memcpy(b + 4, &n, 8);
}

/* Places every region (headers written now); the offset after the last. */
static int layout(struct ctx *k, const struct sp_trace *tr, off_t base, off_t *end)
{
	int rc = 0;
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++) {
		struct sp_region_out *reg = &tr->regions[r];
		size_t hl = header_len(reg);
		unsigned char *h = malloc(hl);
		if (!h)
			return -ENOMEM;
		put_header(h, reg);
		rc = pwrite_all(k->fd, h, hl, base);
		free(h);
		k->g[r].at = base + (off_t)hl;
		k->g[r].count = reg->nr_calls;
		reg->spt_off = (uint64_t)k->g[r].at;
		base = k->g[r].at + (off_t)reg->nr_calls * (k->version >= 3 ? 20 : 16);
	}
	*end = base;
	return rc;
}

static int write_regions(struct ctx *k, const struct sp_trace *tr, off_t base, off_t *end)
{
	int rc = layout(k, tr, base, end);
	if (rc == 0)
		rc = sp_trace__each_call(tr, on_call, k);
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++)
		rc = col_flush(k, &k->g[r]);
	if (rc == 0 && k->spill)
		rc = sp_spill__finish(k->spill);
	for (size_t r = 0; rc == 0 && r < tr->nr_regions; r++) {
		if (!k->g[r].demoted)
			continue;
		struct merged m = {k, &k->g[r]};
		rc = sp_spill__region(k->spill, (uint32_t)r, put_merged, &m);
		if (rc == 0 && k->g[r].written != k->g[r].count)
			rc = -EIO;
	}
	return rc;
}

void sp_writer__regions_streamed(struct sp_out *o, const struct sp_trace *tr, int version)
{
	off_t base = sp_out__flush(o);
	if (base < 0)
		return;
	struct ctx k = {.fd = o->fd, .version = version, .nr_regions = tr->nr_regions,
			.near = o->final_path};
	size_t per = SP_SPILL_MERGE_BYTES / 20 / (tr->nr_regions ? tr->nr_regions : 1);
	k.cap = per < 64 ? 64 : per > 8192 ? 8192 : per;
	k.g = calloc(tr->nr_regions + 1, sizeof(*k.g));
	off_t end = base;
	int rc = k.g ? write_regions(&k, tr, base, &end) : -ENOMEM;
	if (rc == 0 && lseek(o->fd, end, SEEK_SET) != end)
		rc = -errno;
	for (size_t r = 0; k.g && r < tr->nr_regions; r++) {
		free(k.g[r].s);
		free(k.g[r].e);
		free(k.g[r].l);
	}
	free(k.g);
	sp_spill__free(k.spill);
	if (rc && !o->err)
		o->err = rc;
}
