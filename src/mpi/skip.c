// SPDX-License-Identifier: BSD-3-Clause
#include "mpi/skip.h"

#include <ctype.h>
#include <string.h>

bool mpi_skip_valid(const char *list)
{
	int n = 0;
	if (!list || !*list)
		return false;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		if (len <= 4 || strncmp(p, "MPI_", 4) != 0 || ++n > 64)
			return false;
		for (size_t i = 4; i < len; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '_')
				return false;
		p += len;
		if (!*p)
			return true;
	}
}
