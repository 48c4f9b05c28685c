// SPDX-License-Identifier: BSD-3-Clause
#include "common/json_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest "%.{p}g" of v that strtod reads back as v, with ".0" kept
 * when it would otherwise read as an integer. Returns its length. */
static size_t shortest(double v, char *out, size_t cap)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(out, cap, "%.*g", p, v);
		if (strtod(out, NULL) == v)
			break;
	}
	if (!strpbrk(out, ".eEn")) /* "1" -> "1.0": still a real (n: nan/inf never occur) */
		strncat(out, ".0", cap - strlen(out) - 1);
	return strlen(out);
}

void json_text_shortest_reals(char *text)
{
	char *w = text;
	bool in_string = false;
	for (const char *r = text; *r;) {
		if (in_string) {
			if (*r == '\\' && r[1]) {
				*w++ = *r++;
			} else if (*r == '"') {
				in_string = false;
			}
			*w++ = *r++;
			continue;
		}
		if (*r == '"') {
			in_string = true;
			*w++ = *r++;
			continue;
		}
		if (*r != '-' && (*r < '0' || *r > '9')) {
			*w++ = *r++;
			continue;
		}
		size_t n = strspn(r, "-+0123456789.eE");
		char tok[64], best[64];
		bool real = memchr(r, '.', n) || memchr(r, 'e', n) || memchr(r, 'E', n);
		if (n >= sizeof(tok) || !real) {
			memmove(w, r, n);
			w += n;
			r += n;
			continue;
		}
		memcpy(tok, r, n);
		tok[n] = '\0';
		size_t m = shortest(strtod(tok, NULL), best, sizeof(best));
		if (m > n) { /* never: keep the original */
			memcpy(best, tok, n + 1);
			m = n;
		}
		memcpy(w, best, m);
		w += m;
		r += n;
	}
	*w = '\0';
}
