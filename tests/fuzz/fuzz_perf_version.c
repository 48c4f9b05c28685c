// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the perf adapter's parsers of tool text, `perf --version`
// output and the cpuinfo text that picks a counter group.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tools/perf.h"
#include "common/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size); /* both parsers take C strings */
	if (!s)
		return 0;
	struct perf_version v;
	if (perf_parse_version(s, &v) == 0 && strlen(v.text) >= sizeof(v.text))
		__builtin_trap();
	const struct counter_group *g = perf_counter_group(s);
	if (g && (g->nr_events <= 0 || !g->events[0].event))
		__builtin_trap();
	xfree(s);
	return 0;
}
