/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small ELF reader: what attribution needs to know about a module without
 * asking an external tool. Little-endian ELF32 and ELF64 (x86-64, AArch64,
 * ppc64le, RISC-V); a big-endian object is refused with a clear error.
 *
 *  - program headers (PT_LOAD): to convert a module-relative *file offset*
 *    (what perf's dsoff and the mmap-event computation give for a shared
 *    object) into the ELF virtual address llvm-symbolizer and addr2line expect;
 *  - section names: presence of .symtab, .dynsym, .debug_info (or
 *    .zdebug_info), which grade attribution (line / function / symbol);
 *  - the GNU build-id note (hex);
 *  - the .comment section: the toolchains that built the object ("GCC:
 *    (Debian 12.2.0-14) 12.2.0"), and the first compilation unit's
 *    DW_AT_producer (compiler and flags), for the Run's provenance;
 *  - FUNC symbol extents [value, value + size) from .symtab, else .dynsym:
 *    the extent rule (an address in a gap between symbols stays unresolved)
 *    is enforced from these when the symbolizer does not enforce it itself
 *    (GNU addr2line, LLVM older than 17).
 *
 * Offered to ingestion too: elf_info__offset_to_vaddr() is the conversion
 * from perf's file-relative offset to a link-time virtual address.
 */
#ifndef NUNATAK_ATTRIB_ELF_H
#define NUNATAK_ATTRIB_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

#define ELF_TYPE_EXEC 2
#define ELF_TYPE_DYN 3

struct elf_segment {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags; /* PF_X = 1, PF_W = 2, PF_R = 4 */
};

struct elf_func {
	uint64_t start, size; /* size > 0 always: zero-size symbols define no extent */
	char *name;
};

/* An address where symbols of the table llvm-symbolizer reads start
 * (ELF_READ_STARTS): .symtab, else .dynsym; every defined symbol but
 * sections and files, the kinds LLVM keeps and some it does not. */
struct elf_start {
	uint64_t start;
	uint64_t min_size, max_size; /* over the symbols starting here */
	bool plain; /* each of them a sized FUNC or IFUNC of an allocated section */
};

struct elf_info {
	int type;               /* ELF_TYPE_EXEC, ELF_TYPE_DYN, ... (e_type) */
	int machine;            /* e_machine */
	bool is64;
	bool has_symtab, has_dynsym, has_debug_info;
	/* DWARF 5 MD5 checksums in .debug_line (attrib/dwarf_line.h): 1 yes,
	 * 0 none (or no .debug_line), -1 cannot tell (compressed, malformed). */
	int debug_line_md5;
	char *build_id;         /* lowercase hex, or NULL when the note is absent */
	char *producer;         /* DW_AT_producer of the first compilation unit
				   (attrib/dwarf_producer.h), or NULL */
	char *comment;          /* .comment's distinct strings joined by "; " (printable
				   ASCII only, at most ELF_COMMENT_MAX bytes), or NULL */
	struct elf_segment *loads; /* PT_LOAD only, in file order */
	size_t nr_loads;
	struct elf_func *funcs; /* sorted by start; of aliases, the widest is kept */
	size_t nr_funcs;
	char **imports;         /* undefined .dynsym names, in table order (ELF_READ_IMPORTS) */
	size_t nr_imports;
	struct elf_start *starts; /* sorted, one per address (ELF_READ_STARTS) */
	size_t nr_starts;
	/* Debug information a symbolizer could read beyond the symbols: any
	 * .debug_* or .zdebug_* section with contents, or .gnu_debugdata. */
	bool has_debug_sections;
	char *debuglink;        /* .gnu_debuglink's file name, or NULL */
};

#define ELF_COMMENT_MAX 480

/* What to read beyond the headers. Symbols cost a pass over the symbol table. */
#define ELF_READ_SYMBOLS 1u
/* The names the object imports (undefined dynamic symbols): which bindings
 * of a library a program calls (run/ranks_mpi.c: mpi_init_f08_). */
#define ELF_READ_IMPORTS 2u
/* The symbol starts llvm-symbolizer chooses from (elf_info__symbol_key). */
#define ELF_READ_STARTS 4u

/* Parses an ELF image held in memory (pure: no I/O, fuzzable). Fills *out
 * (release with elf_info__release even on failure). Returns 0, or -EINVAL
 * with e naming the byte offset and what was expected. */
int elf_info__parse(struct elf_info *out, const void *image, size_t len, unsigned flags,
		    struct err *e);
/* Maps `path` and parses it. -errno with e when it cannot be opened. */
int elf_info__read(struct elf_info *out, const char *path, unsigned flags, struct err *e);
void elf_info__release(struct elf_info *info);

/* The GNU build-id of a notes blob (an ELF PT_NOTE's content, or
 * /sys/kernel/notes: the running kernel's), lowercase hex (caller frees),
 * or NULL when it holds none. */
char *elf_notes_build_id(const void *notes, size_t len);

/* The link-time virtual address of a file offset, via the PT_LOAD that maps
 * it. Returns 0, or -ENOENT when no loadable segment covers the offset. */
int elf_info__offset_to_vaddr(const struct elf_info *info, uint64_t offset, uint64_t *vaddr);

/* The address llvm-symbolizer wants for a module-relative offset as ingestion
 * produces it (docs/ingest.md: perf's dsoff, ip - map.start + map.pgoff, a
 * FILE offset for every module, ET_EXEC included): the vaddr of the PT_LOAD
 * that maps it; the value itself when no segment does. */
uint64_t elf_info__symbolizer_address(const struct elf_info *info, uint64_t offset);

/* The FUNC symbol whose extent covers vaddr, or NULL (a gap, or no symbols).
 * Borrowed; valid until info is released. */
const struct elf_func *elf_info__func_at(const struct elf_info *info, uint64_t vaddr);

/*
 * For a module llvm-symbolizer can only answer from its symbol table (no
 * debug information anywhere: the caller's to know), an address whose
 * answer is the one for vaddr, its "Address" aside, shared by every address
 * with that answer: LLVM (14 to 19) names vaddr after the last symbol
 * starting at or before it (of several at one address, the largest), and
 * nothing when that symbol is sized and ends at or before vaddr. So *key is
 * the start of that symbol when it covers vaddr, its end when vaddr is in
 * the gap after it. False (keep vaddr) when that is not certain: no symbol
 * before vaddr, a symbol there that is not a sized FUNC or IFUNC of an
 * allocated section (zero-size, data, assembly labels, ARM mapping symbols:
 * LLVM versions differ on those), aliases of different sizes that disagree
 * about vaddr, or a machine other than x86-64 and AArch64 (LLVM adjusts
 * symbol addresses elsewhere: Thumb bit, ppc64 .opd). Needs ELF_READ_STARTS.
 */
bool elf_info__symbol_key(const struct elf_info *info, uint64_t vaddr, uint64_t *key);

#endif
