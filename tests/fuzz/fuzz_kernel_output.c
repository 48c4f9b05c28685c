// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the calibration kernel's output into one Ceiling.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "machine/calibrate.h"
#include "machine/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_output k;
	struct err e = {0};
	if (kernel_output_parse((const char *)data, size, &k, &e) != 0)
		return 0;
	struct pollution_ref p = {.theory = 1e9, .basis = "fuzz", .llc_bytes = 32 << 20};
	struct ceiling c;
	if (calibration_ceiling(&k, &p, &c) == 0) {
		/* A Ceiling is a positive finite maximum, estimated iff reasoned. */
		if (!(c.value > 0) || !isfinite(c.value) ||
		    (c.quality == QUALITY_ESTIMATED) != (c.reason != NULL))
			__builtin_trap();
		ceiling__release_strings(&c);
	}
	return 0;
}
