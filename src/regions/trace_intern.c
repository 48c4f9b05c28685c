// SPDX-License-Identifier: BSD-3-Clause
/* The region names of a trace set: every reader (.spt here, .h5 in its
 * bounded child, regions/h5_job.c) interns names into one table, cleaned to
 * valid UTF-8. Apart from the set's opening and loading, which call those
 * readers. */
#include "regions/trace_set.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"

static int64_t intern_clean(struct trace_set *ts, const char *name, size_t len, const char *file,
			    size_t file_len, int32_t line);

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t avail)
{
	size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3
		 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (n == 0 || n > avail || (n == 2 && p[0] < 0xC2))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

/* Names reach JSON, HTML, HDF5 and terminals: NUL bytes, invalid UTF-8 and
 * control characters (an escape sequence would drive the user's terminal)
 * become '?'. */
char *trace_set__clean_name(const char *s, size_t len)
{
	char *o = xmalloc(len + 1);
	if (!o)
		return NULL;
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c >= 0x20 && c != 0x7f ? utf8_len((const unsigned char *)s + i, len - i) : 0;
		if (n == 0) {
			o[i++] = '?';
			continue;
		}
		memcpy(o + i, s + i, n);
		i += n;
	}
	o[len] = '\0';
	return o;
}

int64_t trace_set__intern(struct trace_set *ts, const char *raw, size_t len, const char *file,
			  size_t file_len, int32_t line)
{
	char *name = trace_set__clean_name(raw, len);
	if (!name)
		return -ENOMEM;
	int64_t id = intern_clean(ts, name, len, file, file_len, line);
	xfree(name);
	return id;
}

static int64_t intern_clean(struct trace_set *ts, const char *name, size_t len, const char *file,
			    size_t file_len, int32_t line)
{
	uint64_t h = hash_bytes(name, len);
	for (size_t j = h & ts->index.mask; ts->index.slot && ts->index.slot[j];
	     j = (j + 1) & ts->index.mask) {
		struct region_info *r = &ts->regions[ts->index.slot[j] - 1];
		if (r->hash == h && strlen(r->name) == len && memcmp(r->name, name, len) == 0) {
			if (!r->file && file && file_len) {
				r->file = trace_set__clean_name(file, file_len);
				r->line = line;
			}
			return ts->index.slot[j] - 1;
		}
	}
	if (xgrow((void **)&ts->regions, &ts->cap_regions, ts->nr_regions + 1,
		  sizeof(*ts->regions)))
		return -ENOMEM;
	struct region_info *r = &ts->regions[ts->nr_regions];
	r->name = xstrndup(name, len);
	r->file = file && file_len ? trace_set__clean_name(file, file_len) : NULL;
	r->line = file && file_len ? line : -1;
	r->hash = h;
	if (!r->name)
		return -ENOMEM;
	if (oatab__insert(&ts->index, h, ts->nr_regions + 1, &ts->regions[0].hash,
			  sizeof(*ts->regions))) {
		xfree(r->name);
		xfree(r->file);
		return -ENOMEM;
	}
	return ts->nr_regions++;
}
