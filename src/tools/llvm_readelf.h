/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The llvm-readelf adapter: `llvm-readelf -S MODULE`, the section table that
 * tells a function from a bare symbol (a .dynsym-only module). Parsed by
 * readelf_sections__parse (in this program's .c, declared in tools/symbolizer_parse.h, fuzzed).
 */
#ifndef NUNATAK_TOOLS_LLVM_READELF_H
#define NUNATAK_TOOLS_LLVM_READELF_H

#define LLVM_READELF_ARGC 3

/* argv[0..3]: path -S module, NULL. The strings are borrowed. */
void llvm_readelf__sections_argv(const char *argv[LLVM_READELF_ARGC + 1], const char *path,
				 const char *module);

#endif
