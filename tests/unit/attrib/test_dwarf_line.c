// SPDX-License-Identifier: BSD-3-Clause
// dwarf_line_md5: DWARF 5 unit headers with and without DW_LNCT_MD5, older
// versions, several units, malformed input answering "cannot tell", and
// real objects: clang -gdwarf-5 writes MD5s (dwarfdump runs), GCC does not.
#include "attrib/dwarf_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/elf.h"
#include "common/alloc.h"
#include "common/err.h"

#include "harness.h"

/* A DWARF 5 line-table unit header (no program) into buf; md5 adds the MD5
 * column to the file entry format. Returns its length. */
static size_t unit5(uint8_t *buf, int version, int md5)
{
	static const uint8_t mid[] = {
		8, 0,             /* address_size, segment_selector_size */
		0, 0, 0, 0,       /* header_length (unused by the reader) */
		1, 1, 1, 0xfb, 14, 13, /* min_inst, max_ops, is_stmt, line_base, line_range, opcode_base */
		0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, /* standard_opcode_lengths */
		1, 1, 0x08,       /* directory format: DW_LNCT_path, DW_FORM_string */
		1, '/', 'd', 0,   /* one directory */
	};
	size_t n = 4;
	buf[n++] = (uint8_t)version;
	buf[n++] = 0;
	if (version >= 5) {
		memcpy(buf + n, mid, sizeof(mid));
		n += sizeof(mid);
		buf[n++] = md5 ? 2 : 1; /* file entry format count */
		buf[n++] = 1;
		buf[n++] = 0x08; /* path, string */
		if (md5) {
			buf[n++] = 5;
			buf[n++] = 0x1e; /* MD5, data16 */
		}
		buf[n++] = 1; /* one file */
		memcpy(buf + n, "a.c", 4);
		n += 4;
		if (md5) {
			memset(buf + n, 0xab, 16);
			n += 16;
		}
	} else {
		memset(buf + n, 0, 12);
		n += 12;
	}
	uint32_t ulen = (uint32_t)(n - 4);
	memcpy(buf, &ulen, 4); /* little-endian host, as the reader expects */
	return n;
}

static void t_md5(void)
{
	uint8_t b[256];
	size_t n = unit5(b, 5, 1);
	CHECK_INT(dwarf_line_md5(b, n), 1);
	n = unit5(b, 5, 0);
	CHECK_INT(dwarf_line_md5(b, n), 0);
	n = unit5(b, 4, 0);
	CHECK_INT(dwarf_line_md5(b, n), 0);
	CHECK_INT(dwarf_line_md5(b, 0), 0); /* empty section: nothing to check */
}

static void t_units(void)
{
	/* The MD5 is in the second unit: every unit is looked at. */
	uint8_t b[512];
	size_t n = unit5(b, 4, 0);
	n += unit5(b + n, 5, 0);
	size_t k = n;
	CHECK_INT(dwarf_line_md5(b, n), 0);
	n += unit5(b + n, 5, 1);
	CHECK_INT(dwarf_line_md5(b, n), 1);
	CHECK(k < n);
}

static void t_malformed(void)
{
	uint8_t b[256];
	size_t n = unit5(b, 5, 1);
	CHECK_INT(dwarf_line_md5(b, n - 30), -1); /* unit_length beyond the section */
	n = unit5(b, 6, 0);
	CHECK_INT(dwarf_line_md5(b, n), -1); /* a newer version: cannot tell */
	n = unit5(b, 5, 0);
	b[n - 7] = 0x42; /* unknown form in the file format */
	b[n - 8] = 0x42;
	CHECK(dwarf_line_md5(b, n) != 1);
	uint8_t junk[7] = {0xff, 0xff, 0xff, 0xff, 1, 2, 3};
	CHECK_INT(dwarf_line_md5(junk, sizeof(junk)), -1);
}

/* Real compilers, through the ELF reader: what decides whether attribution
 * runs llvm-dwarfdump on a module. */
static int md5_of(const char *cc, const char *flags)
{
	char dir[] = "/tmp/nunatak-dl-XXXXXX";
	if (!mkdtemp(dir))
		return -2;
	char *cmd = xasprintf("cd %s && printf 'int main(void){return 0;}\\n' > t.c && "
			      "%s %s -o t t.c >/dev/null 2>&1", dir, cc, flags);
	int rc = system(cmd) == 0 ? 0 : -2;
	xfree(cmd);
	struct elf_info e;
	struct err er = {0};
	char *path = xasprintf("%s/t", dir);
	if (rc == 0)
		rc = elf_info__read(&e, path, 0, &er) == 0 ? e.debug_line_md5 : -3;
	if (rc != -2)
		elf_info__release(&e);
	cmd = xasprintf("rm -rf %s", dir);
	(void)!system(cmd);
	xfree(cmd);
	xfree(path);
	return rc;
}

static void t_compilers(void)
{
	if (system("command -v clang >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1") != 0)
		SKIP("clang or gcc not installed");
	CHECK_INT(md5_of("clang", "-g -gdwarf-5"), 1);
	CHECK_INT(md5_of("clang", "-g -gdwarf-4"), 0);
	CHECK_INT(md5_of("gcc", "-g"), 0);
	CHECK_INT(md5_of("gcc", "-g0"), 0); /* no .debug_line at all */
}

static const struct test_case cases[] = {
	{"md5", "DWARF 5 with and without MD5, DWARF 4", t_md5},
	{"units", "a later unit with MD5 is found", t_units},
	{"malformed", "truncated, newer or unknown input is 'cannot tell'", t_malformed},
	{"compilers", "clang -gdwarf-5 has MD5s, gcc and DWARF 4 none", t_compilers},
};
TEST_MAIN(cases)
