/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON text finishing touches jansson lacks: every real written in its
 * shortest form that reads back to the same double (0.8, not the
 * 0.80000000000000004 of jansson's %.17g), as Python's repr does.
 */
#ifndef NUNATAK_COMMON_JSON_TEXT_H
#define NUNATAK_COMMON_JSON_TEXT_H

/* Rewrites, in place, every number token of a JSON text that has a fraction
 * or an exponent (strings are left alone). Never lengthens the text. */
void json_text_shortest_reals(char *text);

#endif
