// SPDX-License-Identifier: BSD-3-Clause
#include "collect/stacks.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"

static const char *const mode_names[] = {"none", "fp", "lbr", "dwarf"};

const char *stacks_mode__name(enum stacks_mode m)
{
	return (unsigned)m < 4 ? mode_names[m] : "none";
}

int stacks_mode__parse(const char *s, enum stacks_mode *out)
{
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, mode_names[i])) {
			*out = (enum stacks_mode)i;
			return 0;
		}
	return -EINVAL;
}

void stacks_decide(struct stacks_decision *d, const char *cpu_model, bool objdump_ok,
		   double threshold)
{
	d->rate = -1;
	d->reason[0] = '\0';
	if (cpu_model && strstr(cpu_model, "Intel")) {
		d->mode = STACKS_LBR;
		snprintf(d->detail, sizeof(d->detail), "lbr (the CPU records last branches: %s)",
			 cpu_model);
		return;
	}
	if (!objdump_ok) {
		d->mode = STACKS_NONE;
		snprintf(d->detail, sizeof(d->detail), "none: GNU objdump not found");
		snprintf(d->reason, sizeof(d->reason),
			 "no call stacks: GNU objdump is needed to check the binaries for frame "
			 "pointers");
		return;
	}
	double sum = 0;
	int counted = 0;
	const struct stacks_module *worst = NULL;
	for (size_t i = 0; i < d->nr_modules; i++) {
		const struct stacks_module *m = &d->modules[i];
		if (m->sampled == 0)
			continue;
		double r = (double)m->with_fp / m->sampled;
		sum += r;
		counted++;
		if (!worst || r < (double)worst->with_fp / worst->sampled)
			worst = m;
	}
	if (!counted) {
		d->mode = STACKS_NONE;
		snprintf(d->detail, sizeof(d->detail),
			 "none: no function of %d bytes or more to check for frame pointers",
			 STACKS_MIN_SYMBOL);
		snprintf(d->reason, sizeof(d->reason),
			 "no call stacks: no function symbol large enough to check the binaries for "
			 "frame pointers (stripped?)");
		return;
	}
	/* Samples land mostly in the target's own code: its rate decides, when
	 * it could be checked (a -fno-omit-frame-pointer build is not refused
	 * for Debian's libc, issue 24); the libraries below the threshold are
	 * named as the modules that break the chain (after the Run, samples in
	 * their frameless code get an unknown caller, attrib/frameless.h). */
	const struct stacks_module *t = d->nr_modules ? &d->modules[0] : NULL;
	bool by_target = t && t->sampled > 0;
	d->rate = by_target ? (double)t->with_fp / t->sampled : sum / counted;
	double wr = (double)worst->with_fp / worst->sampled;
	char breaking[200] = "";
	size_t bl = 0;
	for (size_t i = by_target ? 1 : 0; i < d->nr_modules && bl < sizeof(breaking) - 1; i++) {
		const struct stacks_module *m = &d->modules[i];
		if (!m->sampled || (double)m->with_fp / m->sampled >= threshold)
			continue;
		const char *base = strrchr(m->path, '/');
		int w = snprintf(breaking + bl, sizeof(breaking) - bl, "%s%s %.0f%%", bl ? ", " : "",
				 base ? base + 1 : m->path, 100.0 * m->with_fp / m->sampled);
		bl = w > 0 ? bl + (size_t)w : bl;
	}
	if (bl >= sizeof(breaking))
		bl = sizeof(breaking) - 1;
	if (d->rate >= threshold) {
		d->mode = STACKS_FP;
		snprintf(d->detail, sizeof(d->detail),
			 "fp: frame pointers in %.0f%% of the checked functions %s (threshold "
			 "%.0f%%)%s%s", d->rate * 100, by_target ? "of the target" : "over its modules",
			 threshold * 100, bl ? "; modules that break the chain: " : "", breaking);
		return;
	}
	d->mode = STACKS_NONE;
	snprintf(d->detail, sizeof(d->detail), "none: frame pointers in %.0f%% of the checked "
		 "functions %s, below the %.0f%% threshold; worst offender: %.200s (%.0f%%)",
		 d->rate * 100, by_target ? "of the target" : "over its modules", threshold * 100,
		 by_target ? t->path : worst->path,
		 by_target ? d->rate * 100 : wr * 100);
	snprintf(d->reason, sizeof(d->reason),
		 "no call stacks: frame pointers in %.0f%% of the checked functions %s, below the "
		 "%.0f%% threshold; worst offender: %.200s (%.0f%%)", d->rate * 100,
		 by_target ? "of the target" : "over its modules", threshold * 100,
		 by_target ? t->path : worst->path, by_target ? d->rate * 100 : wr * 100);
}

void stacks_decision__release(struct stacks_decision *d)
{
	for (size_t i = 0; i < d->nr_modules; i++)
		xfree(d->modules[i].path);
	xfree(d->modules);
	d->modules = NULL;
	d->nr_modules = 0;
}
