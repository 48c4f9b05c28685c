/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The llvm-symbolizer adapter: `llvm-symbolizer --output-style=JSON
 * --obj=MODULE [0xADDR…]` (addresses on stdin for a large batch). Its output
 * is parsed by symbolizer_json__parse (in this program's .c, declared in tools/symbolizer_parse.h, fuzzed).
 * Demangling is llvm-symbolizer's default.
 */
#ifndef NUNATAK_TOOLS_LLVM_SYMBOLIZER_H
#define NUNATAK_TOOLS_LLVM_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer_call;

/* Fills k (zeroed by the caller) for path over addrs[0..n) of module.
 * 0 or -ENOMEM. */
int llvm_symbolizer__call(struct symbolizer_call *k, const char *path, const char *module,
			  const uint64_t *addrs, size_t n, bool argv_ok);

#endif
