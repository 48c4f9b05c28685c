// SPDX-License-Identifier: BSD-3-Clause
#include "tools/version.h"

#include <stddef.h>

void tool_argv_version(const char *argv[3], const char *prog)
{
	argv[0] = prog;
	argv[1] = "--version";
	argv[2] = NULL;
}
