// SPDX-License-Identifier: BSD-3-Clause
/* The methods of struct symbolizer_call (tools/symbolizer.h) the programs'
 * adapters share; the choice of program is tools/symbolizer.c. */
#include "tools/symbolizer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

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

void symbolizer_call__release(struct symbolizer_call *k)
{
	xfree(k->argv);
	xfree(k->owned_[0]);
	xfree(k->owned_[1]);
	xfree(k->owned_[2]);
	memset(k, 0, sizeof(*k));
}
