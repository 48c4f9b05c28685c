// SPDX-License-Identifier: BSD-3-Clause
#include "common/host_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* Both clocks and this kernel's boot id (a UUID) are read. */
static void t_now(void)
{
	struct host_clock a, b;
	host_clock__now(&a);
	host_clock__now(&b);
	CHECK(a.mono > 0 && a.real > 1e9);
	CHECK(b.mono >= a.mono && b.real >= a.real - 1.0);
	CHECK_INT((int)strlen(a.boot_id), 36);
	CHECK_STR(a.boot_id, b.boot_id);
}

/* The boot id as the kernel gives it, without its newline; the clocks'
 * boot id is the same one. */
static void t_boot_id(void)
{
	char id[HOST_CLOCK_BOOT_ID_SIZE], raw[64] = "";
	CHECK_INT(host_boot_id(id), 0);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	CHECK(f && fgets(raw, sizeof(raw), f));
	fclose(f);
	raw[strcspn(raw, "\n")] = '\0';
	CHECK_STR(id, raw);
	struct host_clock c;
	host_clock__now(&c);
	CHECK_STR(c.boot_id, id);
}

/* Same kernel: the other instant's monotonic time, exactly, whatever its
 * wall clock says (a wall clock stepped by NTP in between changes nothing). */
static void t_same_kernel(void)
{
	struct host_clock here = {.boot_id = "k1", .mono = 100.0, .real = 5000.0};
	struct host_clock t = {.boot_id = "k1", .mono = 103.25, .real = 9999.0};
	bool same = false;
	CHECK_NEAR(host_clock__on(&here, &t, &same), 103.25, 1e-12);
	CHECK(same);
}

/* Another kernel: its wall clock on ours by our offset (wall - monotonic);
 * a missing boot id on either side compares the same way. */
static void t_other_kernel(void)
{
	struct host_clock here = {.boot_id = "k1", .mono = 100.0, .real = 5000.0};
	struct host_clock t = {.boot_id = "k2", .mono = 7.0, .real = 5002.5};
	bool same = true;
	CHECK_NEAR(host_clock__on(&here, &t, &same), 102.5, 1e-9);
	CHECK(!same);
	struct host_clock anon = {.boot_id = "", .mono = 102.0, .real = 4999.0};
	same = true;
	CHECK_NEAR(host_clock__on(&here, &anon, &same), 99.0, 1e-9);
	CHECK(!same);
	struct host_clock nohere = {.boot_id = "", .mono = 100.0, .real = 5000.0};
	t.boot_id[0] = '\0';
	same = true;
	CHECK_NEAR(host_clock__on(&nohere, &t, &same), 102.5, 1e-9);
	CHECK(!same);
}

/* Real clocks read twice: either way of comparing gives the same instant
 * (within the time between the two reads). */
static void t_real(void)
{
	struct host_clock here, t;
	host_clock__now(&here);
	host_clock__now(&t);
	bool same;
	double exact = host_clock__on(&here, &t, &same);
	CHECK(same);
	CHECK_NEAR(exact, t.mono, 1e-12);
	t.boot_id[0] = '\0';
	double by_wall = host_clock__on(&here, &t, &same);
	CHECK(!same);
	CHECK_NEAR(by_wall, exact, 0.05);
}

static const struct test_case cases[] = {
	{"now", "both clocks and the boot id are read", t_now},
	{"boot_id", "the boot id, as the kernel gives it", t_boot_id},
	{"same_kernel", "same boot id: the monotonic time, exact", t_same_kernel},
	{"other_kernel", "another or unknown kernel: wall clocks compared", t_other_kernel},
	{"real", "the two ways agree on real clocks", t_real},
};
TEST_MAIN(cases)
