/* SPDX-License-Identifier: BSD-3-Clause */
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "amem.h"
#include "clock.h"
#include "log.h"
#include "counters.h"
#include "registry.h"
#include "site_read.h"
#include "scope_profiler.h"
#include "sp_format.h"
#include "trace.h"
#include "writer.h"
#include "tmpname.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static bool failed;     /* neither the file nor a memory file could be made */
static bool in_memory;  /* memfd fallback */
static char *path;      /* where the file is (or will be) */
static int rank;
static size_t anchors_written;
/* Handles already described by a SITE frame, with their calls flushed so
 * far (finalize's counts, without a pass over the file). */
struct seen_slot {
	uint64_t key, calls;
};
static struct seen_slot *seen;
static size_t seen_cap, seen_nr, seen_bytes;
static bool counts_lost; /* the table could not grow: counts incomplete */
/* Frames assembled before one writev. */
static unsigned char *stage;
static size_t stage_n, stage_cap;
/* A flush may run in a signal handler (a handler's sp_end, when its
 * thread's flush is due): everything it touches is above (amem.h: mapped,
 * never malloc'd) or this scratch area (the temporary name and the mkdir
 * copy of the path; a region's name and file read from the host). */
static char *scratch;
static size_t scratch_cap;
#define SITE_STR_MAX 65536

void sp_stream__set_path(const char *p, int r)
{
	char *copy = p ? strdup(p) : NULL;
	if (!copy)
		return;
	sp_lock(&lock);
	rank = r;
	if (path && strcmp(path, copy) == 0) {
		free(copy);
		copy = NULL;
	} else if (fd >= 0 && !in_memory && path) {
		sp_out__make_dirs(copy);
		if (rename(path, copy) != 0) {
			sp_log(SP_LOG_WARN, "unfinished trace stays at %s (cannot move it to %s: "
			       "%s); sp_finalize writes the new prefix", path, copy,
			       strerror(errno));
			free(copy);
			copy = NULL;
		}
	}
	if (copy) {
		free(path);
		path = copy;
	}
	sp_unlock(&lock);
}

static bool stage_reserve(size_t n)
{
	if (stage_n + n <= stage_cap)
		return true;
	void *p = stage;
	bool ok = sp_amem__reserve(&p, &stage_cap, stage_n + n);
	stage = p;
	return ok;
}

static bool scratch_reserve(size_t n)
{
	void *p = scratch;
	bool ok = sp_amem__reserve(&p, &scratch_cap, n);
	scratch = p;
	return ok;
}

static void stage_put(const void *p, size_t n)
{
	memcpy(stage + stage_n, p, n);
	stage_n += n;
}

static void stage_u32(uint32_t v) { stage_put(&v, 4); }
static void stage_u64(uint64_t v) { stage_put(&v, 8); }
static void stage_str(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	stage_u32((uint32_t)n);
	stage_put(s ? s : "", n);
}

static int write_all(const struct iovec *iov_in, int cnt)
{
	struct iovec iov[4];
	memcpy(iov, iov_in, (size_t)cnt * sizeof(*iov));
	struct iovec *v = iov;
	while (cnt > 0) {
		ssize_t w = writev(fd, v, cnt);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		size_t left = (size_t)w;
		while (cnt > 0 && left >= v->iov_len) {
			left -= v->iov_len;
			v++;
			cnt--;
		}
		if (cnt > 0) {
			v->iov_base = (char *)v->iov_base + left;
			v->iov_len -= left;
		}
	}
	return 0;
}

static int write_header(void)
{
	unsigned char h[SP_STREAM_HEADER_LEN];
	int32_t ver = SP_SPT_VERSION_STREAM, rk = rank, clk = sp_clock_tsc ? SP_CLOCK_TSC : SP_CLOCK_NS,
		zero = 0;
	int64_t pid = getpid(), mono = (int64_t)sp_clock_init_mono_ns,
		real = (int64_t)sp_clock_init_real_ns;
	memcpy(h, SP_SPT_MAGIC, 8);
	memcpy(h + 8, &ver, 4);
	memcpy(h + 12, &rk, 4);
	memcpy(h + 16, &clk, 4);
	memcpy(h + 20, &zero, 4);
	memcpy(h + 24, &pid, 8);
	memcpy(h + 32, &mono, 8);
	memcpy(h + 40, &real, 8);
	struct iovec iov = {h, sizeof(h)};
	return write_all(&iov, 1);
}

/* A fresh file under a private name, renamed onto the .spt path once its
 * header is written: another process of the same rank never interleaves
 * frames into ours, and a reader never sees a header-less file. */
