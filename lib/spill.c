/* SPDX-License-Identifier: BSD-3-Clause */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_order.h"
#include "trace.h"

/* One region's sorted calls from one chunk: in the scratch file, or (the
 * last chunk) in memory. */
struct run {
	const struct sp_call_out *mem; /* NULL: in the scratch file at `off` */
	uint64_t off;                  /* call index in the scratch file */
	size_t n;
	uint32_t next; /* next run of the same region + 1, 0 = none */
	struct sp_call_out first, last; /* to see runs that follow each other */
};

struct sp_spill {
	char *scratch_path;
	int fd;       /* scratch file, -1 until the first chunk is spilled */
	uint64_t nr_spilled;
	size_t chunk, n;
	struct sp_call_out *in, *sorted; /* chunk as read, then grouped by region */
	uint32_t *region;
	size_t *bounds, *count, *pos;
	size_t nr_regions;
	struct run *runs;
	size_t nr_runs, cap_runs;
	uint32_t *head, *tail; /* per region: first and last run + 1 */
};

size_t sp_spill__chunk(void)
{
	const char *env = getenv("SCOPE_PROFILER_FINALIZE_CHUNK");
	long v = env ? atol(env) : 0;
	if (v <= 0)
		return SP_SPILL_CHUNK;
	return v < 16 ? 16 : v > (1l << 26) ? (size_t)1 << 26 : (size_t)v;
}

struct sp_spill *sp_spill__new(const char *near_path, size_t nr_regions, size_t chunk)
{
	struct sp_spill *sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->fd = -1;
	sp->chunk = chunk;
	sp->nr_regions = nr_regions;
	size_t len = strlen(near_path) + 32;
	sp->scratch_path = malloc(len);
	sp->in = malloc(chunk * sizeof(*sp->in));
	sp->sorted = malloc(chunk * sizeof(*sp->sorted));
	sp->region = malloc(chunk * sizeof(*sp->region));
	sp->bounds = malloc((chunk + 2) * sizeof(*sp->bounds));
	sp->count = calloc(nr_regions + 1, sizeof(*sp->count));
	sp->pos = calloc(nr_regions + 1, sizeof(*sp->pos));
	sp->head = calloc(nr_regions + 1, sizeof(*sp->head));
	sp->tail = calloc(nr_regions + 1, sizeof(*sp->tail));
	if (!sp->scratch_path || !sp->in || !sp->sorted || !sp->region || !sp->bounds ||
	    !sp->count || !sp->pos || !sp->head || !sp->tail) {
		sp_spill__free(sp);
		return NULL;
	}
	snprintf(sp->scratch_path, len, "%s.sort.%ld", near_path, (long)getpid());
	return sp;
}

