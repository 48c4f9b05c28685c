// SPDX-License-Identifier: BSD-3-Clause
/* The sentences of `nunatak compare`: notes, interval bases and reasons,
 * shared by the terminal table and the JSON document. */
#include "report/compare_text.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err_codes.h"

static const char *run_name(const struct compare_input *in, size_t i)
{
	const char *d = in->runs[i].dir, *s = strrchr(d, '/');
	return s && s[1] ? s + 1 : d;
}

char *compare_note_text(const struct compare_note *n, const struct compare_input *in)
{
	const char *la = in->runs[n->run_a].label, *lb = in->runs[n->run_b].label;
	const char *da = run_name(in, n->run_a), *db = run_name(in, n->run_b);
	const char *force = n->forced ? "compared anyway (--force): read every ratio with care"
				      : "compare Runs made alike, or pass --force to compare "
					"anyway with this flag";
	switch (n->kind) {
	case COMPARE_NOTE_MACHINE:
		return xasprintf("Runs from two Machines: %s (%s) ran on Machine %s, %s (%s) on "
				 "%s (hardware or allocation shape differ); %s", la, da,
				 n->a_value, lb, db, n->b_value, force);
	case COMPARE_NOTE_RANKS:
		return xasprintf("different rank counts: %s (%s) ran %s rank(s), %s (%s) ran %s; "
				 "ranks are matched by number; %s", la, da, n->a_value, lb, db,
				 n->b_value, force);
	case COMPARE_NOTE_TIME_BASE:
		return xasprintf("different time bases: %s (%s) sampled %s, %s (%s) sampled %s; "
				 "they measure different things and cannot be compared; record "
				 "both with the same collector", la, da, n->a_value, lb, db,
				 n->b_value);
	case COMPARE_NOTE_NO_SAMPLES:
		return xasprintf("%s (%s) holds no time-base sample: nothing to compare; check "
				 "its degradations with `nunatak report %s`", la, da, in->runs[n->run_a].dir);
	case COMPARE_NOTE_RATE:
		return xasprintf("sampling rates differ (%s Hz in %s, %s Hz in %s): normalised, "
				 "every time is samples x period in seconds", n->a_value, la,
				 n->b_value, lb);
	case COMPARE_NOTE_COUNTERS:
		return xasprintf("counters differ (%s: %s; %s: %s): only the time base is "
				 "compared", la, n->a_value, lb, n->b_value);
	case COMPARE_NOTE_BUILD_ID:
		return xasprintf("%s was rebuilt between %s and %s (build-ids %s): Hotspots "
				 "matched by module basename + function, lines not compared",
				 n->a_value, la, lb, n->b_value);
	case COMPARE_NOTE_RENAMED:
		return xasprintf("modules renamed between %s and %s (%s): Hotspots matched by "
				 "function name and source file: %s", la, lb, n->a_value, n->b_value);
	}
	return xstrdup("unknown note");
}

const char *compare_note_code(enum compare_note_kind k)
{
	/* Refusals are error codes (the --json error's code); flags are notes. */
	const char *const codes[] = {
		[COMPARE_NOTE_MACHINE] = ERR_COMPARE_MACHINE,
		[COMPARE_NOTE_RANKS] = ERR_COMPARE_RANKS,
		[COMPARE_NOTE_TIME_BASE] = ERR_COMPARE_TIME_BASE,
		[COMPARE_NOTE_NO_SAMPLES] = ERR_COMPARE_NO_SAMPLES,
		[COMPARE_NOTE_RATE] = "compare.sampling_rate",
		[COMPARE_NOTE_COUNTERS] = "compare.counters",
		[COMPARE_NOTE_BUILD_ID] = "compare.build_id",
		[COMPARE_NOTE_RENAMED] = "compare.renamed",
	};
	return codes[k];
}

const char *compare_basis_code(enum compare_basis b)
{
	static const char *const codes[] = {
		[COMPARE_BASIS_NONE] = "none",
		[COMPARE_BASIS_POISSON] = "poisson",
		[COMPARE_BASIS_SPREAD] = "spread",
		[COMPARE_BASIS_SPREAD_POISSON] = "spread+poisson",
		[COMPARE_BASIS_POOLED_POISSON] = "pooled-poisson",
	};
	return codes[b];
}

const char *compare_basis_text(enum compare_basis b)
{
	switch (b) {
	case COMPARE_BASIS_POISSON:
		return "exact conditional interval of two Poisson rates on the sample counts "
		       "(one Run per side), scaled by the sampling periods";
	case COMPARE_BASIS_SPREAD:
		return "run-to-run spread: Student t interval on the log times of the repeated "
		       "Runs (Welch; pooled when a side has one Run)";
	case COMPARE_BASIS_SPREAD_POISSON:
		return "run-to-run spread (t on log times), widened to the Poisson interval of "
		       "the summed sample counts, which was wider";
	case COMPARE_BASIS_POOLED_POISSON:
		return "Poisson interval on the sample counts summed over the Runs of each side";
	case COMPARE_BASIS_NONE:
		break;
	}
	return "no interval";
}

const char *compare_interval_reason(const struct compare_item *it)
{
	switch (it->basis) {
	case COMPARE_BASIS_POISSON:
		return "sampling error only: with one Run per side the run-to-run variation is "
		       "unknown; repeat the Runs (A1 A2 -- B1 B2) to include it";
	case COMPARE_BASIS_POOLED_POISSON:
		return "absent from some Runs, so their spread could not be used: sampling "
		       "error only";
	case COMPARE_BASIS_NONE:
		return it->a_samples < 0 || it->b_samples < 0
			       ? "a counted or traced time has no sampling error, and one Run "
				 "per side shows no run-to-run noise: repeat the Runs for an "
				 "interval"
			       : "no sample on either side";
	default:
		return NULL;
	}
}

const char *compare_verdict(const struct compare_item *it)
{
	if (it->ratio_quality == QUALITY_UNAVAILABLE)
		return "unavailable";
	if (it->status == COMPARE_NEW)
		return "new";
	if (it->status == COMPARE_VANISHED)
		return "vanished";
	if (it->interval_quality == QUALITY_UNAVAILABLE)
		return "no interval";
	if (!it->significant)
		return "no significant change";
	return it->direction > 0 ? "slower" : "faster";
}