static int open_file(void)
{
	size_t len = strlen(path) + SP_TMP_EXTRA;
	if (!scratch_reserve(len))
		return -ENOMEM;
	char *tmp = scratch;
	sp_out__make_dirs_in(path, tmp);
	fd = sp_tmp_create(path, tmp, len, O_APPEND);
	int rc = fd < 0 ? fd : write_header();
	if (fd < 0) {
		fd = -1;
		return rc;
	}
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		fd = -1;
		unlink(tmp);
	}
	return rc;
}

static int create_locked(void)
{
	if (fd >= 0)
		return 0;
	if (failed)
		return -EIO;
	int rc = path ? open_file() : -ENOMEM;
	if (rc == 0) {
		sp_log(SP_LOG_DEBUG, "streaming calls to %s", path);
		return 0;
	}
	fd = memfd_create("scope_profiler_trace", MFD_CLOEXEC);
	if (fd >= 0 && write_header() == 0) {
		in_memory = true;
		sp_log(SP_LOG_WARN, "cannot create the trace file %s (%s): calls are kept in "
		       "memory until sp_finalize, and a crash would lose them; check the "
		       "prefix's directory", path ? path : "(no path)", sp_log__errstr(-rc));
		return 0;
	}
	if (fd >= 0)
		close(fd);
	fd = -1;
	failed = true;
	sp_log(SP_LOG_ERROR, "cannot create the trace file %s (%s), nor a memory file: "
	       "calls are dropped and counted", path ? path : "(no path)", sp_log__errstr(-rc));
	return -EIO;
}

/* The slot of @p key (*fresh: just added), NULL if the table cannot grow. */
static struct seen_slot *seen_slot(uint64_t key, bool *fresh)
{
	if ((seen_nr + 1) * 2 > seen_cap) {
		size_t cap = seen_cap ? seen_cap * 2 : 256, bytes;
		struct seen_slot *s = sp_amem__zeroed(cap * sizeof(*s), &bytes);
		if (!s)
			return NULL;
		for (size_t i = 0; i < seen_cap; i++) {
			if (!seen[i].key)
				continue;
			size_t j = (seen[i].key >> 4) & (cap - 1);
			while (s[j].key)
				j = (j + 1) & (cap - 1);
			s[j] = seen[i];
		}
		sp_amem__free(seen, seen_bytes);
		seen = s;
		seen_cap = cap;
		seen_bytes = bytes;
	}
	size_t j = (key >> 4) & (seen_cap - 1);
	for (; seen[j].key; j = (j + 1) & (seen_cap - 1))
		if (seen[j].key == key) {
			*fresh = false;
			return &seen[j];
		}
	seen[j].key = key;
	seen_nr++;
	*fresh = true;
	return &seen[j];
}

static void frame_header(uint32_t tag, size_t len)
{
	stage_u32(tag);
	stage_u32((uint32_t)len);
}

/* Describes a handle the first time a flushed call uses it. The handle is
 * read without trusting it (a garbage pointer must not crash the host). */
static bool stage_site(const struct sp_site *site)
{
	struct sp_site copy;
	if (!scratch_reserve(2 * (SITE_STR_MAX + 1)))
		return false;
	char *name = scratch, *file = scratch + SITE_STR_MAX + 1;
	int32_t valid = sp_site__read_to(site, &copy, name, file, SITE_STR_MAX) ? 1 : 0;
	size_t len = 8 + 4 + 4 + 4 + strlen(name) + 4 + strlen(file);
	bool ok = stage_reserve(SP_FRAME_HEADER_LEN + len);
	if (ok) {
		frame_header(SP_FRAME_SITE, len);
		stage_u64((uint64_t)(uintptr_t)site);
		stage_u32((uint32_t)(valid ? copy.line : -1));
		stage_u32((uint32_t)valid);
		stage_str(name);
		stage_str(file);
	}
	return ok;
}

static bool stage_thread(const struct sp_thread *t)
{
	size_t len = 4 + 4 + 8 + 4 + strlen(t->name);
	if (!stage_reserve(SP_FRAME_HEADER_LEN + len))
		return false;
	frame_header(SP_FRAME_THREAD, len);
	stage_u32((uint32_t)t->order);
	stage_u32(0);
	stage_u64((uint64_t)t->tid);
	stage_str(t->name);
	return true;
}

static bool stage_anchors(void)
{
	uint64_t pairs[2 * 64];
	for (;;) {
		size_t n = sp_clock__anchors_since(anchors_written, pairs, 64);
		if (!n)
			return true;
		if (!stage_reserve(SP_FRAME_HEADER_LEN + n * 16))
			return false;
		frame_header(SP_FRAME_ANCHOR, n * 16);
		stage_put(pairs, n * 16);
		anchors_written += n;
	}
}

/* SITE frames for the handles of @p calls not yet described; records the
 * thread's earliest start and latest end. */
