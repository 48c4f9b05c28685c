/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perf died by a signal: was perf killed, or did it re-raise its
 * application's? perf record and perf stat wait for the application they
 * started and, when it died by signal N, finish their output and then kill
 * themselves with N. If the application left processes behind (Open MPI's
 * singleton orted, a daemon), the execution boundary adopts one of those as
 * "the orphan perf left" (exec_result.wrapper_signal) and would report its
 * status as the application's and blame perf. perf's finished output tells
 * the two apart: a killed perf never finalises it.
 */
#ifndef NUNATAK_COLLECT_PERF_EXIT_H
#define NUNATAK_COLLECT_PERF_EXIT_H

#include <stdbool.h>

struct exec_result;

/* perf record finished this perf.data: its header holds the data size,
 * which perf writes only at the end. */
bool perf_data_finished(const char *path);

/* When res says perf died by signal N after an orphan was adopted, and
 * perf's output is finished (finished == true), the signal was the
 * application's: res becomes "the application died by N" (exit 128+N,
 * term_signal N, no wrapper_signal). Returns whether it did. */
bool perf_exit_reraised(struct exec_result *res, bool finished);

#endif
