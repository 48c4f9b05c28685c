// SPDX-License-Identifier: BSD-3-Clause
/* Fuzz target: a Run's pivot.sqlite, what `nunatak compare` and `nunatak
 * report` read beside the manifest (fuzz_manifest). The bytes become a
 * database file; an accepted pivot then goes through the comparison against
 * itself, the statistics `compare` runs. Errors are expected, with a code;
 * crashes, leaks and UB are not. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "common/err.h"
#include "model/model.h"
#include "store/pivot_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static int write_db(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz-pivot-%d.sqlite", (int)getpid());
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20) || write_db(data, size) != 0)
		return 0;
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	int rc = pivot_db_read(&p, path, &e);
	if (rc != 0 && !e.code[0])
		__builtin_trap(); /* every refusal names its code */
	if (rc == 0) {
		struct compare_run a = {"m", 1, 1000.0, &p};
		struct compare_result r;
		memset(&r, 0, sizeof(r));
		if (compare_runs(&a, 1, &a, 1, true, &r) == 0)
			(void)compare_regressions(&r, 5.0);
		compare_result__release(&r);
	}
	pivot__release(&p);
	unlink(path);
	return 0;
}
