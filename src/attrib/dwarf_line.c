// SPDX-License-Identifier: BSD-3-Clause
/*
 * Does a .debug_line section carry DWARF 5 MD5 file checksums? Only then can
 * `llvm-dwarfdump --debug-line` tell attribution anything (source extracts are
 * checked against those checksums), so a module without them is never handed
 * to it: one process less per module. Reads the unit headers only, up to each
 * unit's file-name entry format; anything it does not understand answers
 * "unknown" and the tool still runs (never a lost checksum).
 */
#include "attrib/dwarf_line.h"

#include <stdbool.h>

struct cur {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static uint64_t take(struct cur *c, size_t n)
{
	uint64_t v = 0;
	if (c->bad || n > c->len - c->off) {
		c->bad = true;
		return 0;
	}
	for (size_t i = n; i-- > 0;)
		v = v << 8 | c->p[c->off + i];
	c->off += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; !c->bad; shift += 7) {
		uint64_t b = take(c, 1);
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Skips one attribute value of `form` (the forms DWARF 5 allows in a line
 * table header); false for a form it does not know. */
static bool skip_form(struct cur *c, uint64_t form, size_t offsz)
{
	switch (form) {
	case 0x08: /* string */
		while (!c->bad && take(c, 1) != 0)
			;
		return true;
	case 0x0e: case 0x1f: case 0x17: /* strp, line_strp, sec_offset */
		take(c, offsz);
		return true;
	case 0x0f: case 0x1a: /* udata, strx */
		uleb(c);
		return true;
	case 0x0b: case 0x25: take(c, 1); return true; /* data1, strx1 */
	case 0x05: case 0x26: take(c, 2); return true; /* data2, strx2 */
	case 0x27: take(c, 3); return true;            /* strx3 */
	case 0x06: case 0x28: take(c, 4); return true; /* data4, strx4 */
	case 0x07: take(c, 8); return true;            /* data8 */
	case 0x1e: take(c, 16); return true;           /* data16 */
	case 0x09: { /* block */
		uint64_t n = uleb(c);
		if (n > c->len - c->off)
			c->bad = true;
		else
			c->off += n;
		return true;
	}
	default:
		return false;
	}
}

#define DW_LNCT_MD5 5

/* One unit's header from c->off; 1 MD5, 0 none, -1 unknown. */
static int unit_md5(struct cur *c, uint16_t version, size_t offsz)
{
	if (version < 5)
		return 0; /* no checksums before DWARF 5 */
	if (version > 5)
		return -1;
	take(c, 2);      /* address_size, segment_selector_size */
	take(c, offsz);  /* header_length */
	take(c, 5);      /* min_inst_length, max_ops, default_is_stmt, line_base, line_range */
	uint64_t opcode_base = take(c, 1);
	if (opcode_base > 1 && opcode_base - 1 > c->len - c->off)
		c->bad = true;
	else if (opcode_base > 1)
		c->off += opcode_base - 1;
	uint64_t nfmt = take(c, 1), forms[32];
	if (nfmt > 16)
		return -1;
	for (uint64_t i = 0; i < nfmt; i++) {
		uleb(c);
		forms[i] = uleb(c);
	}
	uint64_t ndirs = uleb(c);
	for (uint64_t d = 0; d < ndirs && !c->bad; d++)
		for (uint64_t i = 0; i < nfmt; i++)
			if (!skip_form(c, forms[i], offsz))
				return -1;
	uint64_t nfile = take(c, 1);
	for (uint64_t i = 0; i < nfile && !c->bad; i++) {
		if (uleb(c) == DW_LNCT_MD5)
			return 1;
		uleb(c);
	}
	return c->bad ? -1 : 0;
}

int dwarf_line_md5(const uint8_t *p, size_t len)
{
	struct cur c = {.p = p, .len = len};
	while (c.off < len) {
		uint64_t ulen = take(&c, 4);
		size_t offsz = 4;
		if (ulen == 0xffffffffu) {
			ulen = take(&c, 8);
			offsz = 8;
		}
		if (c.bad || ulen < 2 || ulen > len - c.off)
			return -1;
		size_t end = c.off + ulen;
		struct cur u = {.p = p, .len = end, .off = c.off};
		int r = unit_md5(&u, (uint16_t)take(&u, 2), offsz);
		if (r != 0)
			return r;
		c.off = end;
	}
	return 0;
}
