/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The on-disk vocabulary of scope_profiler's files, shared by the library's
 * writers (lib/) and nunatak's readers (src/ingest/, src/regions/): magics,
 * versions, the frames of an unfinished (streaming) trace, the extension
 * block after a finished trace, and the one HDF5 link-name escaping.
 * Layouts in docs/formats.md. Header only, libc only.
 */
#ifndef SP_FORMAT_H
#define SP_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SP_SPT_MAGIC "SCOPEPRF"
#define SP_SPS_MAGIC "SCOPESMP"
#define SP_MAGIC_LEN 8

#define SP_SPT_VERSION_MIN 1
#define SP_SPT_VERSION_LOC 2   /* + source file and line per region */
#define SP_SPT_VERSION_LANES 3 /* + lane per call and a thread table */
#define SP_SPT_VERSION_MAX 3
#define SP_SPS_VERSION 2 /* 2: + a weight per sample */

/*
 * An unfinished trace: what a recording process keeps at the .spt path
 * while it runs, replaced by a finished one at sp_finalize(). Its version
 * field holds SP_SPT_VERSION_STREAM; readers of the seed's format refuse it
 * as an unknown version, ours recover every complete frame.
 *
 *   header: magic, int32 version, int32 rank, int32 clock (SP_CLOCK_*),
 *           int32 0, int64 pid, int64 init CLOCK_MONOTONIC ns,
 *           int64 init CLOCK_REALTIME ns                  (48 bytes)
 *   frames: uint32 tag, uint32 payload bytes, payload, until end of file
 */
#define SP_SPT_VERSION_STREAM 100
#define SP_STREAM_HEADER_LEN 48
#define SP_FRAME_HEADER_LEN 8
#define SP_CLOCK_NS 0  /* stamps are CLOCK_MONOTONIC ns */
#define SP_CLOCK_TSC 1 /* stamps are TSC ticks, mapped through anchors */

/* 'SITE': uint64 handle, int32 line, int32 valid (0: not a readable
 * descriptor, its calls are dropped and counted), string name, string file */
#define SP_FRAME_SITE 0x45544953u
/* 'THRD': int32 lane order, int32 0, int64 tid, string name */
#define SP_FRAME_THREAD 0x44524854u
/* 'ANCH': n x (uint64 tsc, int64 CLOCK_MONOTONIC ns), increasing */
#define SP_FRAME_ANCHOR 0x48434e41u
/* 'CALL': int32 lane order, int32 0, then n x (uint64 handle, uint64
 * start stamp, uint64 end stamp) in the order calls ended */
#define SP_FRAME_CALLS 0x4c4c4143u
#define SP_STREAM_CALL_LEN 24
/* 'CVAL': the counts of the CALL frame just before it (same lane):
 * int32 lane order, int32 values per call (the counted events), then per
 * call in that frame's order, per counted event: int64 inclusive count
 * (SP_CTR_NONE: not kept). Only when events are counted. */
#define SP_FRAME_VALUES 0x4c415643u
#define SP_FRAME_MAX (64u << 20) /* readers refuse a longer frame as corrupt */

/*
 * Extension block, after the last field of a finished .spt (v2 or v3):
 *   char[8] SP_EXT_MAGIC, int64 bytes that follow,
 *   then sections: uint32 tag, uint32 payload bytes, payload.
 * The seed's reader stops after the thread table (v3) or the last region
 * and never sees it; ours read the sections they know and skip the others.
 */
#define SP_EXT_MAGIC "SPTEXT01"
/* 'TIME': int64 init ns, int64 finalize ns (CLOCK_MONOTONIC), int64 init
 * CLOCK_REALTIME ns, int64 process start ns (CLOCK_MONOTONIC, -1 unknown),
 * int32 nlanes, int32 0, per lane: int64 first ns, int64 last ns,
 * int64 CPU ns (-1 unknown) */
#define SP_EXT_TIMING 0x454d4954u
/* 'MISU': int32 nkinds, per kind: int32 kind (SP_MISUSE_KIND_*), int32 0,
 * int64 count, int32 nnames, per name: string region, int64 count */
#define SP_EXT_MISUSE 0x5553494du

