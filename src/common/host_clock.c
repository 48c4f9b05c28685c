// SPDX-License-Identifier: BSD-3-Clause
#include "common/host_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/fsutil.h"

static double read_clock(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int host_boot_id(char out[HOST_CLOCK_BOOT_ID_SIZE])
{
	char *boot = NULL;
	size_t len = 0;
	out[0] = '\0';
	if (fs_read_file("/proc/sys/kernel/random/boot_id", 64, &boot, &len) != 0 || !boot)
		return -1;
	size_t n = strspn(boot, "0123456789abcdef-");
	int rc = n >= 16 && n < HOST_CLOCK_BOOT_ID_SIZE ? 0 : -1;
	if (rc == 0) {
		memcpy(out, boot, n);
		out[n] = '\0';
	}
	xfree(boot);
	return rc;
}

void host_clock__now(struct host_clock *c)
{
	(void)host_boot_id(c->boot_id);
	c->mono = read_clock(CLOCK_MONOTONIC);
	c->real = read_clock(CLOCK_REALTIME);
}

double host_clock__on(const struct host_clock *here, const struct host_clock *t, bool *same)
{
	*same = here->boot_id[0] && t->boot_id[0] && strcmp(here->boot_id, t->boot_id) == 0;
	if (*same)
		return t->mono;
	return t->real - (here->real - here->mono);
}
