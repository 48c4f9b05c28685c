// SPDX-License-Identifier: BSD-3-Clause
#include "tools/mpicc.h"

#include <string.h>

void mpicc_argv_build(const char *argv[MPICC_ARGV_MAX], const char *mpicc, bool shared,
		      const char *out, const char *src)
{
	const char *lib[MPICC_ARGV_MAX] = {mpicc, "-O2", "-fPIC", "-shared", "-o", out, src, "-ldl",
					   NULL};
	const char *exe[MPICC_ARGV_MAX] = {mpicc, "-O2", "-o", out, src, NULL};
	memcpy(argv, shared ? lib : exe, sizeof(lib));
}
