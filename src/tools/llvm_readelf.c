// SPDX-License-Identifier: BSD-3-Clause
#include "tools/llvm_readelf.h"

#include <stddef.h>

void llvm_readelf__sections_argv(const char *argv[LLVM_READELF_ARGC + 1], const char *path,
				 const char *module)
{
	argv[0] = path;
	argv[1] = "-S";
	argv[2] = module;
	argv[3] = NULL;
}
