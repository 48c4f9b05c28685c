/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GNU addr2line adapter (the stand-in when no LLVM is installed):
 * `addr2line -e MODULE -a -f -C -i [0xADDR…]` (addresses on stdin for a
 * large batch): the address echoed, then function and file:line pairs,
 * inlined frames first. Its output is parsed by addr2line__parse
 * (in this program's .c, declared in tools/symbolizer_parse.h, fuzzed).
 */
#ifndef NUNATAK_TOOLS_ADDR2LINE_H
#define NUNATAK_TOOLS_ADDR2LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer_call;

/* Fills k (zeroed by the caller) for path over addrs[0..n) of module.
 * 0 or -ENOMEM. */
int addr2line__call(struct symbolizer_call *k, const char *path, const char *module,
		    const uint64_t *addrs, size_t n, bool argv_ok);

#endif
