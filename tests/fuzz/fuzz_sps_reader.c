// SPDX-License-Identifier: BSD-3-Clause
// The .sps sample-file reader: any input parses or fails cleanly, and every
// sample of an accepted file can be read.
#include <stdint.h>

#include "common/err.h"
#include "ingest/sps_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sps_file f;
	struct err e = {0};
	if (sps_parse(data, size, "fuzz.sps", &f, &e) != 0)
		return 0;
	uint64_t sum = 0;
	for (int64_t i = 0; i < f.nr_samples; i++) {
		struct sps_sample s = sps_file__sample(&f, i);
		sum += s.address + (uint64_t)(s.region + 1) + (uint64_t)(s.module + 1);
	}
	for (int32_t i = 0; i < f.nr_modules; i++)
		sum += f.modules[i].load_address + f.modules[i].path_len;
	sps_file__release(&f);
	return sum == 42 ? 0 : 0;
}
