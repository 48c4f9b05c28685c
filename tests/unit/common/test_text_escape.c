// SPDX-License-Identifier: BSD-3-Clause
/* Terminal text (common/text.h): control characters, C1, bidi controls and
 * broken UTF-8 are escaped visibly; text, tabs, newlines and other UTF-8
 * pass untouched. */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/text.h"
#include "harness.h"

static void expect(const char *in, const char *want)
{
	char *got = text_escape_controls(in);
	CHECK_STR(got, want);
	xfree(got);
}

static void t_escape(void)
{
	expect("plain \xc3\xa9t\xc3\xa9\tand\nlines", "plain \xc3\xa9t\xc3\xa9\tand\nlines");
	expect("a\x1b]0;PWNED\x07" "b", "a\\x1b]0;PWNED\\x07b");
	expect("\r\x08\x7f", "\\x0d\\x08\\x7f");
	expect("C1 \xc2\x9b" "2J", "C1 \\u009b2J");
	expect("sample\xe2\x80\xae" "emit", "sample\\u202eemit");
	expect("\xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8f", "\\u2066x\\u2069 \\u200f");
	expect("lone \x9b byte, cut \xe2\x80", "lone \\x9b byte, cut \\xe2\\x80");
	expect("", "");
	/* decodable but no UTF-8: overlong '/', a surrogate, past U+10FFFF;
	 * the largest code point and a 4-byte emoji pass */
	expect("\xc0\xaf \xe0\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80",
	       "\\xc0\\xaf \\xe0\\x80\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80");
	expect("\xf4\x8f\xbf\xbf \xf0\x9f\x90\xa7", "\xf4\x8f\xbf\xbf \xf0\x9f\x90\xa7");
	struct text_lines t = {0};
	CHECK_INT(text_lines__add(&t, "region %s", "r\x1b[2J"), 0);
	CHECK_STR(t.v[0], "region r\\x1b[2J");
	text_lines__release(&t);
}

static const struct test_case cases[] = {
	{"escape", "controls, C1, bidi and broken UTF-8 escaped; text untouched", t_escape},
};
TEST_MAIN(cases)
