// SPDX-License-Identifier: BSD-3-Clause
// Machine profile cache: directory from XDG_CACHE_HOME/HOME, store only with
// a measured Ceiling, atomic file named by identity, load of Ceilings only
// when kernel_version and identity match.
#include "machine/cache.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "common/alloc.h"
#include "common/err.h"
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "model/machine_identity.h"
#include "machine/free_cpus.h"
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
	/* The theoretical table only: nothing stored (nothing was calibrated). */
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

static const struct ceiling *named(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (!strcmp(m->ceilings[i].name, name))
			return &m->ceilings[i];
	return NULL;
}

/* Issue 24: a calibration on a busy Machine is kept (estimated, with its
 * reasons), so the next Run reads it instead of recalibrating; a later
 * calibration raises it when it measures higher, never lowers it. */
static void t_busy_kept_then_raised(void)
{
	char *dir = tmpdir(), *path = NULL, *note = NULL;
	struct machine m, next;
	struct err e = {0};
	machine__init(&m);
	machine__init(&next);
	CHECK_INT(machine__snapshot_at(&m, V2, &e), 0);
	struct ceiling busy = {(char *)"flops_dp", 4e10, (char *)"flop/s", QUALITY_ESTIMATED,
			       (char *)"concurrent load: the kernel's 2 threads obtained 48% of "
				       "their CPUs"};
	struct ceiling bw = {(char *)"dram_bandwidth", 2e10, (char *)"B/s", QUALITY_ESTIMATED,
			     (char *)"measured on 1 of 2 allocated cores (the others were busy): "
				     "a lower bound"};
	CHECK_INT(machine__add_ceiling(&m, &busy), 0);
	CHECK_INT(machine__add_ceiling(&m, &bw), 0);
	CHECK_INT(machine_cache_store(&m, dir, &path, &e), 1);
	/* The next Run reads it: estimated, the reason kept. */
	CHECK_INT(machine__snapshot_at(&next, V2, &e), 0);
	CHECK_INT(machine_cache_load_ceilings(&next, dir, &e), 1);
	CHECK_INT(named(&next, "flops_dp")->quality, QUALITY_ESTIMATED);
	CHECK(strstr(named(&next, "flops_dp")->reason, "concurrent load"));
	/* A later, quiet calibration measures flops_dp higher (raised, measured)
	 * and the bandwidth lower but estimated again (the cached 2e10 stays). */
	machine__clear_ceilings(&next);
	struct ceiling quiet = {(char *)"flops_dp", 8e10, (char *)"flop/s", QUALITY_MEASURED, NULL};
	struct ceiling low = {(char *)"dram_bandwidth", 1e10, (char *)"B/s", QUALITY_ESTIMATED,
			      (char *)"repetitions disperse by 30%"};
	CHECK_INT(machine__add_ceiling(&next, &quiet), 0);
	CHECK_INT(machine__add_ceiling(&next, &low), 0);
	CHECK_INT(machine_cache_keep_best(&next, dir, &note, &e), 1);
	CHECK(named(&next, "flops_dp")->value == 8e10);
	CHECK_INT(named(&next, "flops_dp")->quality, QUALITY_MEASURED);
	CHECK(named(&next, "dram_bandwidth")->value == 2e10);
	CHECK(strstr(named(&next, "dram_bandwidth")->reason, "a lower bound"));
	CHECK_STR(note, "dram_bandwidth: kept the cached 2e+10 B/s (estimated), above this "
			"calibration's 1e+10 (estimated)");
	free(note);
	CHECK_INT(machine_cache_store(&next, dir, NULL, &e), 1);
	/* A measured Ceiling is never displaced by a higher estimated one. */
	machine__clear_ceilings(&next);
	struct ceiling odd = {(char *)"flops_dp", 9e10, (char *)"flop/s", QUALITY_ESTIMATED,
			      (char *)"repetitions disperse by 40%"};
	CHECK_INT(machine__add_ceiling(&next, &odd), 0);
	CHECK_INT(machine_cache_keep_best(&next, dir, &note, &e), 1);
	CHECK(named(&next, "flops_dp")->value == 8e10);
	CHECK(strstr(note, "flops_dp: kept the cached 8e+10 flop/s (measured), more trustworthy "
			   "than this calibration's 9e+10 (estimated)"));
	free(note);
	machine__release(&m);
	machine__release(&next);
	free(path);
	done();
}

/* Two /proc/stat snapshots: cpu1 busy (10% idle), cpu0 idle (95%). */
static void t_free_cpus(void)
{
	const char *a = "cpu  100 0 100 1000 0 0 0 0 0 0\n"
			"cpu0 50 0 50 500 0 0 0 0 0 0\n"
			"cpu1 50 0 50 500 0 0 0 0 0 0\nintr 1\n";
	const char *b = "cpu  100 0 100 1000 0 0 0 0 0 0\n"
			"cpu0 52 0 53 590 5 0 0 0 0 0\n"
			"cpu1 140 0 50 510 0 0 0 0 0 0\nintr 1\n";
	int cpus[3] = {0, 1, 7};
	double idle[3];
	CHECK_INT(cpu_idle_fractions(a, b, cpus, 3, idle), 0);
	CHECK_NEAR(idle[0], 0.95, 1e-9);
	CHECK_NEAR(idle[1], 0.1, 1e-9);
	CHECK(isnan(idle[2]));
	CHECK_INT(cpu_idle_fractions("cpu 1 2 3\n", b, cpus, 3, idle), -EINVAL);
	/* Live: whatever the load, at most the allocated CPUs, each allowed. */
	struct machine m;
	struct err e = {0};
	machine__init(&m);
	CHECK_INT(machine__snapshot(&m, NULL, &e), 0);
	int got[1024];
	int n = machine_free_cpus("/", &m, 0.05, got, 1024);
	double cores = 0;
	CHECK(machine__allocated_cores(&m, &cores));
	CHECK(n >= 0 && n <= (int)(cores + 0.999));
	machine__release(&m);
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
	{"busy_kept_then_raised", "an estimated calibration is cached, raised by a better one",
	 t_busy_kept_then_raised},
	{"free_cpus", "idle fractions from /proc/stat; free CPUs of the allocation", t_free_cpus},
	{"dir", "XDG_CACHE_HOME, then HOME/.cache, else a named error", t_dir},
	{"store_load", "measured profile stored by identity and loaded back", t_store_load},
	{"stale_and_corrupt", "other kernel_version or bad JSON is not loaded", t_stale_and_corrupt},
	{"forged", "an edited, another user's or implausible profile is not loaded", t_forged},
};
TEST_MAIN(cases)
