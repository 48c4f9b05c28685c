// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: an ELF image into attrib/elf.h's elf_info (headers, symbols,
// build-id, .comment, DW_AT_producer, symbol starts). What it keeps of the
// object's text is printable and bounded; function extents never wrap; symbol
// starts are ordered and a symbol key never lies beyond its address.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attrib/elf.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable(const char *s)
{
	if (!s)
		return;
	if (strlen(s) > ELF_COMMENT_MAX)
		__builtin_trap();
	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_info info;
	struct err e = {0};
	if (elf_info__parse(&info, data, size, ELF_READ_SYMBOLS | ELF_READ_IMPORTS | ELF_READ_STARTS,
			   &e) == 0) {
		printable(info.comment);
		printable(info.producer);
		for (size_t i = 0; i < info.nr_funcs; i++)
			if (info.funcs[i].start + info.funcs[i].size < info.funcs[i].start)
				__builtin_trap();
		for (size_t i = 1; i < info.nr_starts; i++)
			if (info.starts[i - 1].start >= info.starts[i].start)
				__builtin_trap();
		for (size_t i = 0; i < info.nr_starts; i++) {
			uint64_t key, a = info.starts[i].start + info.starts[i].max_size / 2;
			if (elf_info__symbol_key(&info, a, &key) && key > a)
				__builtin_trap();
		}
	}
	elf_info__release(&info);
	return 0;
}
