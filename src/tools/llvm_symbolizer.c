// SPDX-License-Identifier: BSD-3-Clause
#include "tools/llvm_symbolizer.h"

#include <errno.h>

#include "common/alloc.h"
#include "tools/symbolizer.h"

int llvm_symbolizer__call(struct symbolizer_call *k, const char *path, const char *module,
			  const uint64_t *addrs, size_t n, bool argv_ok)
{
	enum { FIXED = 3 };
	k->argv = xcalloc(FIXED + n + 1, sizeof(*k->argv));
	if (!k->argv || !(k->owned_[0] = xasprintf("--obj=%s", module)))
		return -ENOMEM;
	k->argv[0] = path;
	k->argv[1] = "--output-style=JSON";
	k->argv[2] = k->owned_[0];
	return symbolizer_call__addresses(k, FIXED, addrs, n, argv_ok);
}
