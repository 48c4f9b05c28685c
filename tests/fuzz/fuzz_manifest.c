// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the manifest reader (JSON parse + every field check) must
// never crash on any input; when it accepts a document, writing it back to
// JSON and re-reading must succeed too (the reader never admits what the
// writer cannot express).
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/err.h"
#include "store/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest m, again;
	struct err e = {0};
	manifest__init(&m);
	manifest__init(&again);
	if (manifest__parse(&m, (const char *)data, size, "fuzz", &e) == 0) {
		json_t *doc = manifest__to_json(&m);
		if (doc && manifest__from_json(&again, doc, "fuzz-again", &e) != 0)
			abort();
		json_decref(doc);
	}
	manifest__release(&m);
	manifest__release(&again);
	return 0;
}
