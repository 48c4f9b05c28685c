// SPDX-License-Identifier: BSD-3-Clause
// DW_AT_producer of the first compilation unit (attrib/dwarf_producer.h)
// from hand-made DWARF 4 and 5 units; truncated and foreign input give none.
#include "harness.h"

#include <string.h>

#include "attrib/dwarf_producer.h"

/* DWARF 4: abbrev 1 = compile_unit {producer strp, language data1}. */
static void t_v4_strp(void)
{
	static const uint8_t abbrev[] = {1, 0x11, 1, 0x25, 0x0e, 0x13, 0x0b, 0, 0, 0};
	static const uint8_t info[] = {13, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 3, 0, 0, 0, 0x0c};
	static const char str[] = "xxxGNU C17 12.2.0 -O2 -g";
	struct dwarf_sections d = {.info = info, .info_len = sizeof(info), .abbrev = abbrev,
				   .abbrev_len = sizeof(abbrev), .str = (const uint8_t *)str,
				   .str_len = sizeof(str)};
	char buf[64];
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 21);
	CHECK_STR(buf, "GNU C17 12.2.0 -O2 -g");
	CHECK_INT(dwarf_producer(&d, buf, 8), 7); /* cut to the buffer */
	CHECK_STR(buf, "GNU C17");
	d.str_len = 3; /* the offset past .debug_str */
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 0);
	d.info_len = 10; /* a unit cut in its header */
	d.str_len = sizeof(str);
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 0);
}

/* DWARF 5: a second abbreviation first, then {data2, inline string}; and
 * {strx1} through .debug_str_offsets. */
static void t_v5(void)
{
	static const uint8_t abbrev[] = {7, 0x2e, 0, 3, 0x08, 0, 0,
					 1, 0x11, 1, 0x13, 0x05, 0x25, 0x08, 0, 0,
					 2, 0x11, 1, 0x25, 0x25, 0, 0, 0};
	static const uint8_t info[] = {0, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0, 0,
				       1, 0x1d, 0, 'c', 'l', 'a', 'n', 'g', ' ', '1', '9', '\n', 0};
	char buf[64];
	struct dwarf_sections d = {.info = info, .info_len = sizeof(info), .abbrev = abbrev,
				   .abbrev_len = sizeof(abbrev)};
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 9);
	CHECK_STR(buf, "clang 19?"); /* a control character is not copied */
	static const uint8_t info2[] = {0, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0, 0, 2, 1};
	static const uint8_t offs[] = {12, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0};
	static const char str[] = "abc\0Debian clang 14";
	d = (struct dwarf_sections){.info = info2, .info_len = sizeof(info2), .abbrev = abbrev,
				    .abbrev_len = sizeof(abbrev), .str = (const uint8_t *)str,
				    .str_len = sizeof(str), .str_offsets = offs,
				    .str_offsets_len = sizeof(offs)};
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 15);
	CHECK_STR(buf, "Debian clang 14");
	d.str_offsets_len = 12; /* index 1 past the offsets */
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 0);
	d.str_offsets_len = 4; /* shorter than its header (found by fuzzing) */
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 0);
	d.info = NULL; /* no .debug_info */
	CHECK_INT(dwarf_producer(&d, buf, sizeof(buf)), 0);
}

static const struct test_case cases[] = {
	{"v4_strp", "DWARF 4, producer in .debug_str; bounds", t_v4_strp},
	{"v5", "DWARF 5, inline string after another attribute, strx1", t_v5},
};

TEST_MAIN(cases)
