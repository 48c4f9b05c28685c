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

static int parse_unfinished(const unsigned char *buf, size_t len, const char *path, bool swap,
			    struct spt_trace *t, struct err *e)
{
	unsigned char *img = NULL;
	size_t n = 0;
	struct spt_cut cut;
	int rc = spt_stream_recover(buf, len, path, swap, &img, &n, &cut, e);
	if (rc)
		return rc;
	rc = spt_parse(img, n, path, t, e);
	if (rc) {
		xfree(img);
		return rc;
	}
	t->image = img;
	t->image_len = n;
	t->cut = cut;
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
	if (t->version == SP_SPT_VERSION_STREAM)
		return parse_unfinished(buf, len, path, c.swap, t, e);
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
	if (len - c.off >= 16 && memcmp(buf + c.off, SP_EXT_MAGIC, 8) == 0) {
		if ((rc = spt_parse_ext(buf, len, c.off, path, c.swap, &t->ext, e)))
			goto fail;
		c.off = len;
	}
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
	for (int32_t i = 0; i < t->ext.nr_misuse; i++)
		zfree(&t->ext.misuse[i].names);
	zfree(&t->ext.misuse);
	t->ext.nr_misuse = 0;
	zfree(&t->ext.counters.events);
	t->ext.counters.nr_events = 0;
	zfree(&t->ext.call_counts.sections);
	t->ext.call_counts.nr_sections = 0;
	t->ext.call_counts.cap_sections = 0;
	zfree(&t->image);
	t->nr_regions = 0;
	t->nr_threads = 0;
}

unsigned char *spt_trace__take_image(struct spt_trace *t)
{
	unsigned char *img = t->image;
	t->image = NULL;
	return img;
}

static int parse_timing(struct trace_cursor *c, struct spt_ext *x)
{
	int32_t pad;
	int rc;
	if ((rc = trace_cursor__i64(c, "init time", &x->init_ns)) ||
	    (rc = trace_cursor__i64(c, "finalize time", &x->finalize_ns)) ||
	    (rc = trace_cursor__i64(c, "init wall-clock time", &x->init_real_ns)) ||
	    (rc = trace_cursor__i64(c, "process start time", &x->start_ns)) ||
	    (rc = trace_cursor__i32(c, "lane count", &x->nr_lanes)) ||
	    (rc = trace_cursor__i32(c, "padding", &pad)))
		return rc;
	if (x->nr_lanes < 0)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a lane count (>= 0), found %" PRId32, c->path,
			       c->off - 8, x->nr_lanes);
	x->has_timing = true;
	return trace_cursor__take(c, (size_t)x->nr_lanes * 24, "per-lane times", &x->lanes);
}

static int parse_misuse_kind(struct trace_cursor *c, struct spt_misuse *m)
{
	int32_t pad;
	int rc;
	if ((rc = trace_cursor__i32(c, "misuse kind", &m->kind)) ||
	    (rc = trace_cursor__i32(c, "padding", &pad)) ||
	    (rc = trace_cursor__i64(c, "misuse count", &m->count)) ||
	    (rc = trace_cursor__i32(c, "misuse region count", &m->nr_names)))
		return rc;
	if (m->nr_names < 0 || (size_t)m->nr_names > (c->len - c->off) / 12)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a region count that fits the section, "
			       "found %" PRId32, c->path, c->off - 4, m->nr_names);
	m->names = xcalloc((size_t)m->nr_names + 1, sizeof(*m->names));
	if (!m->names)
		return err_set(c->e, -ENOMEM, ERR_OOM, "%s: out of memory", c->path);
	for (int32_t i = 0; i < m->nr_names; i++) {
		struct spt_misuse_name *n = &m->names[i];
		if ((rc = trace_cursor__string(c, "misuse region name", &n->name, &n->name_len)) ||
		    (rc = trace_cursor__i64(c, "misuse region count", &n->count)))
			return rc;
	}
	return 0;
}

static int parse_misuse(struct trace_cursor *c, struct spt_ext *x)
{
	int32_t kinds;
	int rc = trace_cursor__i32(c, "misuse kind count", &kinds);
	if (rc)
		return rc;
	if (kinds < 0 || (size_t)kinds > (c->len - c->off) / 20)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a misuse kind count that fits the section, "
			       "found %" PRId32, c->path, c->off - 4, kinds);
	x->misuse = xcalloc((size_t)kinds + 1, sizeof(*x->misuse));
	if (!x->misuse)
		return err_set(c->e, -ENOMEM, ERR_OOM, "%s: out of memory", c->path);
	for (int32_t k = 0; k < kinds; k++) {
		x->nr_misuse = k + 1;
		if ((rc = parse_misuse_kind(c, &x->misuse[k])))
			return rc;
	}
	return 0;
}

static int parse_ctr_event(struct trace_cursor *c, struct spt_ctr_event *ev)
{
	int32_t status;
	int rc;
	if ((rc = trace_cursor__string(c, "event name", &ev->name, &ev->name_len)) ||
	    (rc = trace_cursor__i32(c, "event kind", &ev->kind)) ||
	    (rc = trace_cursor__i32(c, "event status", &status)) ||
	    (rc = trace_cursor__string(c, "event reason", &ev->reason, &ev->reason_len)))
		return rc;
	if (status != 0 && status != 1)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected an event status (0 counted, 1 unavailable), "
			       "found %" PRId32, c->path, c->off - 8 - ev->reason_len, status);
	ev->counted = status == 0;
	return 0;
}

