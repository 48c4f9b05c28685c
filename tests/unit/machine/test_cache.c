// SPDX-License-Identifier: BSD-3-Clause
// Machine profile cache: directory from XDG_CACHE_HOME/HOME, store only with
// a measured Ceiling, atomic file named by identity, load of Ceilings only
// when kernel_version and identity match.
#include "machine/cache.h"

#include <jansson.h>

#include "common/alloc.h"
#include "common/err.h"
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "model/machine_identity.h"
#include "machine/snapshot.h"
#include "common/fsutil.h"

#define V2 TEST_SOURCE_DIR "/tests/golden/cgroup/v2"

#define TMPDIR_TAG "cache"
#include "tmpdir.h"

static void t_dir(void)
{
	struct err e = {0};
	char *top = tmpdir(), *want = NULL;
	/* the cache root is made private (0700) on the way */
	char *xdg = xasprintf("%s/x/cache", top);
	setenv("XDG_CACHE_HOME", xdg, 1);
	char *d = machine_cache_dir(&e);
	want = xasprintf("%s/nunatak/machines", xdg);
	CHECK_STR(d, want);
	struct stat st;
	char *root = xasprintf("%s/nunatak", xdg);
	CHECK(stat(root, &st) == 0 && (st.st_mode & 07777) == 0700);
	free(d);
	xfree(want);
	unsetenv("XDG_CACHE_HOME");
	char *home = xasprintf("%s/home/u", top);
	setenv("HOME", home, 1);
	d = machine_cache_dir(&e);
	want = xasprintf("%s/.cache/nunatak/machines", home);
	CHECK_STR(d, want);
	free(d);
	xfree(want);
	unsetenv("HOME");
	CHECK(machine_cache_dir(&e) == NULL);
	CHECK_STR(e.code, "machine.no_cache_dir");
	xfree(xdg);
	xfree(root);
	xfree(home);
	done();
}

static void t_store_load(void)
{
	char *dir = tmpdir(), *sub = fs_join(dir, "nunatak/machines"), *path = NULL;
	struct machine m, fresh;
	struct err e = {0};
	machine__init(&m);
	machine__init(&fresh);
	CHECK_INT(machine__snapshot_at(&m, V2, &e), 0);
	struct ceiling est = {(char *)"flops_dp", 5e11, (char *)"flop/s", QUALITY_ESTIMATED,
			      (char *)"theoretical peak"};
	CHECK_INT(machine__add_ceiling(&m, &est), 0);
	/* Estimated only: nothing stored (the reference's rule). */
	CHECK_INT(machine_cache_store(&m, sub, &path, &e), 0);
	CHECK(path == NULL);
	struct ceiling meas = {(char *)"dram_bandwidth", 1.0124e11, (char *)"byte/s",
			       QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(&m, &meas), 0);
	CHECK_INT(machine_cache_store(&m, sub, &path, &e), 1);
	char id[MACHINE_ID_SIZE], want[600];
	CHECK_INT(machine_identity(&m, id), 0);
	snprintf(want, sizeof(want), "%s/%s.json", sub, id);
	CHECK_STR(path, want);
	json_t *doc = json_load_file(path, 0, NULL);
	CHECK_INT(json_integer_value(json_object_get(doc, "kernel_version")), 0);
	CHECK(json_is_object(json_object_get(doc, "machine")));
	/* A fresh snapshot of the same Machine gets the Ceilings back. */
	CHECK_INT(machine__snapshot_at(&fresh, V2, &e), 0);
	CHECK_INT(machine_cache_load_ceilings(&fresh, sub, &e), 1);
	CHECK_INT(fresh.nr_ceilings, 2);
	CHECK_STR(fresh.ceilings[1].name, "dram_bandwidth");
	CHECK_INT(fresh.ceilings[1].quality, QUALITY_MEASURED);
	CHECK_NEAR(fresh.ceilings[1].value, 1.0124e11, 1);
	/* Another allocation shape is another Machine: no profile. */
	machine__release(&fresh);
	CHECK_INT(machine__snapshot_at(&fresh, TEST_SOURCE_DIR "/tests/golden/cgroup/v1", &e), 0);
	CHECK_INT(machine_cache_load_ceilings(&fresh, sub, &e), 0);
	CHECK_INT(fresh.nr_ceilings, 0);
	CHECK_STR(e.code, "machine.cache_absent");
	done();
}

