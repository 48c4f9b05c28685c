/* SPDX-License-Identifier: BSD-3-Clause */
/* The test-only counter backend (ctr_test_backend.c): a test program's
 * regions declare the work they did. */
#ifndef CTR_TEST_BACKEND_H
#define CTR_TEST_BACKEND_H

#include <stdint.h>

/* Adds to the calling thread's test::FLOP and test::DRAM_BYTES counts. */
void ctr_test_add(uint64_t flop, uint64_t dram_bytes);

#endif
