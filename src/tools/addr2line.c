// SPDX-License-Identifier: BSD-3-Clause
#include "tools/addr2line.h"

#include <errno.h>
#include <string.h>

#include "common/alloc.h"
#include "tools/symbolizer.h"
#include <stdlib.h>
#include "common/err.h"
#include "common/err_codes.h"
#include "common/text.h"
#include "tools/symbolizer_parse.h"

int addr2line__call(struct symbolizer_call *k, const char *path, const char *module,
		    const uint64_t *addrs, size_t n, bool argv_ok)
{
	const char *fixed[] = {path, "-e", module, "-a", "-f", "-C", "-i"};
	size_t nf = sizeof(fixed) / sizeof(fixed[0]);
	k->argv = xcalloc(nf + n + 1, sizeof(*k->argv));
	if (!k->argv)
		return -ENOMEM;
	memcpy(k->argv, fixed, sizeof(fixed));
	return symbolizer_call__addresses(k, nf, addrs, n, argv_ok);
}

static bool is_address_line(const char *s, size_t n, uint64_t *addr)
{
	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	uint64_t v = 0;
	for (size_t i = 2; i < n; i++) {
		int c = s[i], d = c >= '0' && c <= '9' ? c - '0'
				 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*addr = v;
	return true;
}

/* "file:line" or "file:line (discriminator N)" or "??:0" / "??:?". */
static int a2l_position(struct attrib_frame *f, const char *s, size_t n)
{
	const char *disc = memmem(s, n, " (discriminator", 15);
	if (disc)
		n = (size_t)(disc - s);
	const char *colon = NULL;
	for (size_t i = n; i > 0; i--)
		if (s[i - 1] == ':') {
			colon = s + i - 1;
			break;
		}
	size_t flen = colon ? (size_t)(colon - s) : n;
	if (colon) {
		long line = text_long_in(colon + 1, n - (size_t)(colon + 1 - s));
		f->line = line > 0 && line < 1000000000 ? (int)line : 0;
	}
	if (flen && !(flen == 2 && s[0] == '?' && s[1] == '?')) {
		f->file = xstrndup(s, flen);
		if (!f->file)
			return -ENOMEM;
	}
	if (!f->file)
		f->line = 0;
	return 0;
}

int addr2line__parse(const char *text, size_t len, struct attrib_chains *out, struct err *e)
{
	size_t pos = 0, lineno = 0;
	const char *s;
	size_t n;
	struct attrib_chain *c = NULL;
	while (text_next_line_in(text, len, &pos, &s, &n)) {
		lineno++;
		uint64_t addr;
		if (is_address_line(s, n, &addr)) {
			if (!(c = attrib_chains__push(out)))
				return -ENOMEM;
			c->address = addr;
			continue;
		}
		if (!c)
			return err_set(e, -EINVAL, ERR_ADDR2LINE_OUTPUT,
				       "addr2line output, line %zu: expected an address 0x…", lineno);
		const char *ps;
		size_t pn;
		if (!text_next_line_in(text, len, &pos, &ps, &pn))
			return err_set(e, -EINVAL, ERR_ADDR2LINE_OUTPUT,
				       "addr2line output, line %zu: function without a position",
				       lineno);
		lineno++;
		if (n == 2 && s[0] == '?' && s[1] == '?')
			continue; /* unknown function: the frame is dropped */
		struct attrib_frame f = {0};
		f.function = xstrndup(s, n);
		if (!f.function || a2l_position(&f, ps, pn) || attrib_chain__push_frame(c, &f)) {
			xfree(f.function);
			xfree(f.file);
			return -ENOMEM;
		}
	}
	return 0;
}