static void t_stale_and_corrupt(void)
{
	char *dir = tmpdir(), *path = NULL;
	struct machine m;
	struct err e = {0};
	machine__init(&m);
	CHECK_INT(machine__snapshot_at(&m, V2, &e), 0);
	struct ceiling meas = {(char *)"flops_dp", 1e12, (char *)"flop/s", QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(&m, &meas), 0);
	CHECK_INT(machine_cache_store(&m, dir, &path, &e), 1);
	json_t *doc = json_load_file(path, 0, NULL);
	json_object_set_new(doc, "kernel_version", json_integer(7));
	CHECK_INT(json_dump_file(doc, path, 0), 0);
	machine__clear_ceilings(&m);
	CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 0);
	CHECK_STR(e.code, "machine.cache_stale");
	CHECK_INT(m.nr_ceilings, 0);
	CHECK_INT(fs_write_atomic(path, "{\"kernel_version\": 0, \"machine\": [", 33, &e), 0);
	CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 0);
	CHECK_STR(e.code, "machine.cache_corrupt");
	done();
}

/* A profile edited after it was stored (bandwidth -5 B/s "measured", the
 * issue's forgery), handed to another user, or sealed but implausible, is
 * never loaded: the Run gets no forged Ceiling. */
static void t_forged(void)
{
	char *dir = tmpdir(), *path = NULL;
	setenv("XDG_CACHE_HOME", dir, 1); /* the seal key lives there */
	struct machine m;
	struct err e = {0};
	machine__init(&m);
	CHECK_INT(machine__snapshot_at(&m, V2, &e), 0);
	struct ceiling bw = {(char *)"dram_bandwidth", 1e11, (char *)"B/s", QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(&m, &bw), 0);
	CHECK_INT(machine_cache_store(&m, dir, &path, &e), 1);
	machine__clear_ceilings(&m);
	CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 1); /* the control */
	machine__clear_ceilings(&m);
	char *text = NULL;
	CHECK_INT(fs_read_file(path, 1 << 20, &text, NULL), 0);
	char *at = strstr(text, "100000000000");
	CHECK(at != NULL);
	memcpy(at, "200000000000", 12); /* plausible, but not what was measured */
	CHECK_INT(fs_write_atomic(path, text, strlen(text), &e), 0);
	CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 0);
	CHECK_STR(e.code, "machine.cache_corrupt");
	CHECK(strstr(e.msg, "differs from what nunatak built or recorded"));
	CHECK_INT(m.nr_ceilings, 0);
	memcpy(at, "-00000000005", 12);
	CHECK_INT(fs_write_atomic(path, text, strlen(text), &e), 0);
	CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 0);
	CHECK_STR(e.code, "machine.cache_corrupt");
	CHECK_INT(m.nr_ceilings, 0);
	/* sealed by us, but no Machine measures 1e20 B/s */
	bw.value = 1e20;
	CHECK_INT(machine__add_ceiling(&m, &bw), 0);
	CHECK_INT(machine_cache_store(&m, dir, NULL, &e), 1);
	machine__clear_ceilings(&m);
	CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 0);
	CHECK(strstr(e.msg, "not a plausible measurement"));
	if (geteuid() == 0) { /* another user's file (uid 65534): refused */
		bw.value = 1e11;
		CHECK_INT(machine__add_ceiling(&m, &bw), 0);
		CHECK_INT(machine_cache_store(&m, dir, NULL, &e), 1);
		machine__clear_ceilings(&m);
		CHECK_INT(chown(path, 65534, 65534), 0);
		CHECK_INT(machine_cache_load_ceilings(&m, dir, &e), 0);
		CHECK(strstr(e.msg, "owned by another user"));
		CHECK_INT(m.nr_ceilings, 0);
	}
	unsetenv("XDG_CACHE_HOME");
	free(text);
	free(path);
	machine__release(&m);
	done();
}

static const struct test_case cases[] = {
	{"dir", "XDG_CACHE_HOME, then HOME/.cache, else a named error", t_dir},
	{"store_load", "measured profile stored by identity and loaded back", t_store_load},
	{"stale_and_corrupt", "other kernel_version or bad JSON is not loaded", t_stale_and_corrupt},
	{"forged", "an edited, another user's or implausible profile is not loaded", t_forged},
};
TEST_MAIN(cases)
