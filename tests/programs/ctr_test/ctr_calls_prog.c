/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each call's counts (the trace's 'CCAL' section), with known counts from
 * the test-only counter backend (ctr_test_backend.c), driven by
 * tests/e2e/lib_counter_calls.sh under
 * SCOPE_PROFILER_EVENTS=test::FLOP,test::DRAM_BYTES:
 *   ctr_calls_prog N   main thread: N calls of "step", call i (from 0)
 *                      counting i + 1 flop and 3 (i + 1) bytes; every 4th
 *                      call holds a call of "inner" counting 1000 flop and
 *                      0 bytes (so that "step" call counts 1000 more flop,
 *                      inclusive). Then one call of "outer" closed while
 *                      "inner" is still open (the library discards the
 *                      inner call): "outer" counts 5 + 7 flop, 0 bytes.
 *                      A second thread: 10 calls of "work", call j
 *                      counting 100 (j + 1) flop and 1 byte.
 * N above 16384 spans several of a thread's call buffers (flushed to the
 * unfinished trace between them). Prints "done".
 *   ctr_calls_prog N exit   the "step" loop, then _exit(0) without
 *                           finalizing: the unfinished trace holds every
 *                           full buffer's calls, each followed by their
 *                           counts' frame.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scope_profiler.h>

#include "ctr_test_backend.h"

static void *worker(void *arg)
{
	(void)arg;
	const struct sp_site *w = sp_region("work");
	for (uint64_t j = 0; j < 10; j++) {
		sp_begin(w);
		ctr_test_add(100 * (j + 1), 1);
		sp_end(w);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ctr_calls_prog N\n");
		return 2;
	}
	uint64_t n = strtoull(argv[1], NULL, 10);
	const struct sp_site *step = sp_region("step"), *inner = sp_region("inner"),
			     *outer = sp_region("outer");
	for (uint64_t i = 0; i < n; i++) {
		sp_begin(step);
		ctr_test_add(i + 1, 3 * (i + 1));
		if (i % 4 == 0) {
			sp_begin(inner);
			ctr_test_add(1000, 0);
			sp_end(inner);
		}
		sp_end(step);
	}
	if (argc > 2 && strcmp(argv[2], "exit") == 0) {
		printf("done\n");
		fflush(stdout);
		_exit(0);
	}
	sp_begin(outer);
	ctr_test_add(5, 0);
	sp_begin(inner);
	ctr_test_add(7, 0);
	sp_end(outer); /* inner still open: discarded, outer recorded */
	pthread_t th;
	if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, NULL) != 0) {
		perror("pthread");
		return 2;
	}
	sp_finalize();
	printf("done\n");
	return 0;
}
