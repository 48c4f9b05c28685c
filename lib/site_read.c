/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the host's memory without trusting it (site_read.h): below the
 * stream and the trace builder, which both read sites through it. */
#include "site_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static bool read_mem(void *dst, const void *src, size_t n)
{
	struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)src, n};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

char *sp_mem__read_string(const char *p, size_t max)
{
	if (!p)
		return NULL;
	char *out = malloc(max + 1);
	if (!out)
		return NULL;
	size_t len = 0;
	while (len < max) {
		/* Never cross a page boundary in one read: the next page may be
		 * unmapped while the string ends before it. */
		uintptr_t a = (uintptr_t)(p + len);
		size_t step = 4096 - (a & 4095);
		if (step > max - len)
			step = max - len;
		if (!read_mem(out + len, p + len, step))
			break;
		char *nul = memchr(out + len, 0, step);
		if (nul)
			return out;
		len += step;
	}
	free(out);
	return NULL;
}

bool sp_site__read(const struct sp_site *site, struct sp_site *copy, char **name,
			 char **file)
{
	*name = *file = NULL;
	if (!read_mem(copy, site, sizeof(*copy)) || copy->magic != SP_SITE_MAGIC)
		return false;
	*name = sp_mem__read_string(copy->name, 65536);
	if (!*name)
		return false;
	*file = copy->file ? sp_mem__read_string(copy->file, 65536) : NULL;
	return true;
}
