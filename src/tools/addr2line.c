// SPDX-License-Identifier: BSD-3-Clause
#include "tools/addr2line.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"
#include "tools/symbolizer.h"

int addr2line__call(struct symbolizer_call *k, const char *path, const char *module,
		    const uint64_t *addrs, size_t n, bool argv_ok)
{
	const char *fixed[] = {path, "-e", module, "-a", "-f", "-C", "-i"};
	size_t nf = sizeof(fixed) / sizeof(fixed[0]);
	k->argv = xcalloc(nf + n + 1, sizeof(*k->argv));
	if (!k->argv)
		return -ENOMEM;
	memcpy(k->argv, fixed, sizeof(fixed));
	return symbolizer_call__addresses(k, nf, addrs, n, argv_ok);
}
