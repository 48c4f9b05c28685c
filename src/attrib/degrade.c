// SPDX-License-Identifier: BSD-3-Clause
// The degradation helpers every attribution step uses, apart from the
// driver (attrib.c) so its siblings do not depend on it.
#include "attrib/attrib_ctx.h"

#include <stdarg.h>
#include <stdio.h>

#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/text.h"
#include "exec/exec.h"
#include "model/model.h"

void attrib_degrade(struct ctx *c, const char *name, const char *remedy, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = text_vformat(fmt, ap); /* paths of any length, never cut */
	va_end(ap);
	degradations__add(c->d, name, msg ? msg : "out of memory writing this degradation", remedy);
	xfree(msg);
}

/* Last line of a tool's stderr, for a degradation message. */
const char *attrib_stderr_tail(const struct exec_result *r, char *buf, size_t n)
{
	if (!r->err || !r->err_len)
		return "no message";
	size_t end = r->err_len;
	while (end && (r->err[end - 1] == '\n' || r->err[end - 1] == '\r'))
		end--;
	size_t start = end;
	while (start && r->err[start - 1] != '\n')
		start--;
	snprintf(buf, n, "%.*s", (int)(end - start), r->err + start);
	return buf;
}

void attrib_mod_unreadable(struct ctx *c, struct mod *m, const char *why)
{
	m->failed = true;
	attrib_degrade(c, DEG_MODULE_UNREADABLE,
		DEG_MODULE_UNREADABLE_REMEDY,
		"%s cannot be read (%s): its Hotspots stay unresolved, shown as module+0x…",
		m->path, why);
}
