// SPDX-License-Identifier: BSD-3-Clause
#include "tools/symbolizer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "tools/addr2line.h"
#include "tools/llvm_symbolizer.h"
#include "tools/locate.h"
#include "tools/symbolizer_parse.h"

int symbolizer_call__addresses(struct symbolizer_call *k, size_t at, const uint64_t *addrs,
			       size_t n, bool argv_ok)
{
	bool on_argv = argv_ok && n <= SYMBOLIZER_ADDRS_ON_ARGV;
	char *hex = xmalloc(n * 20 + 1);
	if (!(k->owned_[1] = hex))
		return -ENOMEM;
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(hex + len, 20, "0x%" PRIx64, addrs[i]);
		if (on_argv)
			k->argv[at + i] = hex + len;
		len += (size_t)w + 1;
		if (!on_argv)
			hex[len - 1] = '\n';
	}
	hex[len] = '\0';
	k->stdin_data = on_argv ? NULL : hex;
	k->stdin_len = on_argv ? 0 : len;
	return 0;
}

int symbolizer_call__init(struct symbolizer_call *k, const struct attrib_tools *t,
			  const char *module, const uint64_t *addrs, size_t n, bool argv_ok)
{
	memset(k, 0, sizeof(*k));
	int rc = t->tool == ATTRIB_TOOL_LLVM
			 ? llvm_symbolizer__call(k, t->path, module, addrs, n, argv_ok)
		 : t->tool == ATTRIB_TOOL_ADDR2LINE
			 ? addr2line__call(k, t->path, module, addrs, n, argv_ok)
			 : -EINVAL;
	if (rc < 0)
		symbolizer_call__release(k);
	else
		k->per_line = t->tool == ATTRIB_TOOL_LLVM && k->stdin_data;
	return rc;
}

void symbolizer_call__release(struct symbolizer_call *k)
{
	xfree(k->argv);
	xfree(k->owned_[0]);
	xfree(k->owned_[1]);
	memset(k, 0, sizeof(*k));
}

int symbolizer__parse(const struct attrib_tools *t, const char *text, size_t len,
		      struct attrib_chains *out, struct err *e)
{
	return t->tool == ATTRIB_TOOL_LLVM ? symbolizer_json__parse(text, len, out, e)
					   : addr2line__parse(text, len, out, e);
}

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
