// SPDX-License-Identifier: BSD-3-Clause
#include "collect/perf_exit.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"

bool perf_data_finished(const char *path)
{
	unsigned char h[56];
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f)
		return false;
	size_t n = fread(h, 1, sizeof(h), f);
	fclose(f);
	if (n < sizeof(h) || memcmp(h, "PERFILE2", 8) != 0)
		return false;
	/* perf_file_header: magic, size, attr_size, attrs{offset, size},
	 * data{offset, size}: data.size at byte 48, little-endian */
	uint64_t size = 0;
	for (int i = 7; i >= 0; i--)
		size = size << 8 | h[48 + i];
	return size > 0;
}

bool perf_exit_reraised(struct exec_result *res, bool finished)
{
	if (!res->wrapper_signal || !finished)
		return false;
	res->term_signal = res->wrapper_signal;
	res->exit_code = 128 + res->wrapper_signal;
	res->wrapper_signal = 0;
	return true;
}
