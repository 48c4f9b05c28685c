// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/trace_cursor.h"

#include <errno.h>
#include <inttypes.h>

#include "common/err.h"
#include "common/err_codes.h"

int trace_cursor__truncated(struct trace_cursor *c, size_t need, const char *what)
{
	return err_set(c->e, -EINVAL, ERR_TRACE_TRUNCATED,
		       "%s: byte %zu: truncated: expected %s (%zu bytes), found %zu bytes", c->path,
		       c->off, what, need, c->len - c->off);
}

int trace_cursor__take(struct trace_cursor *c, size_t n, const char *what,
		       const unsigned char **p)
{
	if (c->len - c->off < n)
		return trace_cursor__truncated(c, n, what);
	*p = c->buf + c->off;
	c->off += n;
	return 0;
}

int trace_cursor__i32(struct trace_cursor *c, const char *what, int32_t *v)
{
	const unsigned char *p = NULL;
	int rc = trace_cursor__take(c, 4, what, &p);
	if (rc == 0)
		*v = spt_load_i32(p, c->swap);
	return rc;
}

int trace_cursor__i64(struct trace_cursor *c, const char *what, int64_t *v)
{
	const unsigned char *p = NULL;
	int rc = trace_cursor__take(c, 8, what, &p);
	if (rc == 0)
		*v = spt_load_i64(p, c->swap);
	return rc;
}

int trace_cursor__string(struct trace_cursor *c, const char *what, const char **s,
			 uint32_t *n)
{
	int32_t len;
	size_t at = c->off;
	int rc = trace_cursor__i32(c, what, &len);
	if (rc)
		return rc;
	if (len < 0)
		return err_set(c->e, -EINVAL, ERR_TRACE_CORRUPT,
			       "%s: byte %zu: expected a %s (>= 0), found %" PRId32, c->path, at,
			       what, len);
	const unsigned char *p = NULL;
	if ((rc = trace_cursor__take(c, (size_t)len, what, &p)))
		return rc;
	*s = (const char *)p;
	*n = (uint32_t)len;
	return 0;
}
