/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A list of ranks in its own order as text, as the MPI probe writes a
 * communicator's members (src/mpi/probe/nunatak_mpi_colls.inc):
 * comma-separated `a`, `a-b` (a to b by 1, a < b) or `a-b:s` (a to b by s,
 * s > 0, b - a a multiple of s). "0-3", "2,0", "0-6:2,1".
 */
#ifndef NUNATAK_MODEL_RANK_LIST_H
#define NUNATAK_MODEL_RANK_LIST_H

#include <stddef.h>

/* Appends the ranks of text to (*v)[0..*nr) (grown with xgrow, capacity
 * *cap), never past limit ranks in all. Returns 0, -EINVAL (malformed, a
 * rank above INT32_MAX, or more than limit ranks) or -ENOMEM. */
int rank_list_append(const char *text, size_t limit, int **v, size_t *nr, size_t *cap);

/* The text of v[0..n) with runs of a constant step folded, caller frees;
 * NULL on ENOMEM. "" for n == 0. */
char *rank_list_format(const int *v, size_t n);

#endif
