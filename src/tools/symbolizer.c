// SPDX-License-Identifier: BSD-3-Clause
#include "tools/symbolizer.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"
#include "tools/addr2line.h"
#include "tools/llvm_symbolizer.h"
#include "tools/locate.h"
#include "tools/symbolizer_parse.h"

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

int symbolizer__parse(const struct attrib_tools *t, const char *text, size_t len,
		      struct attrib_chains *out, struct err *e)
{
	return t->tool == ATTRIB_TOOL_LLVM ? symbolizer_json__parse(text, len, out, e)
					   : addr2line__parse(text, len, out, e);
}
