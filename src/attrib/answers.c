// SPDX-License-Identifier: BSD-3-Clause
// The symbolizer's answers per module, looked up by offset: what the driver
// (attrib.c) and the tool calls (tool_calls.c) share, apart from both so
// neither depends on the other's helpers.
#include "attrib/attrib_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "tools/symbolizer_parse.h"

/* Only files can be symbolized: kernel, [vdso], [unknown], //anon and
 * /proc/… maps stay unresolved. */
bool attrib_symbolizable(const char *module)
{
	return module && module[0] == '/' && strncmp(module, "/proc/", 6) != 0 &&
	       strncmp(module, "//anon", 6) != 0;
}

int attrib_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

const struct attrib_chain *attrib_chain_for(struct ctx *c, const char *module, uint64_t off,
					    struct mod **mod_out)
{
	*mod_out = NULL;
	if (!attrib_symbolizable(module))
		return NULL;
	for (size_t i = 0; i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		if (strcmp(m->path, module) != 0)
			continue;
		*mod_out = m;
		if (m->failed || !m->chain)
			return NULL;
		uint64_t *hit = bsearch(&off, m->offs, m->nr_offs, sizeof(off), attrib_u64_cmp);
		return hit ? m->chain[hit - m->offs] : NULL;
	}
	return NULL;
}

bool attrib_chain_has_file(const struct attrib_chain *ch)
{
	for (size_t i = 0; ch && i < ch->nr_frames; i++)
		if (ch->frames[i].file)
			return true;
	return false;
}
