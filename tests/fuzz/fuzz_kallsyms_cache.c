// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: nunatak's cache form of the kernel symbol table (kallsyms.c,
// kallsyms__decode), read back from a sealed file of ours, but never trusted
// to be well formed; kallsyms__decode_for (a few offsets only) fails where
// it fails and answers as the decoded table does.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/kallsyms.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* kallsyms__decode_for() over offsets around the first symbols (or a few
 * fixed ones): it fails where decode failed (whole NULL), else answers each
 * as the whole table does. */
static void same_for(const uint8_t *data, size_t size, const struct kallsyms *whole)
{
	uint64_t offs[3 * 16 + 3] = {0, 1, UINT64_MAX};
	size_t n = 3;
	for (size_t i = 0; whole && i < whole->n && i < 16; i++) {
		uint64_t o = whole->v[i].addr - whole->text;
		offs[n++] = o, offs[n++] = o + 1, offs[n++] = o - 1;
	}
	struct kallsyms part = {0};
	struct err e = {0};
	size_t total = 0;
	int rc = kallsyms__decode_for((const char *)data, size, offs, n, &part, &total, &e);
	if ((rc == 0) != (whole != NULL))
		__builtin_trap();
	if (rc != 0) {
		if (part.n || part.v || part.names || total)
			__builtin_trap();
		return;
	}
	if (total != whole->n || part.zeros != whole->zeros || part.text != whole->text ||
	    part.n > 2 * n + 1)
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		uint64_t e1 = 0, e2 = 0;
		const struct ksym *x = kallsyms__find(whole, offs[i], &e1);
		const struct ksym *y = kallsyms__find(&part, offs[i], &e2);
		if ((x == NULL) != (y == NULL) || (x && (x->addr != y->addr || e1 != e2 ||
							 strcmp(x->name, y->name))))
			__builtin_trap();
	}
	kallsyms__release(&part);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms ks = {0}, again = {0};
	struct err e = {0};
	if (kallsyms__decode((const char *)data, size, &ks, &e) != 0) {
		if (ks.n || ks.v || ks.names)
			__builtin_trap(); /* an error leaves nothing behind */
		same_for(data, size, NULL);
		return 0;
	}
	same_for(data, size, &ks);
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
