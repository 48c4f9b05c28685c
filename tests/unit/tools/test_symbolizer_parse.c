// SPDX-License-Identifier: BSD-3-Clause
/* The pure parsers of src/attrib/parse.c and the ELF reader. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/elf.h"
#include "tools/symbolizer_parse.h"
#include "common/alloc.h"
#include "common/err.h"
#include "harness.h"

#define CLANG TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c-clang/invocations/"
#define STACKS TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c-stacks/invocations/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	CHECK(f);
	char *buf = xmalloc(1 << 20);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void t_json_corpus(void)
{
	size_t len;
	char *s = slurp(CLANG "006.stdout", &len);
	struct attrib_chains cs = {0};
	struct err e = {0};
	CHECK_INT(symbolizer_json__parse(s, len, &cs, &e), 0);
	CHECK_INT(cs.n, 8);
	const struct attrib_chain *c = &cs.v[1];
	CHECK_INT(c->address, 0x1248);
	CHECK_INT(c->nr_frames, 3);
	CHECK_STR(c->frames[0].function, "axpy_element");
	CHECK_INT(c->frames[0].line, 5);
	CHECK_INT(c->frames[0].decl_line, 4);
	CHECK(!c->frames[0].has_start);
	const struct attrib_frame *ph = attrib_chain__physical(c);
	CHECK_STR(ph->function, "main");
	CHECK(ph->has_start && ph->start == 0x1160);
	attrib_chains__release(&cs);
	xfree(s);
	/* an empty FunctionName drops the frame: 0x21708 in ld.so is a gap */
	s = slurp(STACKS "022.stdout", &len);
	CHECK_INT(symbolizer_json__parse(s, len, &cs, &e), 0);
	bool gap = false;
	for (size_t i = 0; i < cs.n; i++)
		if (cs.v[i].address == 0x21708) {
			CHECK_INT(cs.v[i].nr_frames, 0);
			gap = true;
		}
	CHECK(gap);
	attrib_chains__release(&cs);
	xfree(s);
}

static void t_json_errors(void)
{
	struct attrib_chains cs = {0};
	struct err e = {0};
	const char *err = "[{\"Address\":\"0x10\",\"Error\":{\"Message\":\"No such file or directory\"},"
			  "\"ModuleName\":\"/x\"},{\"Address\":\"0x20\",\"ModuleName\":\"/x\",\"Symbol\":[]}]";
	CHECK_INT(symbolizer_json__parse(err, strlen(err), &cs, &e), 0);
	CHECK_INT(cs.n, 2);
	CHECK_STR(cs.v[0].error, "No such file or directory");
	attrib_chains__release(&cs);
	/* stdin mode: one object per line */
	const char *lines = "{\"Address\":\"0x1\",\"Symbol\":[{\"FunctionName\":\"f\",\"FileName\":\"\",\"Line\":0}]}\n"
			    "{\"Address\":\"0x2\",\"Symbol\":[]}\n";
	CHECK_INT(symbolizer_json__parse(lines, strlen(lines), &cs, &e), 0);
	CHECK_INT(cs.n, 2);
	CHECK(!cs.v[0].frames[0].file && cs.v[0].frames[0].line == 0);
	attrib_chains__release(&cs);
	static const char *const bad[] = {"[{\"Address\":12}]", "[1,2]", "[{\"Address\":\"0x1\"}]",
					  "[{\"Address\":\"0xzz\",\"Symbol\":[]}]", "[", "nope"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(symbolizer_json__parse(bad[i], strlen(bad[i]), &cs, &e), -EINVAL);
		CHECK_STR(e.code, "symbolizer.json");
		attrib_chains__release(&cs);
	}
}

static void t_addr2line(void)
{
	const char *out = "0x00000000000011c0\n"
			  "axpy_element\n/src/w.c:5 (discriminator 1)\n"
			  "reduce\n/src/w.c:11\n"
			  "0x0000000000001200\n??\n??:0\n"
			  "0x0000000000001210\nstripped\n??:?\n";
	struct attrib_chains cs = {0};
	struct err e = {0};
	CHECK_INT(addr2line__parse(out, strlen(out), &cs, &e), 0);
	CHECK_INT(cs.n, 3);
	CHECK_INT(cs.v[0].nr_frames, 2);
	CHECK_STR(cs.v[0].frames[0].file, "/src/w.c");
	CHECK_INT(cs.v[0].frames[0].line, 5);
	CHECK_STR(cs.v[0].frames[1].function, "reduce");
	CHECK_INT(cs.v[1].nr_frames, 0);
	CHECK_INT(cs.v[2].nr_frames, 1);
	CHECK(!cs.v[2].frames[0].file);
	attrib_chains__release(&cs);
	CHECK_INT(addr2line__parse("main\nx.c:1\n", 11, &cs, &e), -EINVAL);
	attrib_chains__release(&cs);
}

static void t_readelf(void)
{
	size_t len;
	char *s = slurp(STACKS "024.stdout", &len);
	struct module_sections sec;
	struct err e = {0};
	CHECK_INT(readelf_sections__parse(s, len, &sec, &e), 0);
	CHECK(sec.symtab && sec.dynsym && sec.debug_info);
	xfree(s);
	const char *stripped = "Section Headers:\n  [Nr] Name Type\n  [ 3] .dynsym DYNSYM 0\n"
			       "  [ 9] .text PROGBITS 0\n";
	CHECK_INT(readelf_sections__parse(stripped, strlen(stripped), &sec, &e), 0);
	CHECK(!sec.symtab && sec.dynsym && !sec.debug_info);
	CHECK_INT(readelf_sections__parse("garbage", 7, &sec, &e), -EINVAL);
}

