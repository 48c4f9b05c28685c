// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/sps_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/trace_cursor.h"
#include "ingest/spt_reader.h"

/* A count that must be >= 0 and leave at least `min_each` bytes per item. */
static int check_count(struct trace_cursor *c, size_t at, int64_t n, size_t min_each, const char *what)
{
	if (n < 0)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a %s (>= 0), found %" PRId64, c->path, at,
			       what, n);
	if ((uint64_t)n > (c->len - c->off) / min_each)
		return err_set(c->e, -EINVAL, ERR_TRACE_TRUNCATED,
			       "%s: byte %zu: truncated: %s %" PRId64 " needs %" PRIu64
			       " bytes, found %zu",
			       c->path, c->off, what, n, (uint64_t)n * min_each, c->len - c->off);
	return 0;
}

static int parse_tables(struct trace_cursor *c, struct sps_file *f)
{
	size_t at = c->off;
	int rc = trace_cursor__i32(c, "region count", &f->nr_regions);
	if (rc || (rc = check_count(c, at, f->nr_regions, 4, "region count")))
		return rc;
	f->regions = xcalloc((size_t)f->nr_regions + 1, sizeof(*f->regions));
	if (!f->regions)
		return err_oom(c->e);
	for (int32_t i = 0; i < f->nr_regions; i++)
		if ((rc = trace_cursor__string(c, "region name length", &f->regions[i].s,
				      &f->regions[i].len)))
			return rc;
	at = c->off;
	if ((rc = trace_cursor__i32(c, "module count", &f->nr_modules)) ||
	    (rc = check_count(c, at, f->nr_modules, 12, "module count")))
		return rc;
	f->modules = xcalloc((size_t)f->nr_modules + 1, sizeof(*f->modules));
	if (!f->modules)
		return err_oom(c->e);
	for (int32_t i = 0; i < f->nr_modules; i++) {
		struct sps_module *m = &f->modules[i];
		int64_t load;
		if ((rc = trace_cursor__string(c, "module path length", &m->path, &m->path_len)) ||
		    (rc = trace_cursor__i64(c, "module load address", &load)))
			return rc;
		m->load_address = (uint64_t)load;
	}
	return 0;
}

static int check_samples(struct trace_cursor *c, struct sps_file *f)
{
	for (int64_t i = 0; i < f->nr_samples; i++) {
		struct sps_sample s = sps_file__sample(f, i);
		size_t at = f->samples_offset + (size_t)i * f->sample_size;
		if (s.region < -1 || s.region >= f->nr_regions)
			return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: byte %zu: sample %" PRId64 ": expected a region index "
				       "-1..%" PRId32 ", found %" PRId32,
				       c->path, at, i, f->nr_regions - 1, s.region);
		if (s.module < -1 || s.module >= f->nr_modules)
			return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: byte %zu: sample %" PRId64 ": expected a module index "
				       "-1..%" PRId32 ", found %" PRId32,
				       c->path, at + 4, i, f->nr_modules - 1, s.module);
		if (s.weight < 1)
			return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
				       "%s: byte %zu: sample %" PRId64 ": expected a weight >= 1, "
				       "found %" PRId32,
				       c->path, at + 16, i, s.weight);
	}
	return 0;
}

int sps_parse(const unsigned char *buf, size_t len, const char *path, struct sps_file *f,
	      struct err *e)
{
	struct trace_cursor c = {.buf = buf, .len = len, .path = path, .e = e};
	int rc;
	memset(f, 0, sizeof(*f));
	if (len < 8 || memcmp(buf, SPS_MAGIC, 8) != 0)
		return err_set(e, -EINVAL, ERR_TRACE_BAD_MAGIC,
			       "%s: byte 0: not a scope_profiler sample file: expected magic "
			       "\"SCOPESMP\", found %s",
			       path, len < 8 ? "a file shorter than 8 bytes" : "other bytes");
	c.off = 8;
	if (c.len - c.off < 4)
		return trace_cursor__truncated(&c, 4, "format version");
	f->version = trace_detect_version(buf + 8, &c.swap);
	f->swap = c.swap;
	if (f->version < 0)
		return err_set(e, -EINVAL, ERR_TRACE_BAD_VERSION,
			       "%s: byte 8: expected sample format version 1..%d in either byte "
			       "order, found %" PRId32,
			       path, SPS_MAX_VERSION, spt_load_i32(buf + 8, false));
	if (f->version > SPS_MAX_VERSION)
		return err_set(e, -EINVAL, ERR_TRACE_NEWER_VERSION,
			       "%s: byte 8: sample format version %d is newer than this reader "
			       "(expected 1..%d): update nunatak",
			       path, f->version, SPS_MAX_VERSION);
	c.off = 12;
	if ((rc = trace_cursor__i32(&c, "rank", &f->rank)) || (rc = trace_cursor__i32(&c, "sampling rate", &f->hz)) ||
	    (rc = trace_cursor__i64(&c, "tick count", &f->ticks)) || (rc = parse_tables(&c, f)))
		goto fail;
	size_t at = c.off;
	f->sample_size = f->version >= 2 ? 20 : 16;
	if ((rc = trace_cursor__i64(&c, "sample count", &f->nr_samples)) ||
	    (rc = check_count(&c, at, f->nr_samples, f->sample_size, "sample count")))
		goto fail;
	f->samples = buf + c.off;
	f->samples_offset = c.off;
	c.off += (size_t)f->nr_samples * f->sample_size;
	if (c.off != len) {
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			     "%s: byte %zu: expected the end of the file, found %zu more bytes", path,
			     c.off, len - c.off);
		goto fail;
	}
	if ((rc = check_samples(&c, f)))
		goto fail;
	return 0;
fail:
	sps_file__release(f);
	return rc;
}

struct sps_sample sps_file__sample(const struct sps_file *f, int64_t i)
{
	const unsigned char *p = f->samples + (size_t)i * f->sample_size;
	struct sps_sample s = {spt_load_i32(p, f->swap), spt_load_i32(p + 4, f->swap),
			       (uint64_t)spt_load_i64(p + 8, f->swap),
			       f->sample_size >= 20 ? spt_load_i32(p + 16, f->swap) : 1};
	return s;
}

void sps_file__release(struct sps_file *f)
{
	if (!f)
		return;
	zfree(&f->regions);
	zfree(&f->modules);
}
