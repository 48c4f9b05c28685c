// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/dwarf_producer.h"

#include <stdbool.h>
#include <string.h>

#define DW_AT_producer 0x25

struct cur {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

static uint64_t fixed(struct cur *c, size_t n)
{
	uint64_t v = 0;
	if (c->bad || c->at > c->len || n > c->len - c->at) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->at + i] << (8 * i);
	c->at += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (int shift = 0; !c->bad; shift += 7) {
		if (c->at >= c->len || shift > 63) {
			c->bad = true;
			break;
		}
		uint8_t b = c->p[c->at++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

/* The string at off of a string section, NULL when out of it. */
static const char *str_in(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, '\0', len - off))
		return NULL;
	return (const char *)sec + off;
}

/* The string of index i of the first .debug_str_offsets contribution. */
static const char *strx(const struct dwarf_sections *d, uint64_t i, size_t offsz)
{
	size_t hdr = offsz == 8 ? 16 : 8;
	struct cur o = {.p = d->str_offsets, .len = d->str_offsets ? d->str_offsets_len : 0};
	if (i > (o.len - (o.len < hdr ? o.len : hdr)) / offsz)
		return NULL;
	o.at = hdr + (size_t)i * offsz;
	uint64_t off = fixed(&o, offsz);
	return o.bad ? NULL : str_in(d->str, d->str_len, off);
}

/* Skips one attribute value of form; false for a form not known here. */
static bool skip(struct cur *c, uint64_t form, size_t offsz, size_t addrsz)
{
	static const struct { uint8_t form, size; } sizes[] = {
		{0x0b, 1}, {0x05, 2}, {0x06, 4}, {0x07, 8}, {0x1e, 16}, {0x0c, 1}, {0x11, 1},
		{0x12, 2}, {0x13, 4}, {0x14, 8}, {0x25, 1}, {0x26, 2}, {0x27, 3}, {0x28, 4},
		{0x29, 1}, {0x2a, 2}, {0x2b, 3}, {0x2c, 4}, {0x19, 0}, {0x21, 0}};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i].form == form)
			return fixed(c, sizes[i].size), !c->bad;
	switch (form) {
	case 0x0e: case 0x1f: case 0x17: case 0x10: case 0x1d: case 0x1c:
		return fixed(c, offsz), !c->bad; /* strp, line_strp, sec_offset, ref_addr, ... */
	case 0x01:
		return fixed(c, addrsz), !c->bad;
	case 0x0f: case 0x0d: case 0x1a: case 0x1b: case 0x15: case 0x22: case 0x23:
		return uleb(c), !c->bad;
	case 0x08: {
		const char *s = str_in(c->p, c->len, c->at);
		if (!s)
			return false;
		c->at += strlen(s) + 1;
		return true;
	}
	default:
		return false;
	}
}

/* The first DIE's abbreviation: positions a at its attribute list. */
static bool find_abbrev(struct cur *a, uint64_t code)
{
	while (!a->bad && a->at < a->len) {
		uint64_t k = uleb(a);
		if (k == 0)
			return false;
		uleb(a);     /* tag */
		fixed(a, 1); /* children */
		if (k == code)
			return !a->bad;
		for (uint64_t at = 1, form = 1; !a->bad && (at || form);) {
			at = uleb(a), form = uleb(a);
			if (form == 0x21)
				uleb(a); /* implicit_const (its SLEB reads as ULEB bytes) */
		}
	}
	return false;
}

size_t dwarf_producer(const struct dwarf_sections *d, char *buf, size_t cap)
{
	struct cur c = {.p = d->info, .len = d->info ? d->info_len : 0};
	size_t offsz = 4, addrsz = 8;
	uint64_t abbrev_off = 0;
	if (fixed(&c, 4) == 0xffffffffu)
		fixed(&c, 8), offsz = 8;
	uint64_t version = fixed(&c, 2);
	if (version >= 5) {
		fixed(&c, 1); /* unit_type */
		addrsz = (size_t)fixed(&c, 1);
		abbrev_off = fixed(&c, offsz);
	} else {
		abbrev_off = fixed(&c, offsz);
		addrsz = (size_t)fixed(&c, 1);
	}
	uint64_t code = uleb(&c);
	struct cur a = {.p = d->abbrev, .len = d->abbrev ? d->abbrev_len : 0, .at = 0};
	if (c.bad || version < 2 || version > 5 || !code || abbrev_off >= a.len || cap == 0)
		return 0;
	a.at = (size_t)abbrev_off;
	if (!find_abbrev(&a, code))
		return 0;
	for (int i = 0; i < 64 && !a.bad && !c.bad; i++) {
		uint64_t at = uleb(&a), form = uleb(&a);
		if (form == 0x21)
			uleb(&a);
		if (at == 0 || a.bad)
			return 0;
		if (at != DW_AT_producer) {
			if (!skip(&c, form, offsz, addrsz))
				return 0;
			continue;
		}
		const char *s = form == 0x08 ? str_in(c.p, c.len, c.at)
				: form == 0x0e ? str_in(d->str, d->str_len, fixed(&c, offsz))
				: form == 0x1f ? str_in(d->line_str, d->line_str_len, fixed(&c, offsz))
				: form == 0x1a ? strx(d, uleb(&c), offsz)
				: form >= 0x25 && form <= 0x28
					? strx(d, fixed(&c, (size_t)(form - 0x24)), offsz)
					: NULL;
		if (c.bad)
			return 0;
		size_t n = 0;
		for (; s && s[n] && n + 1 < cap; n++)
			buf[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
		buf[n] = '\0';
		return n;
	}
	return 0;
}
