/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The call-stack ladder (REFERENCE.md §3 "Call stacks"), decided before the
 * launch, without running the application:
 *   1. lbr when the CPU model says Intel (the Last Branch Record);
 *   2. fp when GNU objdump finds frame-pointer prologues in the target and
 *      its libraries (`ldd`, the lines with "=> /path"): per module, the 8
 *      largest function symbols of at least 64 bytes (`objdump -t`, else
 *      `-T`), their first 0x20 bytes disassembled, a `push %rbp` (x86-64) or
 *      `stp x29, x30` (AArch64) within the first 4 instructions; the rate is
 *      the mean of the per-module rates, against stacks.fp_threshold (0.75);
 *   3. otherwise none, naming the worst offender.
 * `--call-graph lbr|fp|dwarf|none` forces a mode. dwarf keeps the asked
 * frequency and bounds its cost by the size of the user-stack copy each
 * sample carries (STACKS_DWARF_COPY_BYTES: deeper stacks are cut short,
 * which the callers' Quality says).
 * llvm-objdump is refused (it reads zeroed separate-debug sections). Stacks
 * never enter Hotspot identity.
 *
 * The parsers are pure (text in, values out); stacks_ladder() runs objdump
 * and ldd through the executor, so a corpus entry replays the decision.
 */
#ifndef NUNATAK_COLLECT_STACKS_H
#define NUNATAK_COLLECT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/perf.h"

struct executor;
struct err;

#define STACKS_FP_THRESHOLD 0.75
#define STACKS_MIN_SYMBOL 64
#define STACKS_SYMBOLS_PER_MODULE 8
#define STACKS_PROLOGUE_BYTES 0x20
#define STACKS_PROLOGUE_INSNS 4
#define STACKS_DWARF_COPY_BYTES 4096
#define STACKS_DWARF_CALL_GRAPH PERF_DWARF_CALL_GRAPH /* perf's --call-graph value */

enum stacks_mode { STACKS_NONE = 0, STACKS_FP, STACKS_LBR, STACKS_DWARF };
const char *stacks_mode__name(enum stacks_mode m); /* "none", "fp", "lbr", "dwarf" */
/* "lbr", "fp", "dwarf", "none" -> *out; returns 0 or -EINVAL. */
int stacks_mode__parse(const char *s, enum stacks_mode *out);

/* objdump and ldd are driven through their adapters (tools/objdump.h,
 * tools/ldd.h), which build their argv and parse their output. */

struct stacks_module {
	char *path;
	int sampled;  /* functions disassembled */
	int with_fp;  /* of those, with a frame-pointer prologue */
};

struct stacks_decision {
	enum stacks_mode mode;
	bool forced;                  /* --call-graph */
	bool no_objdump;              /* objdump did not answer as GNU objdump */
	double rate;                  /* mean per-module rate, -1 when not measured */
	struct stacks_module *modules; /* owned */
	size_t nr_modules;
	char detail[400];             /* "fp: frame pointers in 95% of ... (threshold 75%)" */
	/* when mode is none for want of frame pointers: the degradation */
	char reason[400];
};

/* The decision from measured modules (pure). cpu_model may be NULL;
 * objdump_ok false: no GNU objdump. */
void stacks_decide(struct stacks_decision *d, const char *cpu_model, bool objdump_ok,
		   double threshold);

/*
 * The ladder: lbr for Intel, else objdump on target (a path or a name looked
 * up on PATH) and its libraries, else none. Fills *d (release with
 * stacks_decision__release). Never fails for a missing tool (that is a
 * rung); returns 0 or -ENOMEM. use_cache: a live Run reads and writes the
 * per-module results (collect/stacks_cache.h); a recording or a replay
 * never does, so its tool calls are the same every time.
 */
int stacks_ladder(struct executor *x, const char *objdump, const char *target,
		  const char *cpu_model, double threshold, bool use_cache,
		  struct stacks_decision *d, struct err *e);
void stacks_decision__release(struct stacks_decision *d);

#endif