/* 'CNTR': counters per region and lane (SCOPE_PROFILER_EVENTS):
 *   string backend ("perf_event", or "test" in test programs only),
 *   int32 nevents, int32 0, int64 threads that recorded without counts,
 *   int64 calls whose counts were dropped,
 *   per event: string name (as asked), int32 kind (SP_CTR_KIND_*: 0 count,
 *     1 time ns, 2 cycles, 3 instructions, 4 flop, 5 bytes), int32 status
 *     (0 counted, 1 unavailable), string reason (empty when counted),
 *   int64 nrows, per row: int32 region (index in the trace's region
 *     order), int32 lane (as in the thread table; 0 in a v2 trace),
 *     int64 calls, then per counted event (in event order): int64
 *     inclusive sum, int64 exclusive sum (inclusive minus the inclusive
 *     sums of the regions closed inside it on that lane).
 * Unavailable events have no values: never zero. */
#define SP_EXT_COUNTERS 0x52544e43u

/* 'CCAL': each call's counts (format version SP_CCAL_VERSION), present
 * with CNTR when events were counted; may repeat (at most SP_CCAL_CHUNK
 * calls a section, the sections in order):
 *   int32 version, int32 ncounted, int64 ncalls in this section,
 *   per call: int32 region (-1: padding, skip), int32 lane, int64 start ns
 *     (the call's start as in the trace), per counted event in event
 *     order: int64 inclusive count of that call (SP_CTR_NONE: not kept).
 * Calls are in the order they were recorded; every call of the trace has
 * one entry. */
#define SP_EXT_CALL_COUNTERS 0x4c414343u
#define SP_CCAL_VERSION 1
#define SP_CCAL_CHUNK (1u << 20)
#define SP_CTR_NONE (-1)

/* What an event measures: lets readers derive rates (sp_format.h). */
enum sp_ctr_kind {
	SP_CTR_KIND_COUNT = 0,
	SP_CTR_KIND_TIME_NS = 1,
	SP_CTR_KIND_CYCLES = 2,
	SP_CTR_KIND_INSTRUCTIONS = 3,
	SP_CTR_KIND_FLOP = 4,
	SP_CTR_KIND_BYTES = 5,
};

/* Misuse kinds as written in the extension (stable numbers). */
enum sp_misuse_kind {
	SP_MISUSE_KIND_NULL_HANDLE = 0,
	SP_MISUSE_KIND_END_UNOPENED = 1,
	SP_MISUSE_KIND_END_NOT_INNER = 2,
	SP_MISUSE_KIND_DISCARDED = 3,
	SP_MISUSE_KIND_TOO_DEEP = 4,
	SP_MISUSE_KIND_LEFT_OPEN = 5,
	SP_MISUSE_KIND_AFTER_FINALIZE = 6,
	SP_MISUSE_KIND_FINALIZE_AGAIN = 7,
	SP_MISUSE_KIND_BAD_HANDLE = 8,
	SP_MISUSE_KIND_NO_MEMORY = 9,
	SP_MISUSE_KIND_IN_HANDLER = 10,
	SP_MISUSE_KIND_NR
};

/* Short stable keys of the kinds (JSON, messages). */
static inline const char *sp_misuse_kind_key(int kind)
{
	static const char *const keys[SP_MISUSE_KIND_NR] = {
		"null_handle", "end_unopened", "end_not_innermost", "discarded_inner",
		"too_deep", "left_open", "after_finalize", "finalize_again", "bad_handle",
		"no_memory", "in_signal_handler"};
	return kind >= 0 && kind < SP_MISUSE_KIND_NR ? keys[kind] : "unknown";
}

/*
 * HDF5 link name of a region: '/' is written %2F, '%' %25 and a leading '.'
 * %2E, so a name never nests groups; the empty name is %00. @p out holds at
 * least 3 * strlen(name) + 4 bytes. Returns the length written.
 */
static inline size_t sp_h5_escape(const char *name, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = 0;
	if (!*name) {
		memcpy(out, "%00", 4);
		return 3;
	}
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || c == '%' || (p == name && c == '.')) {
			out[k++] = '%';
			out[k++] = hex[c >> 4];
			out[k++] = hex[c & 15];
		} else {
			out[k++] = (char)c;
		}
	}
	out[k] = 0;
	return k;
}

/* Inverse of sp_h5_escape, in place. Unknown %xx sequences stay as they are. */
static inline void sp_h5_unescape(char *s)
{
	if (strcmp(s, "%00") == 0) {
		*s = 0;
		return;
	}
	char *w = s;
	for (const char *p = s; *p; p++) {
		char c = 0;
		if (p[0] == '%' && p[1] == '2') {
			char x = p[2];
			c = (x == 'F' || x == 'f') ? '/' : x == '5' ? '%' : (x == 'E' || x == 'e') ? '.' : 0;
		}
		if (c) {
			*w++ = c;
			p += 2;
		} else {
			*w++ = *p;
		}
	}
	*w = 0;
}

#endif
