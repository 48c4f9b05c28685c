// SPDX-License-Identifier: BSD-3-Clause
// The .spt reader and everything downstream of it on one rank: parse (finished
// traces with their extension block, and unfinished ones), notes, present
// as rank data, reconstruct the call stacks, summarize. Any input must give
// either a result or a clean error.
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "ingest/spt_reader.h"
#include "regions/callstack.h"
#include "report/rank_notes_view.h"
#include "regions/summary.h"
#include "regions/trace_set.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spt_trace t;
	struct err e = {0};
	if (spt_parse(data, size, "fuzz.spt", &t, &e) != 0)
		return 0;
	/* Bound the work per input: the reconstruction is linear, but the fuzzer
	 * should spend its time on the parser's edge cases. */
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
	struct summary s = {0};
	memset(&ts, 0, sizeof(ts));
	memset(&rd, 0, sizeof(rd));
	path_tree__init(&pt);
	rd.path = "fuzz.spt";
	/* unfinished-trace and extension notes, as inspect prints them */
	if (rank_notes__add(&ts.notes, &t, t.rank) == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			rank_notes_print(&ts.notes, null);
			fclose(null);
		}
		json_decref(rank_notes_json(&ts.notes));
	}
	if (trace_set__from_spt(&ts, &t, &rd, &e) == 0) {
		/* The generic merge (every call materialised) and inspect's own
		 * (statistics only, its ties settled lazily) must agree: both fail,
		 * or both see the same calls. */
		int built = calls__build(&c, &rd, &ts, &pt, &e);
		size_t n = built == 0 ? c.n : 0;
		if (built == 0)
			calls__release(&c);
		struct call_sink sink = summary__sink(&s);
		int streamed = -1;
		if (summary__init(&s, 1) == 0 &&
		    summary__begin_rank(&s, 0, rd.rank, rd.nr_lanes, &ts, &pt) == 0) {
			streamed = calls__stream(&rd, &ts, &pt, &sink, &e);
			if (streamed == 0 && summary__end_rank(&s) == 0 && built == 0 &&
			    s.nr_calls != (int64_t)n)
				__builtin_trap();
		}
		if ((built == 0) != (streamed == 0) && built != -ENOMEM && streamed != -ENOMEM)
			__builtin_trap();
		summary__release(&s);
	}
	path_tree__release(&pt);
	rank_data__release(&rd);
	trace_set__release(&ts);
	spt_trace__release(&t);
	return 0;
}
