// SPDX-License-Identifier: BSD-3-Clause
// Samples meet regions on any bytes: the input is a .spt trace; its calls
// become the per-lane timelines (regions/meet.h), queried at every call
// boundary and between; the same bytes go through the perf.data clock check.
// Any input must give a result or a clean error, never a crash.
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "ingest/perf_data.h"
#include "ingest/spt_reader.h"
#include "regions/callstack.h"
#include "regions/meet.h"
#include "regions/trace_set.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void query(const struct region_timeline *tl, const struct calls *c)
{
	for (int32_t lane = -1; lane <= tl->nr_lanes; lane++)
		for (size_t i = 0; i < c->n && i < 1000; i++) {
			int32_t n = region_timeline__at(tl, lane, c->start[i]);
			n = region_timeline__at(tl, lane, c->end[i] - 1);
			if (n < -1)
				__builtin_trap();
		}
	(void)region_timeline__lane(tl, 1, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)perf_data_clockid(data, size);
	struct spt_trace t;
	struct err e = {0};
	if (spt_parse(data, size, "fuzz.spt", &t, &e) != 0)
		return 0;
	int64_t calls = 0;
	for (int64_t i = 0; i < t.nr_regions; i++)
		calls += t.regions[i].nr_calls;
	if (calls > 100000) {
		spt_trace__release(&t);
		return 0;
	}
	struct trace_set ts;
	struct rank_data rd;
	struct path_tree pt;
	struct calls c;
	memset(&ts, 0, sizeof(ts));
	memset(&rd, 0, sizeof(rd));
	path_tree__init(&pt);
	rd.path = "fuzz.spt";
	if (trace_set__from_spt(&ts, &t, &rd, &e) == 0 && calls__build(&c, &rd, &ts, &pt, &e) == 0) {
		struct region_timeline tl;
		if (region_timeline__build(&tl, &c, &rd, &e) == 0) {
			query(&tl, &c);
			region_timeline__release(&tl);
		}
		calls__release(&c);
	}
	path_tree__release(&pt);
	rank_data__release(&rd);
	trace_set__release(&ts);
	spt_trace__release(&t);
	return 0;
}
