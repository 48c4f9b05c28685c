// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a file's section headers as the debug copies read them
// (attrib/debug_copy.h debug_copy_scan): whether a separate debug file has
// zlib-compressed .debug_* sections, and its build-id. Any bytes give -EINVAL,
// 0 or 1, and a build-id is lowercase hex.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attrib/debug_copy.h"
#include "common/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_debug_scan", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char *id = NULL;
	int rc = debug_copy_scan(fd, &id);
	close(fd);
	if (rc != -EINVAL && rc != 0 && rc != 1)
		__builtin_trap();
	if (id && (!*id || strspn(id, "0123456789abcdef") != strlen(id)))
		__builtin_trap();
	xfree(id);
	return 0;
}
