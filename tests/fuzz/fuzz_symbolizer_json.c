// SPDX-License-Identifier: BSD-3-Clause
/* Fuzz target: the symbolizer-side parsers of src/attrib/parse.c. The first
 * byte picks the parser (llvm-symbolizer JSON, addr2line, readelf -S,
 * dwarfdump --debug-line, the ELF reader); the rest is the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attrib/elf.h"
#include "tools/symbolizer_parse.h"
#include "common/alloc.h"
#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned which = data[0] % 5;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	struct err e = {0};
	struct attrib_chains cs = {0};
	switch (which) {
	case 0:
		symbolizer_json__parse(text, len, &cs, &e);
		for (size_t i = 0; i < cs.n; i++)
			(void)attrib_chain__physical(&cs.v[i]);
		break;
	case 1:
		addr2line__parse(text, len, &cs, &e);
		break;
	case 2: {
		struct module_sections sec;
		readelf_sections__parse(text, len, &sec, &e);
		break;
	}
	case 3: {
		struct line_checksums sums = {0};
		dwarfdump_checksums__parse(text, len, &sums);
		if (sums.n)
			(void)line_checksums__find(&sums, sums.v[0].path);
		line_checksums__release(&sums);
		break;
	}
	default: {
		struct elf_info info;
		if (elf_info__parse(&info, text, len, ELF_READ_SYMBOLS, &e) == 0) {
			uint64_t v;
			(void)elf_info__offset_to_vaddr(&info, 0x1000, &v);
			(void)elf_info__symbolizer_address(&info, 0x1000);
			(void)elf_info__func_at(&info, 0x1000);
		}
		elf_info__release(&info);
		break;
	}
	}
	attrib_chains__release(&cs);
	return 0;
}
