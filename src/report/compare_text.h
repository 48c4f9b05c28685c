/* SPDX-License-Identifier: BSD-3-Clause */
/* The words of `nunatak compare` (internal to src/report/compare_*.c). */
#ifndef NUNATAK_REPORT_COMPARE_TEXT_H
#define NUNATAK_REPORT_COMPARE_TEXT_H

#include "report/compare_view.h"

/* Stable tokens for JSON: "compare.machine" ...; "poisson", "spread" ... */
const char *compare_note_code(enum compare_note_kind k);
const char *compare_basis_code(enum compare_basis b);
/* One sentence describing how the interval was computed. */
const char *compare_basis_text(enum compare_basis b);
/* Why the interval is estimated or unavailable; NULL when measured. */
const char *compare_interval_reason(const struct compare_item *it);
/* "slower", "faster", "no significant change", "new", "vanished", "no interval". */
const char *compare_verdict(const struct compare_item *it);

#endif
