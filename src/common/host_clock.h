/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A node's clocks at one instant, so that a time taken on one node can be
 * put on another's monotonic clock (issue 27: when each rank started and
 * ended, against the launcher's start and end on the launch node).
 *
 * Two processes under the same kernel (same boot id: the same machine, or
 * the test cluster's nodes on one host) share CLOCK_MONOTONIC: the time is
 * exact. Across kernels only the wall clocks (CLOCK_REALTIME, NTP-kept) can
 * be compared: the time is the other node's wall clock moved onto ours by
 * our own (wall - monotonic) offset, as good as the two nodes' clock
 * agreement, which is why it is said apart (`same` false).
 */
#ifndef NUNATAK_COMMON_HOST_CLOCK_H
#define NUNATAK_COMMON_HOST_CLOCK_H

#include <stdbool.h>

#define HOST_CLOCK_BOOT_ID_SIZE 40

struct host_clock {
	char boot_id[HOST_CLOCK_BOOT_ID_SIZE]; /* "" when /proc does not tell */
	double mono, real;                     /* seconds */
};

/* This kernel's boot id (/proc/sys/kernel/random/boot_id: its hex digits
 * and dashes) into out; 0, or -1 when unreadable or not an id (out ""). The
 * one reader of it: cache names per boot use it too. */
int host_boot_id(char out[HOST_CLOCK_BOOT_ID_SIZE]);

/* Both clocks now, and the kernel's boot id. */
void host_clock__now(struct host_clock *c);

/* The instant `t` (taken on its node) on the monotonic clock of `here` (taken
 * on this node, any instant: only its wall - monotonic offset is used).
 * *same: both share a kernel (exact); false: compared by wall clocks. A `t`
 * or `here` without a boot id compares by wall clocks. */
double host_clock__on(const struct host_clock *here, const struct host_clock *t, bool *same);

#endif
