// SPDX-License-Identifier: BSD-3-Clause
/* The chains the symbolizers' parsers fill (tools/symbolizer_parse.h). */
#include "tools/symbolizer_parse.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"

void attrib_chain__release(struct attrib_chain *c)
{
	for (size_t i = 0; i < c->nr_frames; i++) {
		xfree(c->frames[i].function);
		xfree(c->frames[i].file);
	}
	xfree(c->frames);
	xfree(c->error);
	memset(c, 0, sizeof(*c));
}

void attrib_chains__release(struct attrib_chains *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		attrib_chain__release(&cs->v[i]);
	xfree(cs->v);
	memset(cs, 0, sizeof(*cs));
}

const struct attrib_frame *attrib_chain__physical(const struct attrib_chain *c)
{
	return c->nr_frames ? &c->frames[c->nr_frames - 1] : NULL;
}

struct attrib_chain *attrib_chains__push(struct attrib_chains *cs)
{
	if (xgrow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof(*cs->v)))
		return NULL;
	struct attrib_chain *c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	return c;
}

int attrib_chain__push_frame(struct attrib_chain *c, const struct attrib_frame *f)
{
	struct attrib_frame *v = xrealloc(c->frames, (c->nr_frames + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->frames = v;
	v[c->nr_frames++] = *f;
	return 0;
}
