// SPDX-License-Identifier: BSD-3-Clause
/* The TOML parser and the config layer over it: no input may crash them, and
 * every failure must come with a located message. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/err.h"
#include "common/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = {0};
	json_t *doc = toml_parse((const char *)data, size, "fuzz.toml", &e);
	if (!doc) {
		/* A refusal always says where and why. */
		if (e.errnum == 0 || e.code[0] == '\0' || e.msg[0] == '\0')
			abort();
		return 0;
	}
	struct config c;
	if (config__init(&c) == 0) {
		struct err ce = {0};
		if (config__apply_json(&c, doc, "fuzz.toml", &ce) == 0) {
			json_t *eff = config__effective_json(&c);
			char *s = eff ? json_dumps(eff, 0) : NULL;
			free(s);
			json_decref(eff);
		}
	}
	config__release(&c);
	json_decref(doc);
	return 0;
}