static bool stage_sites(struct sp_thread *t, const struct sp_call *calls, size_t n)
{
	const struct sp_site *last = NULL;
	struct seen_slot *slot = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct sp_call *c = &calls[i];
		if (!t->nr_calls && i == 0)
			t->first_stamp = c->start;
		if (c->start < t->first_stamp)
			t->first_stamp = c->start;
		if (c->end > t->last_stamp)
			t->last_stamp = c->end;
		if (c->site == last && slot) {
			slot->calls++;
			continue;
		}
		last = c->site;
		bool fresh = true;
		slot = seen_slot((uint64_t)(uintptr_t)c->site, &fresh);
		if (slot)
			slot->calls++;
		else
			counts_lost = true; /* describe it again next time: harmless */
		if (fresh && !stage_site(c->site))
			return false;
	}
	return true;
}

static void drop_locked(struct sp_thread *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sp_registry__misuse(t, SP_MISUSE_NO_MEMORY);
	atomic_store_explicit(&t->n, 0, memory_order_release);
}

static void flush_locked(struct sp_thread *t)
{
	size_t n = atomic_load_explicit(&t->n, memory_order_acquire);
	if (!n)
		return;
	if (n > SP_BUF_CALLS)
		n = SP_BUF_CALLS;
	if (t->drained || create_locked() < 0) {
		drop_locked(t, n);
		return;
	}
	/* An anchor after the frame's last stamp: a reader of an unfinished
	 * trace can convert every frame it recovers. */
	if (sp_clock_tsc)
		sp_clock__anchor();
	stage_n = 0;
	if ((!t->announced && !stage_thread(t)) || !stage_anchors() ||
	    !stage_sites(t, t->buf, n) || !stage_reserve(16)) {
		counts_lost = true;
		drop_locked(t, n);
		return;
	}
	t->announced = true;
	frame_header(SP_FRAME_CALLS, 8 + n * SP_STREAM_CALL_LEN);
	stage_u32((uint32_t)t->order);
	stage_u32(0);
	/* The calls' counts follow as their own frame (sp_format.h 'CVAL'). */
	int per_call = 0;
	const int64_t *vals = t->ctr ? sp_counters__values(t, &per_call) : NULL;
	size_t vbytes = vals ? n * (size_t)per_call * sizeof(int64_t) : 0;
	uint32_t vhdr[4] = {SP_FRAME_VALUES, (uint32_t)(8 + vbytes), (uint32_t)t->order,
			    (uint32_t)per_call};
	struct iovec iov[4] = {{stage, stage_n}, {t->buf, n * sizeof(struct sp_call)},
			       {vhdr, sizeof(vhdr)}, {(void *)vals, vbytes}};
	int rc = write_all(iov, vals ? 4 : 2);
	if (rc < 0) {
		sp_log(SP_LOG_ERROR, "cannot write the trace file %s: %s: later calls are "
		       "dropped and counted", path ? path : "(memory)", sp_log__errstr(-rc));
		close(fd);
		fd = -1;
		failed = true;
		counts_lost = true;
		drop_locked(t, n);
		return;
	}
	t->nr_calls += n;
	atomic_store_explicit(&t->n, 0, memory_order_release);
}

/* While this thread flushes (its own buffer or, in finalize, every one), a
 * signal handler's sp_end on it must not append to the buffer being
 * written and reset: its record sees busy and drops the call, counted
 * (inlib.h). Returns what to give back to busy_end. */
static uint32_t busy_begin(void)
{
	struct sp_thread *me = sp_tls;
	if (!me)
		return 0;
	uint32_t was = me->busy;
	me->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return was;
}

static void busy_end(uint32_t was)
{
	struct sp_thread *me = sp_tls;
	atomic_signal_fence(memory_order_seq_cst);
	if (me)
		me->busy = was;
}

void sp_stream__flush(struct sp_thread *t)
{
	uint32_t was = busy_begin();
	sp_lock(&lock);
	flush_locked(t);
	sp_unlock(&lock);
	busy_end(was);
}

void sp_stream__drain(struct sp_thread **threads, size_t nr)
{
	uint32_t was = busy_begin();
	sp_lock(&lock);
	for (size_t k = 0; k < nr; k++) {
		flush_locked(threads[k]);
		threads[k]->drained = true;
	}
	sp_unlock(&lock);
	busy_end(was);
}

/* The 'CVAL' frame at @p off if it holds the counts of the @p n calls of
 * lane @p order just read: their values in @p vbuf (*per_call each), the
 * frame's length in *skip; NULL otherwise (nothing consumed). */
