// SPDX-License-Identifier: BSD-3-Clause
// Machine profile cache: directory from XDG_CACHE_HOME/HOME, store only with
// a measured Ceiling, atomic file named by identity, load of Ceilings only
// when kernel_version and identity match.
#include "machine/cache.h"

#include <jansson.h>

#include "common/err.h"
#include <ftw.h>
#include <sys/stat.h>

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
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	char *d = machine_cache_dir(&e);
	CHECK_STR(d, "/x/cache/nunatak/machines");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/u", 1);
	d = machine_cache_dir(&e);
	CHECK_STR(d, "/home/u/.cache/nunatak/machines");
	free(d);
	unsetenv("HOME");
	CHECK(machine_cache_dir(&e) == NULL);
	CHECK_STR(e.code, "machine.no_cache_dir");
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

static const struct test_case cases[] = {
	{"dir", "XDG_CACHE_HOME, then HOME/.cache, else a named error", t_dir},
	{"store_load", "measured profile stored by identity and loaded back", t_store_load},
	{"stale_and_corrupt", "other kernel_version or bad JSON is not loaded", t_stale_and_corrupt},
};
TEST_MAIN(cases)
