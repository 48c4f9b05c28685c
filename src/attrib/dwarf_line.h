/* SPDX-License-Identifier: BSD-3-Clause */
/* DWARF 5 MD5 file checksums in a .debug_line section (see dwarf_line.c). */
#ifndef NUNATAK_ATTRIB_DWARF_LINE_H
#define NUNATAK_ATTRIB_DWARF_LINE_H

#include <stddef.h>
#include <stdint.h>

/* The raw (uncompressed) .debug_line bytes: 1 when some unit's file table
 * has DW_LNCT_MD5, 0 when no unit has (DWARF 2-4, or 5 without), -1 when
 * it cannot tell (malformed, an unknown form or a newer version). Pure. */
int dwarf_line_md5(const uint8_t *p, size_t len);

#endif
