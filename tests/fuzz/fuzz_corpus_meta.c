// SPDX-License-Identifier: BSD-3-Clause
/* Fuzz target: what a replay reads from a recording's meta.json (the
 * recorded machine: platform, cpuinfo text, the full `machine` object with
 * its Ceilings) and from its invocations/NNN.json. The same machine object
 * is what the Machine cache file holds, so this also covers the cache. An
 * accepted machine must write back to JSON and read again. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/err.h"
#include "machine/snapshot.h"
#include "model/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct machine *m)
{
	json_t *j = machine__to_json(m);
	struct machine again;
	machine__init(&again);
	struct err e = {0};
	if (j && machine__from_json(&again, j, &e) != 0)
		abort(); /* the reader never admits what the writer cannot express */
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (!m->ceilings[i].name)
			abort();
	machine__release(&again);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *meta = json_loadb((const char *)data, size, 0, &je);
	if (!meta)
		return 0;
	struct machine m;
	machine__init(&m);
	struct err e = {0};
	if (machine__from_recorded_meta(&m, meta, &e) == 0)
		round_trip(&m);
	machine__release(&m);
	machine__init(&m);
	if (machine__from_json(&m, json_object_get(meta, "machine"), &e) == 0)
		round_trip(&m);
	machine__release(&m);
	/* an invocation record: {"argv": [...], "exit_code": N, "captured": bool} */
	const char *argv0 = json_string_value(json_array_get(json_object_get(meta, "argv"), 0));
	json_t *code = json_object_get(meta, "exit_code");
	if (argv0 && json_is_integer(code))
		(void)json_integer_value(code);
	json_decref(meta);
	return 0;
}
