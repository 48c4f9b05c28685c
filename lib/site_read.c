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

bool sp_mem__read_string_to(const char *p, char *out, size_t max)
{
	if (!p)
		return false;
	size_t len = 0;
	while (len < max) {
		/* Never cross a page boundary in one read: the next page may be
		 * unmapped while the string ends before it. */
		uintptr_t a = (uintptr_t)(p + len);
		size_t step = 4096 - (a & 4095);
		if (step > max - len)
			step = max - len;
		if (!read_mem(out + len, p + len, step))
			return false;
		if (memchr(out + len, 0, step))
			return true;
		len += step;
	}
	return false;
}

char *sp_mem__read_string(const char *p, size_t max)
{
	if (!p)
		return NULL;
	char *out = malloc(max + 1);
	if (out && sp_mem__read_string_to(p, out, max))
		return out;
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

bool sp_site__read_to(const struct sp_site *site, struct sp_site *copy, char *name,
		      char *file, size_t max)
{
	name[0] = file[0] = 0;
	if (!read_mem(copy, site, sizeof(*copy)) || copy->magic != SP_SITE_MAGIC ||
	    !sp_mem__read_string_to(copy->name, name, max)) {
		name[0] = 0;
		return false;
	}
	if (!copy->file || !sp_mem__read_string_to(copy->file, file, max))
		file[0] = 0;
	return true;
}
