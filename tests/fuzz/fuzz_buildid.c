// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: `perf buildid-list` text into the module -> build-id list.
// Every accepted entry is lower-case hex with a path, and can be found again.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "ingest/buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buildid_list ids;
	buildid_list__init(&ids);
	struct err e = {0};
	if (buildid_list__parse(&ids, (const char *)data, size, &e) == 0) {
		for (size_t i = 0; i < ids.n; i++) {
			const char *h = ids.v[i].build_id;
			if (!ids.v[i].path || !h || !*h || strspn(h, "0123456789abcdef") != strlen(h))
				__builtin_trap();
		}
		for (size_t i = 0; i < ids.n && i < 64; i++)
			if (!buildid_list__find(&ids, ids.v[i].path))
				__builtin_trap(); /* what was added is found */
	}
	buildid_list__release(&ids);
	return 0;
}
