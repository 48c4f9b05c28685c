/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the tools attribution drives give back, and their pure parsers (bytes
 * in, structs out; no I/O, fuzzed), each in the file of its program beside
 * its argv: llvm-symbolizer --output-style=JSON (tools/llvm_symbolizer.c),
 * GNU addr2line -a -f -C -i (tools/addr2line.c), llvm-readelf -S, also GNU
 * readelf -S --wide (tools/llvm_readelf.c), and llvm-dwarfdump --debug-line
 * (tools/llvm_dwarfdump.c); the chains' helpers are tools/attrib_chain.c.
 *
 * An attribution chain is what symbolization established for one address:
 * frames innermost first, the last one the physical function (the thing with
 * a symbol, an extent and a start address), the ones before it inlined into
 * it. An empty chain states that no symbol covers the address.
 */
#ifndef NUNATAK_TOOLS_SYMBOLIZER_PARSE_H
#define NUNATAK_TOOLS_SYMBOLIZER_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

struct attrib_frame {
	char *function;     /* demangled name, never empty */
	char *file;         /* as the debug info recorded it, or NULL */
	int line;           /* where the address falls, 0 when unknown */
	int decl_line;      /* where the function starts (DW_AT_decl_line), 0 when unknown */
	uint64_t start;     /* symbol start (st_value), valid when has_start */
	bool has_start;
};

struct attrib_chain {
	uint64_t address;   /* the address the tool answered for */
	struct attrib_frame *frames;
	size_t nr_frames;
	char *error;        /* the tool's per-address error message, or NULL */
};

struct attrib_chains {
	struct attrib_chain *v;
	size_t n, cap;
};

void attrib_chain__release(struct attrib_chain *c);
/* For the parsers of tools/: a new empty chain at the end of cs, or NULL on
 * ENOMEM; a frame appended to c (strings taken), 0 or -ENOMEM. */
struct attrib_chain *attrib_chains__push(struct attrib_chains *cs);
int attrib_chain__push_frame(struct attrib_chain *c, const struct attrib_frame *f);
void attrib_chains__release(struct attrib_chains *cs);
/* The physical function of a chain (its last frame), or NULL when empty. */
const struct attrib_frame *attrib_chain__physical(const struct attrib_chain *c);

/*
 * llvm-symbolizer --output-style=JSON, seen with LLVM 14 and 19: one JSON
 * array of {"Address":"0x…","ModuleName":…,"Symbol":[{"FunctionName",
 * "FileName","Line","StartAddress","StartLine",…}…]} (or {"Error":{"Message"}})
 * per invocation; several concatenated documents (stdin mode prints one object
 * per line) are accepted too. An empty FunctionName drops the frame; an empty
 * FileName or Line 0 means unknown; an empty StartAddress means no start.
 * Appends to *out. Returns 0, or -EINVAL with e (byte offset, expectation).
 */
int symbolizer_json__parse(const char *text, size_t len, struct attrib_chains *out, struct err *e);

/*
 * GNU addr2line -a -f -C -i: per address a "0x%016x" line, then pairs of
 * lines (function, "file:line[ (discriminator N)]"), innermost first. "??"
 * means unknown. GNU addr2line names gap addresses after the previous symbol
 * (measured): the caller enforces the extent rule. start is never known here.
 */
int addr2line__parse(const char *text, size_t len, struct attrib_chains *out, struct err *e);

struct module_sections {
	bool symtab, dynsym, debug_info;
};
/* llvm-readelf -S / readelf -S -W: "[Nr] Name Type …" rows. Returns 0, or
 * -EINVAL when no section table is in the text. */
int readelf_sections__parse(const char *text, size_t len, struct module_sections *out,
			    struct err *e);

struct line_checksum {
	char *path;        /* include_directories[dir_index] + "/" + name, or name if absolute */
	char md5[33];      /* lowercase hex */
};
struct line_checksums {
	struct line_checksum *v;
	size_t n, cap;
};
/*
 * llvm-dwarfdump --debug-line (LLVM 14 and 19): per line-table prologue,
 * include_directories[N] = "dir" and file_names[N]: name/dir_index/
 * md5_checksum. Files without md5_checksum (gcc, DWARF 4) are skipped: no
 * fingerprint, no verdict. Appends to *out; never fails on unknown lines.
 */
int dwarfdump_checksums__parse(const char *text, size_t len, struct line_checksums *out);
void line_checksums__release(struct line_checksums *cs);
/* The MD5 recorded for path (exact, then with "/./" and "//" collapsed), or NULL. */
const char *line_checksums__find(const struct line_checksums *cs, const char *path);

#endif