static int add_run(struct sp_spill *sp, uint32_t r, const struct sp_call_out *seg,
		   const struct sp_call_out *mem, uint64_t off, size_t n)
{
	if (sp->nr_runs == sp->cap_runs) {
		size_t cap = sp->cap_runs ? sp->cap_runs * 2 : 256;
		struct run *v = realloc(sp->runs, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sp->runs = v;
		sp->cap_runs = cap;
	}
	sp->runs[sp->nr_runs] = (struct run){mem, off, n, 0, seg[0], seg[n - 1]};
	uint32_t id = (uint32_t)++sp->nr_runs;
	if (sp->tail[r])
		sp->runs[sp->tail[r] - 1].next = id;
	else
		sp->head[r] = id;
	sp->tail[r] = id;
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const unsigned char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Groups the chunk by region (stable), sorts each group, and records one
 * run per region: written to the scratch file unless @p keep. */
static int sort_chunk(struct sp_spill *sp, bool keep)
{
	memset(sp->count, 0, sp->nr_regions * sizeof(*sp->count));
	for (size_t i = 0; i < sp->n; i++)
		sp->count[sp->region[i]]++;
	size_t *pos = sp->pos;
	size_t at = 0;
	for (size_t r = 0; r < sp->nr_regions; r++) {
		pos[r] = at;
		at += sp->count[r];
	}
	for (size_t i = 0; i < sp->n; i++)
		sp->sorted[pos[sp->region[i]]++] = sp->in[i];
	if (!keep && sp->fd < 0) {
		sp->fd = open(sp->scratch_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (sp->fd < 0)
			return -errno;
		unlink(sp->scratch_path); /* gone with the process, whatever happens */
	}
	at = 0;
	for (size_t r = 0; r < sp->nr_regions; r++) {
		size_t n = sp->count[r];
		if (!n)
			continue;
		struct sp_call_out *seg = sp->sorted + at;
		sp_trace__sort_calls_in(seg, n, sp->in, sp->bounds);
		int rc = keep ? add_run(sp, (uint32_t)r, seg, seg, 0, n)
			      : add_run(sp, (uint32_t)r, seg, NULL, sp->nr_spilled + at, n);
		if (rc)
			return rc;
		at += n;
	}
	if (!keep) {
		int rc = write_all(sp->fd, sp->sorted, sp->n * sizeof(*sp->sorted));
		if (rc)
			return rc;
		sp->nr_spilled += sp->n;
	}
	sp->n = 0;
	return 0;
}

int sp_spill__add(struct sp_spill *sp, uint32_t region, const struct sp_call_out *c)
{
	if (sp->n == sp->chunk) {
		int rc = sort_chunk(sp, false);
		if (rc)
			return rc;
	}
	sp->in[sp->n] = *c;
	sp->region[sp->n++] = region;
	return 0;
}

int sp_spill__finish(struct sp_spill *sp)
{
	int rc = sort_chunk(sp, true);
	/* The gathering buffers are done with; the sorted chunk stays. */
	free(sp->in);
	free(sp->region);
	free(sp->bounds);
	sp->in = NULL;
	sp->region = NULL;
	sp->bounds = NULL;
	return rc;
}

/* A run being merged: a window of it in buf[i..n). */
struct cursor {
	const struct sp_call_out *buf;
	struct sp_call_out *own; /* buffer for a run in the scratch file */
	size_t i, n, cap;
	uint64_t off; /* next call to read from the scratch file */
	size_t left;  /* calls not yet read */
	uint32_t run; /* order among the region's runs: the tie-break */
};

static int cursor_fill(const struct sp_spill *sp, struct cursor *k)
{
	size_t n = k->left < k->cap ? k->left : k->cap;
	size_t bytes = n * sizeof(*k->own);
	off_t at = (off_t)(k->off * sizeof(*k->own));
	for (size_t got = 0; got < bytes;) {
		ssize_t r = pread(sp->fd, (char *)k->own + got, bytes - got, at + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	k->buf = k->own;
	k->i = 0;
	k->n = n;
	k->off += n;
	k->left -= n;
	return 0;
}

static inline bool cursor_less(const struct cursor *a, const struct cursor *b)
{
	const struct sp_call_out *x = &a->buf[a->i], *y = &b->buf[b->i];
	if (sp_call_out__before(x, y))
		return true;
	return !sp_call_out__before(y, x) && a->run < b->run;
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
	struct cursor *x = h[i];
	for (;;) {
		size_t l = 2 * i + 1;
		if (l >= n)
			break;
		if (l + 1 < n && cursor_less(h[l + 1], h[l]))
			l++;
		if (!cursor_less(h[l], x))
			break;
		h[i] = h[l];
		i = l;
	}
	h[i] = x;
}

/* Emits the calls in batches of up to OUT_BATCH through @p fn. */
#define OUT_BATCH 4096

static int merge_runs(const struct sp_spill *sp, struct cursor **h, size_t nh,
		      int (*fn)(void *ctx, const struct sp_call_out *calls, size_t n), void *ctx,
		      struct sp_call_out *out)
{
	size_t no = 0;
	for (size_t i = nh; i-- > 0;)
		sift_down(h, nh, i);
	while (nh) {
		struct cursor *k = h[0];
		out[no++] = k->buf[k->i++];
		if (no == OUT_BATCH) {
			int rc = fn(ctx, out, no);
			if (rc)
				return rc;
			no = 0;
		}
		if (k->i == k->n) {
			int rc = k->left ? cursor_fill(sp, k) : 0;
			if (rc)
				return rc;
			if (k->i == k->n) { /* run exhausted */
				h[0] = h[--nh];
				if (!nh)
					break;
			}
		}
		sift_down(h, nh, 0);
	}
	return no ? fn(ctx, out, no) : 0;
}

/* Runs that follow each other (each one's first call after the previous
 * one's last: a thread's calls of a region that does not recurse) need no
 * merge: they are copied in order, in large reads. */
static bool runs_in_order(const struct sp_spill *sp, uint32_t r)
{
	const struct run *prev = NULL;
	for (uint32_t id = sp->head[r]; id; id = sp->runs[id - 1].next) {
		const struct run *u = &sp->runs[id - 1];
		if (prev && sp_call_out__before(&u->first, &prev->last))
			return false; /* equal calls: the earlier run's go first either way */
		prev = u;
	}
	return true;
}

static int copy_runs(const struct sp_spill *sp, uint32_t r,
		     int (*fn)(void *ctx, const struct sp_call_out *calls, size_t n), void *ctx)
{
	size_t cap = SP_SPILL_MERGE_BYTES / sizeof(struct sp_call_out);
	struct cursor k = {.cap = cap, .own = malloc(cap * sizeof(struct sp_call_out))};
	int rc = k.own ? 0 : -ENOMEM;
	for (uint32_t id = sp->head[r]; rc == 0 && id; id = sp->runs[id - 1].next) {
		const struct run *u = &sp->runs[id - 1];
		if (u->mem) {
			rc = fn(ctx, u->mem, u->n);
			continue;
		}
		k.off = u->off;
		k.left = u->n;
		while (rc == 0 && k.left) {
			rc = cursor_fill(sp, &k);
			if (rc == 0)
				rc = fn(ctx, k.buf, k.n);
		}
	}
	free(k.own);
	return rc;
}

int sp_spill__region(struct sp_spill *sp, uint32_t r,
		     int (*fn)(void *ctx, const struct sp_call_out *calls, size_t n), void *ctx)
{
	size_t nr = 0;
	for (uint32_t id = sp->head[r]; id; id = sp->runs[id - 1].next)
		nr++;
	if (nr > 1 && runs_in_order(sp, r))
		return copy_runs(sp, r, fn, ctx);
	if (nr == 1 && sp->runs[sp->head[r] - 1].mem) {
		const struct run *u = &sp->runs[sp->head[r] - 1];
		return fn(ctx, u->mem, u->n);
	}
	if (nr == 0)
		return 0;
	struct cursor *ks = calloc(nr, sizeof(*ks));
	struct cursor **h = calloc(nr, sizeof(*h));
	struct sp_call_out *out = malloc(OUT_BATCH * sizeof(*out));
	size_t cap = SP_SPILL_MERGE_BYTES / sizeof(*out) / nr;
	cap = cap < 256 ? 256 : cap > 16384 ? 16384 : cap;
	int rc = ks && h && out ? 0 : -ENOMEM;
	size_t nh = 0, j = 0;
	for (uint32_t id = sp->head[r]; rc == 0 && id; id = sp->runs[id - 1].next, j++) {
		const struct run *u = &sp->runs[id - 1];
		struct cursor *k = &ks[j];
		k->run = (uint32_t)j;
		if (u->mem) {
			k->buf = u->mem;
			k->n = u->n;
		} else {
			k->cap = u->n < cap ? u->n : cap;
			k->own = malloc(k->cap * sizeof(*k->own));
			k->off = u->off;
			k->left = u->n;
			rc = k->own ? cursor_fill(sp, k) : -ENOMEM;
		}
		if (k->n)
			h[nh++] = k;
	}
	if (rc == 0)
		rc = merge_runs(sp, h, nh, fn, ctx, out);
	for (size_t i = 0; ks && i < nr; i++)
		free(ks[i].own);
	free(ks);
	free(h);
	free(out);
	return rc;
}

void sp_spill__free(struct sp_spill *sp)
{
	if (!sp)
		return;
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->scratch_path);
	free(sp->in);
	free(sp->sorted);
	free(sp->region);
	free(sp->bounds);
	free(sp->count);
	free(sp->pos);
	free(sp->runs);
	free(sp->head);
	free(sp->tail);
	free(sp);
}
