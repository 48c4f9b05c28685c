// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/spt_reader.h"

#include <errno.h>
#include <inttypes.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/trace_cursor.h"

int trace_detect_version(const unsigned char *p, bool *swap)
{
	/* A version is a small positive number in the writer's order; read the
	 * other way round it is >= 2^24, so one of the two readings is plausible. */
	int32_t native = spt_load_i32(p, false), foreign = spt_load_i32(p, true);
	if (native > 0 && native < 0x10000) {
		*swap = false;
		return native;
	}
	if (foreign > 0 && foreign < 0x10000) {
		*swap = true;
		return foreign;
	}
	return -1;
}

static int parse_region(struct trace_cursor *c, int version, struct spt_region *r)
{
	int rc = trace_cursor__string(c, "region name length", &r->name, &r->name_len);
	if (rc)
		return rc;
	r->file = NULL;
	r->file_len = 0;
	r->line = -1;
	if (version >= 2) {
		if ((rc = trace_cursor__string(c, "source file length", &r->file, &r->file_len)) ||
		    (rc = trace_cursor__i32(c, "source line", &r->line)))
			return rc;
		if (r->file_len == 0)
			r->file = NULL;
	}
	size_t at = c->off;
	if ((rc = trace_cursor__i64(c, "call count", &r->nr_calls)))
		return rc;
	size_t per_call = version >= 3 ? 20 : 16;
	if (r->nr_calls < 0 || (uint64_t)r->nr_calls > (c->len - c->off) / per_call) {
		if (r->nr_calls < 0)
			return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: byte %zu: expected a call count (>= 0), found %" PRId64,
				       c->path, at, r->nr_calls);
		return err_set(c->e, -EINVAL, ERR_TRACE_TRUNCATED,
			       "%s: byte %zu: truncated: region '%.*s' claims %" PRId64
			       " calls (%zu bytes each), only %zu bytes remain",
			       c->path, c->off, (int)(r->name_len > 64 ? 64 : r->name_len), r->name,
			       r->nr_calls, per_call, c->len - c->off);
	}
	size_t n = (size_t)r->nr_calls;
	r->starts_offset = c->off;
	trace_cursor__take(c, n * 8, "start timestamps", &r->starts);
	trace_cursor__take(c, n * 8, "end timestamps", &r->ends);
	r->lanes = NULL;
	r->lanes_offset = 0;
	if (version >= 3) {
		r->lanes_offset = c->off;
		trace_cursor__take(c, n * 4, "lanes", &r->lanes);
	}
	return 0;
}

static int parse_threads(struct trace_cursor *c, struct spt_trace *t)
{
	size_t at = c->off;
	int rc = trace_cursor__i32(c, "thread count", &t->nr_threads);
	if (rc)
		return rc;
	/* Each thread needs at least 12 bytes, which bounds the allocation. */
	if (t->nr_threads < 0 || (size_t)t->nr_threads > (c->len - c->off) / 12) {
		if (t->nr_threads < 0)
			return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: byte %zu: expected a thread count (>= 0), found %" PRId32,
				       c->path, at, t->nr_threads);
		return trace_cursor__truncated(c, (size_t)t->nr_threads * 12, "thread table");
	}
	t->threads = xcalloc((size_t)t->nr_threads + 1, sizeof(*t->threads));
	if (!t->threads)
		return err_set(c->e, -ENOMEM, ERR_OOM, "%s: out of memory", c->path);
	for (int32_t i = 0; i < t->nr_threads; i++) {
		struct spt_thread *th = &t->threads[i];
		if ((rc = trace_cursor__i64(c, "thread id", &th->tid)) ||
		    (rc = trace_cursor__string(c, "thread name length", &th->name, &th->name_len)))
			return rc;
	}
	return 0;
}

int spt_parse(const unsigned char *buf, size_t len, const char *path, struct spt_trace *t,
	      struct err *e)
{
	struct trace_cursor c = {.buf = buf, .len = len, .path = path, .e = e};
	const unsigned char *p = NULL;
	int rc;
	memset(t, 0, sizeof(*t));
	if (len < 8 || memcmp(buf, SPT_MAGIC, 8) != 0)
		return err_set(e, -EINVAL, ERR_TRACE_BAD_MAGIC,
			       "%s: byte 0: not a scope_profiler trace: expected magic \"SCOPEPRF\", "
			       "found %s",
			       path, len < 8 ? "a file shorter than 8 bytes" : "other bytes");
	c.off = 8;
	if ((rc = trace_cursor__take(&c, 4, "format version", &p)))
		return rc;
	t->version = trace_detect_version(p, &c.swap);
	t->swap = c.swap;
	if (t->version < 0)
		return err_set(e, -EINVAL, ERR_TRACE_BAD_VERSION,
			       "%s: byte 8: expected a format version 1..%d in either byte order, "
			       "found %" PRId32,
			       path, SPT_MAX_VERSION, spt_load_i32(p, false));
	if (t->version > SPT_MAX_VERSION)
		return err_set(e, -EINVAL, ERR_TRACE_NEWER_VERSION,
			       "%s: byte 8: trace format version %d is newer than this reader "
			       "(expected 1..%d): update nunatak",
			       path, t->version, SPT_MAX_VERSION);
	size_t at;
	if ((rc = trace_cursor__i32(&c, "rank", &t->rank)))
		return rc;
	at = c.off;
	if ((rc = trace_cursor__i64(&c, "region count", &t->nr_regions)))
		return rc;
	/* A region needs at least 12 bytes (16 from v2), which bounds the allocation. */
	size_t min_region = t->version >= 2 ? 20 : 12;
	if (t->nr_regions < 0)
		return err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a region count (>= 0), found %" PRId64, path,
			       at, t->nr_regions);
	if ((uint64_t)t->nr_regions > (len - c.off) / min_region)
		return err_set(e, -EINVAL, ERR_TRACE_TRUNCATED,
			       "%s: byte %zu: truncated: expected %" PRId64 " regions (at least %zu "
			       "bytes each), found %zu bytes",
			       path, c.off, t->nr_regions, min_region, len - c.off);
	t->regions = xcalloc((size_t)t->nr_regions + 1, sizeof(*t->regions));
	if (!t->regions)
		return err_set(e, -ENOMEM, ERR_OOM, "%s: out of memory", path);
	for (int64_t i = 0; i < t->nr_regions; i++)
		if ((rc = parse_region(&c, t->version, &t->regions[i])))
			goto fail;
	if (t->version >= 3 && (rc = parse_threads(&c, t)))
		goto fail;
	if (c.off != len) {
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			     "%s: byte %zu: expected the end of the trace, found %zu more bytes", path,
			     c.off, len - c.off);
		goto fail;
	}
	return 0;
fail:
	spt_trace__release(t);
	return rc;
}

void spt_trace__release(struct spt_trace *t)
{
	if (!t)
		return;
	zfree(&t->regions);
	zfree(&t->threads);
	t->nr_regions = 0;
	t->nr_threads = 0;
}
