// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: nunatak's cache form of the kernel symbol table (kallsyms.c,
// kallsyms__decode), read back from a sealed file of ours, but never trusted
// to be well formed.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/kallsyms.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms ks = {0}, again = {0};
	struct err e = {0};
	if (kallsyms__decode((const char *)data, size, &ks, &e) != 0) {
		if (ks.n || ks.v || ks.names)
			__builtin_trap(); /* an error leaves nothing behind */
		return 0;
	}
	for (size_t i = 1; i < ks.n; i++)
		if (ks.v[i - 1].addr >= ks.v[i].addr)
			__builtin_trap(); /* ascending, one name per address */
	size_t len = 0;
	char *enc = kallsyms__encode(&ks, &len);
	if (!enc || kallsyms__decode(enc, len, &again, &e) != 0 || again.n != ks.n ||
	    again.text != ks.text || again.etext != ks.etext)
		__builtin_trap(); /* what decodes encodes back to the same table */
	for (size_t i = 0; i < ks.n; i++)
		if (again.v[i].addr != ks.v[i].addr || strcmp(again.v[i].name, ks.v[i].name))
			__builtin_trap();
	free(enc);
	kallsyms__release(&again);
	kallsyms__release(&ks);
	return 0;
}
