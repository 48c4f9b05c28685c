// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: /proc/kallsyms text into the sorted kernel symbol table.
#include <stddef.h>
#include <stdint.h>

#include "attrib/kallsyms.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms ks = {0};
	struct err e = {0};
	if (kallsyms__parse((const char *)data, size, &ks, &e) == 0) {
		for (size_t i = 1; i < ks.n; i++)
			if (ks.v[i - 1].addr >= ks.v[i].addr)
				__builtin_trap(); /* sorted, one name per address */
		uint64_t end = 0;
		for (size_t i = 0; ks.has_text && i < ks.n && i < 64; i++) {
			uint64_t off = ks.v[i].addr - ks.text;
			const struct ksym *s = kallsyms__find(&ks, off, &end);
			if (s && (s->addr > ks.text + off || end <= off))
				__builtin_trap(); /* the covering symbol starts at or before, ends after */
		}
	} else if (ks.n || ks.v) {
		__builtin_trap(); /* an error leaves nothing behind */
	}
	kallsyms__release(&ks);
	return 0;
}
