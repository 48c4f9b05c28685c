/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Machine's profile: its Ceilings, from the cache when this identity was
 * calibrated before, else measured now (calibrate.h) and stored, else the
 * theoretical table's estimates. The one place that decides between them,
 * for `nunatak calibrate` and for the first Run on a Machine.
 *
 * Under replay the real cache is never read nor written: the recorded
 * Machine is not this one. When the recording's meta.json carries the
 * Machine with Ceilings (our own recordings: stage_calibrate annotates it),
 * those are the Ceilings; otherwise (the reference's corpus) the replay
 * consumes the recorded calibration invocations, the kernel "built" in a
 * temporary folder removed afterwards.
 */
#ifndef NUNATAK_MACHINE_PROFILE_H
#define NUNATAK_MACHINE_PROFILE_H

#include <stdbool.h>

#include "machine/calibrate.h"

struct err;
struct executor;
struct machine;

typedef void (*profile_announce_fn)(void *ctx, const char *message);

struct profile_opts {
	bool calibrate;          /* may calibrate when no profile is cached */
	bool force;              /* ignore a cached profile and calibrate */
	bool replay;             /* the executor replays a recording */
	const char *cc;          /* [tools] cc */
	const char *sampler_lib; /* libscope_profiler.so for its cost per sample, or NULL */
	double budget_s;         /* 0: CALIBRATION_DEFAULT_BUDGET_S */
	calibrate_progress_fn progress;
	profile_announce_fn announce; /* told before a calibration starts */
	const char *occasion;    /* why it calibrates: "first Run on it" (NULL), ... */
	void *ctx;               /* for progress and announce */
};

enum profile_source {
	PROFILE_CACHED,          /* Ceilings loaded from the cache */
	PROFILE_CALIBRATED,      /* measured now (possibly downgraded) */
	PROFILE_THEORY,          /* not calibrated: theory only (maybe nothing) */
	PROFILE_RECORDED,        /* replay: the Ceilings our own recording stored in
				    meta.json's machine (a Run that read them from
				    its cache recorded no calibration) */
};

struct profile_outcome {
	enum profile_source source;
	char *cache_path;        /* the profile loaded or written, else NULL */
	bool stored;
	char *not_stored;        /* why a calibration was not cached, or NULL */
	char *kept;              /* cached Ceilings kept over this calibration's
				    (machine_cache_keep_best), or NULL */
	bool calibrated;
	bool costs_added;        /* a cached profile got its missing cost per sample
				    (cal says how it went) */
	struct calibrate_report cal;
};
void profile_outcome__release(struct profile_outcome *o);

/* Fills m's Ceilings. Returns 0, or negative (out of memory) with e filled:
 * everything else (no cache directory, no compiler, a failed kernel) is an
 * outcome said in *out. */
int machine_profile(struct machine *m, struct executor *x, const struct profile_opts *o,
		    struct profile_outcome *out, struct err *e);

#endif
