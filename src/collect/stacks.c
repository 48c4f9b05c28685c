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
	d->rate = sum / counted;
	double wr = (double)worst->with_fp / worst->sampled;
	if (d->rate >= threshold) {
		d->mode = STACKS_FP;
		snprintf(d->detail, sizeof(d->detail),
			 "fp: frame pointers in %.0f%% of the checked functions over %d module%s "
			 "(threshold %.0f%%)", d->rate * 100, counted, counted > 1 ? "s" : "",
			 threshold * 100);
		return;
	}
	d->mode = STACKS_NONE;
	snprintf(d->detail, sizeof(d->detail), "none: frame pointers in %.0f%% of the checked "
		 "functions, below the %.0f%% threshold; worst offender: %.200s (%.0f%%)",
		 d->rate * 100, threshold * 100, worst->path, wr * 100);
	snprintf(d->reason, sizeof(d->reason),
		 "no call stacks: frame pointers in %.0f%% of the checked functions, below the "
		 "%.0f%% threshold; worst offender: %.200s (%.0f%%)", d->rate * 100,
		 threshold * 100, worst->path, wr * 100);
}

void stacks_decision__release(struct stacks_decision *d)
{
	for (size_t i = 0; i < d->nr_modules; i++)
		xfree(d->modules[i].path);
	xfree(d->modules);
	d->modules = NULL;
	d->nr_modules = 0;
}
