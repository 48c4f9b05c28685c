// SPDX-License-Identifier: BSD-3-Clause
#include "tools/llvm_readelf.h"

#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/text.h"
#include "tools/symbolizer_parse.h"

void llvm_readelf__sections_argv(const char *argv[LLVM_READELF_ARGC + 1], const char *path,
				 const char *module)
{
	argv[0] = path;
	argv[1] = "-S";
	argv[2] = module;
	argv[3] = NULL;
}

int readelf_sections__parse(const char *text, size_t len, struct module_sections *out,
			    struct err *e)
{
	memset(out, 0, sizeof(*out));
	size_t pos = 0;
	const char *s;
	size_t n;
	bool table = false;
	while (text_next_line_in(text, len, &pos, &s, &n)) {
		if (memmem(s, n, "Section Headers:", 16))
			table = true;
		const char *lb = memchr(s, '[', n), *rb = lb ? memchr(lb, ']', n - (size_t)(lb - s)) : NULL;
		if (!table || !rb)
			continue;
		const char *p = rb + 1, *end = s + n;
		while (p < end && *p == ' ')
			p++;
		const char *q = p;
		while (q < end && *q != ' ')
			q++;
		size_t k = (size_t)(q - p);
#define IS(name) (k == sizeof(name) - 1 && memcmp(p, name, k) == 0)
		out->symtab |= IS(".symtab");
		out->dynsym |= IS(".dynsym");
		out->debug_info |= IS(".debug_info") || IS(".zdebug_info");
#undef IS
	}
	if (!table)
		return err_set(e, -EINVAL, ERR_READELF_OUTPUT,
			       "readelf -S output: no \"Section Headers:\" table");
	return 0;
}
