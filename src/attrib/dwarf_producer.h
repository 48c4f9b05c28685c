/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DW_AT_producer of an object's first compilation unit: the compiler and,
 * as GCC records them by default (-grecord-gcc-switches), its flags ("GNU
 * C17 12.2.0 -mtune=generic -march=x86-64 -g -O2"). Pure and bounds-checked
 * (fuzzed through the ELF reader): DWARF 2 to 5, 32- and 64-bit, the string
 * inline or in .debug_str / .debug_line_str, or by index (DWARF 5 strx,
 * clang's) through the first contribution of .debug_str_offsets (its
 * 8-byte header), which is the first unit's in a linked object.
 */
#ifndef NUNATAK_ATTRIB_DWARF_PRODUCER_H
#define NUNATAK_ATTRIB_DWARF_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

struct dwarf_sections {
	const uint8_t *info, *abbrev, *str, *line_str, *str_offsets;
	size_t info_len, abbrev_len, str_len, line_str_len, str_offsets_len;
};

/* The producer, printable ASCII, at most cap - 1 bytes, into buf: returns
 * its length, 0 when there is none (or it cannot be read). */
size_t dwarf_producer(const struct dwarf_sections *d, char *buf, size_t cap);

#endif