static void t_dwarfdump(void)
{
	size_t len;
	char *s = slurp(CLANG "008.stdout", &len);
	struct line_checksums cs = {0};
	CHECK_INT(dwarfdump_checksums__parse(s, len, &cs), 0);
	CHECK_INT(cs.n, 4);
	CHECK_STR(line_checksums__find(&cs, "/tmp/nunatak-capture-clang/workload.c"),
		  "15145baf1577721b3db763dad1ac80af");
	CHECK_STR(line_checksums__find(&cs, "/tmp/nunatak-capture-clang/./workload.c"),
		  "15145baf1577721b3db763dad1ac80af");
	CHECK_STR(line_checksums__find(&cs, "/usr/include/stdio.h"), "47768dac06badcdb9c30a3d8abe4063b");
	CHECK(!line_checksums__find(&cs, "/elsewhere/workload.c"));
	line_checksums__release(&cs);
	xfree(s);
	s = slurp(STACKS "025.stdout", &len); /* gcc: no md5_checksum, no verdict */
	CHECK_INT(dwarfdump_checksums__parse(s, len, &cs), 0);
	CHECK_INT(cs.n, 0);
	line_checksums__release(&cs);
	xfree(s);
	/* DWARF 5 relative directory: relative to directory 0 */
	const char *rel = "debug_line[0x0]\ninclude_directories[  0] = \"/b\"\n"
			  "include_directories[  1] = \"sub\"\nfile_names[  0]:\n  name: \"x.c\"\n"
			  "  dir_index: 1\n  md5_checksum: 0123456789ABCDEF0123456789abcdef\n";
	CHECK_INT(dwarfdump_checksums__parse(rel, strlen(rel), &cs), 0);
	CHECK_STR(line_checksums__find(&cs, "/b/sub/x.c"), "0123456789abcdef0123456789abcdef");
	line_checksums__release(&cs);
}

static void t_elf(void)
{
	struct elf_info info;
	struct err e = {0};
	/* this test's own executable: PIE or not, it has PT_LOADs and a .symtab */
	CHECK_INT(elf_info__read(&info, "/proc/self/exe", ELF_READ_SYMBOLS, &e), 0);
	CHECK(info.nr_loads >= 1 && info.nr_funcs > 10);
	const struct elf_func *f = NULL;
	for (size_t i = 0; i < info.nr_funcs; i++)
		if (!strcmp(info.funcs[i].name, "t_elf"))
			f = &info.funcs[i];
	CHECK(f);
	CHECK(elf_info__func_at(&info, f->start + f->size - 1) == f);
	CHECK(elf_info__func_at(&info, f->start + f->size) != f);
	uint64_t v;
	CHECK_INT(elf_info__offset_to_vaddr(&info, info.loads[0].offset, &v), 0);
	CHECK_INT(v, info.loads[0].vaddr);
	CHECK_INT(elf_info__offset_to_vaddr(&info, UINT64_MAX - 1, &v), -ENOENT);
	CHECK_INT(info.nr_imports, 0); /* not asked for */
	elf_info__release(&info);
	/* the imports: what the dynamic loader binds from elsewhere (elf_info__read
	 * calls munmap from libc), never what this executable defines */
	CHECK_INT(elf_info__read(&info, "/proc/self/exe", ELF_READ_IMPORTS, &e), 0);
	CHECK_INT(info.nr_funcs, 0);
	bool munmap_seen = false, own_seen = false;
	for (size_t i = 0; i < info.nr_imports; i++) {
		CHECK(info.imports[i][0] != '\0');
		munmap_seen |= !strcmp(info.imports[i], "munmap");
		own_seen |= !strcmp(info.imports[i], "t_elf");
	}
	CHECK(munmap_seen);
	CHECK(!own_seen);
	elf_info__release(&info);
	/* garbage and truncations are refused with the offset, never a crash */
	uint8_t img[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	img[40] = 0xff; /* e_shoff far beyond the image */
	img[58] = 64;
	CHECK_INT(elf_info__parse(&info, img, sizeof(img), ELF_READ_SYMBOLS, &e), -EINVAL);
	CHECK_STR(e.code, "elf.truncated");
	elf_info__release(&info);
	CHECK_INT(elf_info__parse(&info, "hello", 5, 0, &e), -EINVAL);
	elf_info__release(&info);
	img[5] = 2;
	CHECK_INT(elf_info__parse(&info, img, sizeof(img), 0, &e), -EINVAL);
	CHECK_STR(e.code, "elf.endian");
	elf_info__release(&info);
	CHECK(elf_info__read(&info, "/nonexistent", 0, &e) < 0);
	elf_info__release(&info);
}

static const struct test_case cases[] = {
	{"json_corpus", "llvm-symbolizer JSON from the corpus: chains, gaps", t_json_corpus},
	{"json_errors", "per-address errors, stdin mode, malformed output", t_json_errors},
	{"addr2line", "GNU addr2line -a -f -C -i output", t_addr2line},
	{"readelf", "llvm-readelf -S sections: symtab, dynsym, debug_info", t_readelf},
	{"dwarfdump", "llvm-dwarfdump --debug-line MD5 checksums", t_dwarfdump},
	{"elf", "ELF reader: segments, symbols, extents, imports, refusals", t_elf},
};
TEST_MAIN(cases)
