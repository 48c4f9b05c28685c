/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The llvm-dwarfdump adapter: `llvm-dwarfdump --debug-line MODULE`, whose
 * line-table prologues carry DWARF 5 MD5s of the source files. Parsed by
 * dwarfdump_checksums__parse (in this program's .c, declared in tools/symbolizer_parse.h, fuzzed).
 */
#ifndef NUNATAK_TOOLS_LLVM_DWARFDUMP_H
#define NUNATAK_TOOLS_LLVM_DWARFDUMP_H

#define LLVM_DWARFDUMP_ARGC 3

/* argv[0..3]: path --debug-line module, NULL. The strings are borrowed. */
void llvm_dwarfdump__lines_argv(const char *argv[LLVM_DWARFDUMP_ARGC + 1], const char *path,
				const char *module);

#endif