static const int64_t *values_after(int in, off_t off, int32_t order, size_t n, int64_t *vbuf,
				   int *per_call, off_t *skip)
{
	uint32_t h[4];
	*skip = 0;
	if (pread(in, h, sizeof(h), off) != (ssize_t)sizeof(h) || h[0] != SP_FRAME_VALUES ||
	    (int32_t)h[2] != order || h[3] < 1 || h[3] > SP_CTR_MAX ||
	    h[1] != 8 + n * h[3] * sizeof(int64_t))
		return NULL;
	size_t bytes = h[1] - 8;
	if (pread(in, vbuf, bytes, off + (off_t)sizeof(h)) != (ssize_t)bytes)
		return NULL;
	*per_call = (int)h[3];
	*skip = (off_t)(8 + h[1]);
	return vbuf;
}

int sp_stream__each_call_values(int (*fn)(void *ctx, int order, const struct sp_call *calls,
					  size_t n, const int64_t *vals, int per_call),
				void *ctx)
{
	sp_lock(&lock);
	int in = fd;
	sp_unlock(&lock);
	if (in < 0)
		return 0;
	size_t cap = 1u << 20;
	unsigned char *buf = malloc(cap);
	int64_t *vbuf = malloc((size_t)SP_BUF_CALLS * SP_CTR_MAX * sizeof(int64_t));
	if (!buf || !vbuf) {
		free(buf);
		free(vbuf);
		return -ENOMEM;
	}
	off_t off = SP_STREAM_HEADER_LEN;
	int rc = 0;
	for (;;) {
		uint32_t hdr[2];
		ssize_t r = pread(in, hdr, sizeof(hdr), off);
		if (r == 0)
			break;
		if (r != (ssize_t)sizeof(hdr)) {
			rc = r < 0 ? -errno : -EIO;
			break;
		}
		off += (off_t)sizeof(hdr);
		if (hdr[0] != SP_FRAME_CALLS) {
			off += hdr[1];
			continue;
		}
		if (hdr[1] > cap || hdr[1] < 8) {
			rc = -EIO;
			break;
		}
		if (pread(in, buf, hdr[1], off) != (ssize_t)hdr[1]) {
			rc = -EIO;
			break;
		}
		off += hdr[1];
		int32_t order;
		memcpy(&order, buf, 4);
		size_t n = (hdr[1] - 8) / SP_STREAM_CALL_LEN;
		int per_call = 0;
		off_t skip = 0;
		const int64_t *vals = n <= SP_BUF_CALLS
					      ? values_after(in, off, order, n, vbuf, &per_call, &skip)
					      : NULL;
		off += skip;
		rc = fn(ctx, order, (const struct sp_call *)(buf + 8), n, vals, per_call);
		if (rc)
			break;
	}
	free(buf);
	free(vbuf);
	return rc;
}

struct calls_only {
	int (*fn)(void *ctx, int order, const struct sp_call *calls, size_t n);
	void *ctx;
};

static int calls_only(void *ctx, int order, const struct sp_call *calls, size_t n,
		      const int64_t *vals, int per_call)
{
	(void)vals;
	(void)per_call;
	struct calls_only *c = ctx;
	return c->fn(c->ctx, order, calls, n);
}

int sp_stream__each_call(int (*fn)(void *ctx, int order, const struct sp_call *calls,
				   size_t n),
			 void *ctx)
{
	struct calls_only c = {fn, ctx};
	return sp_stream__each_call_values(calls_only, &c);
}

bool sp_stream__each_site(void (*fn)(void *ctx, const struct sp_site *site, uint64_t calls),
			  void *ctx)
{
	sp_lock(&lock);
	bool exact = !counts_lost;
	for (size_t i = 0; exact && i < seen_cap; i++)
		if (seen[i].key)
			fn(ctx, (const struct sp_site *)(uintptr_t)seen[i].key, seen[i].calls);
	sp_unlock(&lock);
	return exact;
}

const char *sp_stream__path(void)
{
	return fd >= 0 && !in_memory ? path : NULL;
}

void sp_stream__close(bool remove, const char *keep_path)
{
	sp_lock(&lock);
	if (fd >= 0) {
		close(fd);
		if (remove && !in_memory && path && (!keep_path || strcmp(path, keep_path) != 0))
			unlink(path);
	}
	fd = -1;
	sp_amem__free(seen, seen_bytes);
	sp_amem__free(stage, stage_cap);
	sp_amem__free(scratch, scratch_cap);
	seen = NULL;
	stage = NULL;
	scratch = NULL;
	seen_cap = seen_nr = seen_bytes = stage_cap = stage_n = scratch_cap = 0;
	sp_unlock(&lock);
}

void sp_stream__after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&lock, &fresh, sizeof(fresh));
	if (fd >= 0)
		close(fd);
	fd = -1;
	failed = true; /* the child records nothing (api.c), and writes nothing */
}