static int parse_counters(struct trace_cursor *c, struct spt_counters *x)
{
	int32_t pad;
	int rc;
	if ((rc = trace_cursor__string(c, "counter backend", &x->backend, &x->backend_len)) ||
	    (rc = trace_cursor__i32(c, "event count", &x->nr_events)) ||
	    (rc = trace_cursor__i32(c, "padding", &pad)) ||
	    (rc = trace_cursor__i64(c, "threads without counters", &x->threads_without)) ||
	    (rc = trace_cursor__i64(c, "dropped counts", &x->dropped)))
		return rc;
	if (x->nr_events < 0 || (size_t)x->nr_events > (c->len - c->off) / 16)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected an event count that fits the section, "
			       "found %" PRId32, c->path, c->off - 20, x->nr_events);
	x->events = xcalloc((size_t)x->nr_events + 1, sizeof(*x->events));
	if (!x->events)
		return err_set(c->e, -ENOMEM, ERR_OOM, "%s: out of memory", c->path);
	for (int32_t i = 0; i < x->nr_events; i++) {
		if ((rc = parse_ctr_event(c, &x->events[i])))
			return rc;
		x->nr_counted += x->events[i].counted;
	}
	if ((rc = trace_cursor__i64(c, "counter row count", &x->nr_rows)))
		return rc;
	size_t row = SPT_CTR_ROW_LEN(x->nr_counted);
	if (x->nr_rows < 0 || (uint64_t)x->nr_rows > (c->len - c->off) / row)
		return err_set(c->e, -EINVAL, ERR_TRACE_TRUNCATED,
			       "%s: byte %zu: truncated: expected %" PRId64 " counter rows of %zu "
			       "bytes, found %zu bytes", c->path, c->off - 8, x->nr_rows, row,
			       c->len - c->off);
	x->rows_offset = c->off;
	x->present = true;
	return trace_cursor__take(c, (size_t)x->nr_rows * row, "counter rows", &x->rows);
}

/* A 'CCAL' section; one of a newer version is skipped (its version kept,
 * so readers can say so): the files of older writers stay readable, and
 * so do this reader's with a newer one. */
static int parse_call_counts(struct trace_cursor *c, struct spt_call_counts *x)
{
	int32_t version, nc;
	int64_t n;
	int rc;
	size_t at = c->off;
	if ((rc = trace_cursor__i32(c, "call counts version", &version)))
		return rc;
	if (version != SP_CCAL_VERSION) {
		if (version > SP_CCAL_VERSION) {
			x->newer_version = version;
			return 0;
		}
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a call counts version of 1 or more, found "
			       "%" PRId32, c->path, at, version);
	}
	if ((rc = trace_cursor__i32(c, "call counts events", &nc)) ||
	    (rc = trace_cursor__i64(c, "call counts calls", &n)))
		return rc;
	if (nc < 1 || nc > 8) /* the library counts at most 8 events */
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected 1 to 8 counted events per call, found "
			       "%" PRId32, c->path, at + 4, nc);
	size_t entry = SPT_CCAL_ENTRY_LEN(nc);
	if (n < 0 || (uint64_t)n > (c->len - c->off) / entry)
		return err_set(c->e, -EINVAL, ERR_TRACE_TRUNCATED,
			       "%s: byte %zu: truncated: expected %" PRId64 " call counts of %zu "
			       "bytes, found %zu bytes", c->path, at + 8, n, entry, c->len - c->off);
	if (xgrow((void **)&x->sections, &x->cap_sections, (size_t)x->nr_sections + 1,
		  sizeof(*x->sections)))
		return err_set(c->e, -ENOMEM, ERR_OOM, "%s: out of memory", c->path);
	struct spt_ccal_section *sec = &x->sections[x->nr_sections];
	sec->nr_counted = nc;
	sec->nr_calls = n;
	sec->offset = c->off;
	rc = trace_cursor__take(c, (size_t)n * entry, "call counts", &sec->entries);
	if (rc == 0)
		x->nr_sections++;
	return rc;
}

int spt_parse_ext(const unsigned char *buf, size_t len, size_t off, const char *path, bool swap,
		  struct spt_ext *x, struct err *e)
{
	struct trace_cursor c = {.buf = buf, .len = len, .off = off + 8, .swap = swap,
				 .path = path, .e = e};
	int64_t total;
	int rc = trace_cursor__i64(&c, "extension length", &total);
	if (rc)
		return rc;
	if (total < 0 || (uint64_t)total != len - c.off)
		return err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected an extension length of the %zu bytes that "
			       "remain, found %" PRId64, path, off + 8, len - c.off, total);
	x->present = true;
	while (c.off < len) {
		int32_t tag, n;
		size_t at = c.off;
		if ((rc = trace_cursor__i32(&c, "section tag", &tag)) ||
		    (rc = trace_cursor__i32(&c, "section length", &n)))
			return rc;
		if (n < 0 || (size_t)n > len - c.off)
			return err_set(e, -EINVAL, ERR_TRACE_TRUNCATED,
				       "%s: byte %zu: truncated: section of %" PRId32 " bytes, %zu "
				       "remain", path, at, n, len - c.off);
		struct trace_cursor s = c;
		s.len = c.off + (size_t)n;
		if ((uint32_t)tag == SP_EXT_TIMING)
			rc = parse_timing(&s, x);
		else if ((uint32_t)tag == SP_EXT_MISUSE && !x->misuse)
			rc = parse_misuse(&s, x);
		else if ((uint32_t)tag == SP_EXT_COUNTERS && !x->counters.events)
			rc = parse_counters(&s, &x->counters);
		else if ((uint32_t)tag == SP_EXT_CALL_COUNTERS)
			rc = parse_call_counts(&s, &x->call_counts);
		if (rc)
			return rc;
		c.off += (size_t)n; /* unknown sections are skipped */
	}
	return 0;
}
