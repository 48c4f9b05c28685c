// SPDX-License-Identifier: BSD-3-Clause
#include "tools/llvm_dwarfdump.h"

#include <stddef.h>

void llvm_dwarfdump__lines_argv(const char *argv[LLVM_DWARFDUMP_ARGC + 1], const char *path,
				const char *module)
{
	argv[0] = path;
	argv[1] = "--debug-line";
	argv[2] = module;
	argv[3] = NULL;
}
