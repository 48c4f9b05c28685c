/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP view (analysis/openmp.h computes it): the payload's `openmp`
 * {runtime, method, regions[{name, file, line, time_ns, threads[{thread,
 * tid, work_ns, wait_ns}]}]} (null without an OpenMP runtime) and the
 * summary's line "OpenMP (libgomp): thread 1 waits 66.0% of region
 * `solver.c:120` at its barrier".
 */
#ifndef NUNATAK_REPORT_OPENMP_VIEW_H
#define NUNATAK_REPORT_OPENMP_VIEW_H

typedef struct json_t json_t;
struct omp_view;
struct pivot;
struct text_lines;

json_t *openmp_view_payload(const struct omp_view *v, const struct pivot *p);
int openmp_view_lines(const struct omp_view *v, struct text_lines *out);

#endif
