// SPDX-License-Identifier: BSD-3-Clause
/*
 * For attribution tests that build a pivot from a real binary: the file
 * offset perf would record for a virtual address of elf (the inverse of
 * elf_info__offset_to_vaddr, which the product never needs). Include after
 * harness.h and attrib/elf.h.
 */
#ifndef NUNATAK_TEST_ELF_OFFSET_H
#define NUNATAK_TEST_ELF_OFFSET_H

#include <stdint.h>

static inline uint64_t file_offset(const struct elf_info *elf, uint64_t vaddr)
{
	for (size_t i = 0; i < elf->nr_loads; i++)
		if (vaddr >= elf->loads[i].vaddr && vaddr - elf->loads[i].vaddr < elf->loads[i].filesz)
			return vaddr - elf->loads[i].vaddr + elf->loads[i].offset;
	CHECK(!"vaddr outside every PT_LOAD");
	return 0;
}

#endif
