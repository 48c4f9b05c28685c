// SPDX-License-Identifier: BSD-3-Clause
// The profile decision on a live snapshot with a temporary cache: calibrate
// (the recorded EPYC outputs served by the replay executor) and store, then
// answer from the cache without calibrating; --force measures again; a
// polluted or failed calibration is not stored; no calibration when not
// allowed. Never the user's cache: XDG_CACHE_HOME is a fresh directory.
#include "machine/profile.h"

#include <ftw.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "machine/cache.h"
#include "machine/snapshot.h"

#define TMPDIR_TAG "profile"
#include "tmpdir.h"

#define CAL TEST_CORPUS_DIR "/recordings/calibration/v0/linux-x86_64/epyc-7702"
#define NOCAL TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c"

static struct executor *replay(const char *entry)
{
	struct err e = {0};
	struct executor *x = executor__new_replay(entry, &e);
	CHECK(x != NULL);
	return x;
}

static const struct ceiling *find(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (!strcmp(m->ceilings[i].name, name))
			return &m->ceilings[i];
	return NULL;
}

static void live(struct machine *m)
{
	struct err e = {0};
	machine__init(m);
	CHECK(machine__snapshot(m, NULL, &e) == 0);
}

/* A fresh cache (XDG_CACHE_HOME = *cache_out) holding the profile of m, live,
 * calibrated from the recorded EPYC outputs and stored: its path. */
static char *calibrated_cache(struct machine *m, char **cache_out)
{
	char *cache = tmpdir();
	setenv("XDG_CACHE_HOME", cache, 1);
	live(m);
	struct executor *x = replay(CAL);
	struct profile_opts o = {.calibrate = true};
	struct profile_outcome po;
	struct err e = {0};
	CHECK_INT(machine_profile(m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CALIBRATED && po.calibrated && po.stored);
	CHECK(strncmp(po.cache_path, cache, strlen(cache)) == 0);
	CHECK(find(m, "dram_bandwidth")->value == 1.012428e11);
	char *path = xstrdup(po.cache_path);
	profile_outcome__release(&po);
	executor__free(x);
	*cache_out = cache;
	return path;
}

static void t_store_then_cached(void)
{
	char *cache;
	struct machine m;
	char *path = calibrated_cache(&m, &cache);
	machine__release(&m);
	struct profile_opts o = {.calibrate = true};
	struct profile_outcome po;
	struct err e = {0};
	struct executor *x;

	/* Second time: from the cache; the executor (a recording with no
	 * compiler) is never asked anything. */
	live(&m);
	x = replay(NOCAL);
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CACHED && !po.calibrated);
	CHECK_STR(po.cache_path, path);
	CHECK(find(&m, "dram_bandwidth")->value == 1.012428e11);
	CHECK(find(&m, "flops_dp")->quality == QUALITY_MEASURED);
	profile_outcome__release(&po);

	/* --force measures again: here no compiler answers, so nothing is
	 * measured, nothing is stored, and the old profile stays: a Ceiling is
	 * a maximum, the cached ones are kept and said. */
	machine__release(&m);
	live(&m);
	o.force = true;
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CALIBRATED && !po.stored);
	CHECK(strstr(po.cal.problem, "no C compiler answered"));
	CHECK(!strncmp(po.not_stored, "no kernel answered (no C compiler answered", 42));
	CHECK(find(&m, "dram_bandwidth")->value == 1.012428e11);
	CHECK(po.kept && strstr(po.kept, "dram_bandwidth: kept the cached 1.012e+11 B/s (measured), "
					 "which this calibration did not measure"));
	struct stat st;
	CHECK(stat(path, &st) == 0);
	profile_outcome__release(&po);
	executor__free(x);
	machine__release(&m);
	free(path);
	free(cache);
	done();
}

static void t_not_allowed(void)
{
	char *cache = tmpdir();
	setenv("XDG_CACHE_HOME", cache, 1);
	struct machine m;
	live(&m);
	struct executor *x = replay(CAL);
	struct profile_opts o = {.calibrate = false};
	struct profile_outcome po;
	struct err e = {0};
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_THEORY && !po.calibrated && !po.stored);
	CHECK(find(&m, "dram_bandwidth") == NULL); /* never a theoretical bandwidth */
	profile_outcome__release(&po);
	executor__free(x);
	machine__release(&m);
	free(cache);
	done();
}

/* A profile cached before the cost per sample was measured with the
 * Ceilings (no "costs"): the next Run that may calibrate measures that cost
 * alone, once (the real kernel, built by the real compiler), keeps the
 * cached Ceilings as they were and stores the costs beside them; the Run
 * after reads both from the cache. */
static void t_costs_added(void)
{
	char *cache;
	struct machine m;
	char *dir = calibrated_cache(&m, &cache);
	*strrchr(dir, '/') = '\0';
	struct profile_opts o = {.calibrate = true};
	struct profile_outcome po;
	struct err e = {0};
	struct executor *x;
	/* the profile as an older nunatak wrote it */
	machine__clear_costs(&m);
	CHECK(machine_cache_store(&m, dir, NULL, &e) == 1);
	machine__release(&m);

	/* not allowed to calibrate: the old profile is read as it is */
	live(&m);
	x = executor__new_real();
	o.calibrate = false;
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CACHED && !po.costs_added);
	CHECK_INT((int)m.nr_costs, 0);
	profile_outcome__release(&po);
	machine__release(&m);

	live(&m);
	o.calibrate = true;
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CACHED && !po.calibrated && po.costs_added);
	CHECK(find(&m, "dram_bandwidth")->value == 1.012428e11); /* the Ceilings stay */
	CHECK(find(&m, "flops_dp")->quality == QUALITY_MEASURED);
	CHECK_INT((int)m.nr_costs, 3);
	bool any = false;
	for (size_t i = 0; i < m.nr_costs; i++) {
		any |= m.costs[i].quality != QUALITY_UNAVAILABLE;
		CHECK(m.costs[i].quality != QUALITY_UNAVAILABLE || m.costs[i].reason);
	}
	if (!any) { /* no compiler or no perf_event_open here: said, not stored */
		CHECK(!po.stored && po.not_stored);
		profile_outcome__release(&po);
		executor__free(x);
		machine__release(&m);
		free(dir);
		free(cache);
		SKIP("no cost per sample could be measured here (no C compiler or no "
		     "perf_event_open): only the unavailable path was checked");
	}
	CHECK(po.stored);
	profile_outcome__release(&po);
	machine__release(&m);

	/* the next Run: everything from the cache, nothing measured */
	live(&m);
	CHECK_INT(machine_profile(&m, x, &o, &po, &e), 0);
	CHECK(po.source == PROFILE_CACHED && !po.costs_added && !po.calibrated);
	CHECK_INT((int)m.nr_costs, 3);
	CHECK(find(&m, "dram_bandwidth")->value == 1.012428e11);
	profile_outcome__release(&po);
	machine__release(&m);

	executor__free(x);
	free(dir);
	free(cache);
	done();
}

static const struct test_case cases[] = {
	{"store_then_cached", "calibrated and stored, then cached; --force measures again",
	 t_store_then_cached},
	{"not_allowed", "no calibration when not allowed: theory only", t_not_allowed},
	{"costs_added", "an old cached profile gets its cost per sample once", t_costs_added},
};
TEST_MAIN(cases)
