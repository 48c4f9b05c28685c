/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CSV fields as RFC 4180 writes them, shared by every CSV table of report/
 * (regions summary and counters rows, the roofline export). A file of its
 * own so that the tables' files need not reach each other for it.
 */
#ifndef NUNATAK_REPORT_CSV_H
#define NUNATAK_REPORT_CSV_H

#include <stdio.h>

/* Writes s as one field: bare, or quoted with inner quotes doubled when it
 * holds a comma, a quote or a line break. */
void csv_put_field(FILE *out, const char *s);

#endif
