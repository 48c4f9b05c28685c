/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser of `perf script` text: a pure function from bytes to samples (no
 * I/O, no spawning), streamed into the aggregator of aggregate.h.
 *
 * Shapes accepted, as seen from the real tools:
 *
 * perf 6.14.11 (corpus), `--fields comm,pid,tid,time,period,event,ip,sym,
 * symoff,dso,dsoff`, flat (no call graph): one line per sample,
 *     "        workload 2500296/2500296 28086404.385523:          1 cycles:Pu:
 *      72b4cc676314 _dl_start+0x4 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2+0x22314)"
 *   (one line) comm is right-aligned in 16 columns and may contain spaces;
 *   the event keeps its modifiers (":Pu", "/period=4999999/u").
 * perf 6.14.11, same fields, `perf record --call-graph fp`: the header line
 *   ends right after "event: " (comm not indented), then one line per frame
 *   starting with a TAB, innermost first, "\t    ip sym+off (dso+0xoff)", and
 *   a blank line ends the sample. We split samples on that blank line rather
 *   than on indentation, whose width changed across perf versions.
 * `dso` with dsoff (perf >= 6.4) is "module+0xOFF", split at the LAST '+'
 *   (rpartition; "libstdc++.so.6+0x10" works). perf prints no offset for
 *   kernel DSOs, and "[unknown]" for ips outside any map.
 * perf 6.1.x (this machine; no dsoff field): dso is "(module)" only. The
 *   offset is computed from the mmap events, which the caller asks for with
 *   `perf script --show-mmap-events --show-task-events -F comm,pid,tid,time,
 *   period,event,ip,dso` (sym, symoff optional). Those side-band lines read
 *     "ing_spin 13879/13879 406.298301: PERF_RECORD_MMAP2 13879/13879:
 *      [0x559695c13000(0x1000) @ 0x1000 fe:00 10952787 837906299]: r-xp /tmp/ing_spin"
 *     "perf-exec 0/0 0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988)
 *      @ 0xffffffff81000000]: x [kernel.kallsyms]_text"
 *     "... PERF_RECORD_FORK(13880:13880):(13879:13879)"
 *   and offset = ip - start + pgoff of the pid's latest map covering ip
 *   (perf_maps.h), the very definition of dsoff. Without mmap events such
 *   samples keep no offset and are counted in stats->nr_no_offset.
 *
 * Offsets are never taken for bracketed pseudo-modules ("[unknown]",
 * "[vdso]", kernel modules "[xfs]"): they are not files. The exception is
 * "[kernel.kallsyms]": with the kernel's mmap line above, its offset is
 * ip - `_text` (the "@ PGOFF" of "[kernel.kallsyms]_text"), never the ip.
 * Lines that fit none of these shapes are counted (stats->nr_unparsed, first
 * kept); a call-graph header with no frame is one of them.
 */
#ifndef NUNATAK_INGEST_PERF_SCRIPT_H
#define NUNATAK_INGEST_PERF_SCRIPT_H

#include <stddef.h>

#include "ingest/aggregate.h"

struct err;
struct pivot;

/* The --fields this parser is built for. perf >= 6.4 prints dsoff; older perf
 * needs the side-band flags as well so offsets can be computed. */
#define INGEST_PERF_SCRIPT_FIELDS_DSOFF "comm,pid,tid,time,period,event,ip,sym,symoff,dso,dsoff"
#define INGEST_PERF_SCRIPT_FIELDS_PRE_6_4 "comm,pid,tid,time,period,event,ip,sym,symoff,dso"
#define INGEST_PERF_SCRIPT_FLAGS_PRE_6_4 "--show-mmap-events", "--show-task-events"

/* Called once per sample; a non-zero return stops parsing and is returned. */
typedef int (*perf_sample_fn)(void *ctx, const struct ingest_sample *s);

/*
 * Parses buf[0..len) (need not be NUL-terminated) and calls fn per sample.
 * st (required, zero-initialised by the caller) receives the counts. Returns
 * 0, -ENOMEM (e filled), or fn's non-zero value. Malformed lines are never an
 * error: they are counted.
 */
int perf_script__parse(const char *buf, size_t len, perf_sample_fn fn, void *ctx,
		       struct ingest_stats *st, struct err *e);

/*
 * The whole path: parse, aggregate, emit into p (aggregate.h), and add the
 * degradations to st->degradations:
 *   perf-script-unparsed  "{n} of {total} sample lines not recognized (first: ...)"
 *   perf-script-no-offset "{n} of {total} samples have no module offset ..."
 * Returns 0 or a negative errno with e filled. st must be zero-initialised;
 * the caller releases it with ingest_stats__release().
 */
int ingest_perf_script(const char *buf, size_t len, const struct ingest_opts *o,
		       struct pivot *p, struct ingest_stats *st, struct err *e);

/* Adds the degradations implied by st (shared with the perf.data path). */
int ingest_stats__degrade(struct ingest_stats *st);

#endif
