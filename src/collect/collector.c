// SPDX-License-Identifier: BSD-3-Clause
#include "collect/collector.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

int collector_request__parse(const char *s, enum collector_request *out)
{
	static const struct {
		const char *name;
		enum collector_request v;
	} t[] = {{"auto", COLLECTOR_AUTO}, {"perf", COLLECTOR_PERF}, {"preload", COLLECTOR_PRELOAD}};
	for (size_t i = 0; s && i < sizeof(t) / sizeof(t[0]); i++) {
		if (!strcmp(s, t[i].name)) {
			*out = t[i].v;
			return 0;
		}
	}
	return -EINVAL;
}

const char *collector_kind__name(enum collector_kind k)
{
	return k == COLLECTOR_USE_PERF ? "perf" : k == COLLECTOR_USE_PRELOAD ? "preload" : "none";
}

enum collector_kind collector_choose(enum collector_request req, bool perf_can_sample,
				     bool preload_found)
{
	switch (req) {
	case COLLECTOR_PERF:
		return perf_can_sample ? COLLECTOR_USE_PERF : COLLECTOR_NONE;
	case COLLECTOR_PRELOAD:
		return preload_found ? COLLECTOR_USE_PRELOAD : COLLECTOR_NONE;
	case COLLECTOR_AUTO:
	default:
		return perf_can_sample ? COLLECTOR_USE_PERF
		       : preload_found ? COLLECTOR_USE_PRELOAD
				       : COLLECTOR_NONE;
	}
}

char *collector_ld_preload(const char *lib, const char *existing)
{
	return existing && *existing ? xasprintf("LD_PRELOAD=%s:%s", lib, existing)
				     : xasprintf("LD_PRELOAD=%s", lib);
}
